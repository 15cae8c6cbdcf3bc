#!/usr/bin/env bash
# The converged comparison of the accuracy issue: each headline config trained
# for MAX_STEPS steps (the learning rate decays to zero at the last step;
# dev-based model-best) and scored on dev and test, into
# metrics/converged-<MAX_STEPS>steps/ for seed 0 and ...-seed<N>/ for seed N,
# the folders `spacy-elstm report` averages over seeds. A config whose test
# scores are there already is skipped, so a stopped run resumes by config.
# A quarter of an hour to an hour per config at 5,000 steps on one CPU thread,
# depending on the machine.
# A CONFIG in a subfolder of configs/ (KIND/CONFIG, e.g. chars/best_elstm) is
# trained and scored by scripts/train_and_score.sh as KIND-CONFIG.
# PREFIX (default converged) names the folders: PREFIX=budget writes
# metrics/budget-<MAX_STEPS>steps[-seedN]/, the equal-budget comparison.
# Usage: [PREFIX=NAME] bash scripts/converged.sh MAX_STEPS SEED [GPU_ID] [[KIND/]CONFIG ...]
# Without CONFIGs, the fair set: shared_elstm, shared_lstm, shared_gru,
# shared_elstm2, shared_dbrnn and cnn.
set -euo pipefail
steps=${1:?max steps}
seed=${2:?seed}
gpu=${3:--1}
shift $(( $# < 3 ? $# : 3 ))
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(shared_elstm shared_lstm shared_gru shared_elstm2 shared_dbrnn cnn)
out=metrics/${PREFIX:-converged}-${steps}steps
[ "$seed" = 0 ] || out=$out-seed$seed
for config in "${configs[@]}"; do
  name=${config//\//-}
  if [ -f "$out/$name-test.official.json" ]; then
    echo "=== $name (seed $seed): done, skipped"
    continue
  fi
  if [[ $config == */* ]]; then
    mkdir -p "$out"
    bash scripts/train_and_score.sh "configs/$config.cfg" "$out" "$name" "training/$name" \
      "$steps" "$gpu" --system.seed "$seed"
  else
    SEED=$seed bash scripts/compare_encoders.sh "$steps" "$out" "$gpu" "$config"
  fi
done
