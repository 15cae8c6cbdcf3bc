#!/usr/bin/env bash
# Train and evaluate configs/ptb/<config>.cfg on the Penn Treebank sample with
# the same step budget, one after another: per config, a model on the trees
# (tags, head-rule labels) and one on the .dp files (tags, unlabelled heads),
# scored on the sample's dev and test files into metrics/ptb-sample/.
# Usage: [SEED=N] [PTB_SAMPLE=folder] bash scripts/compare_ptb.sh MAX_STEPS [GPU_ID] [CONFIG ...]
# Without CONFIGs: elstm_brnn lstm_brnn cnn. PTB_SAMPLE: the unpacked sample
# (default assets/ptb-sample).
set -euo pipefail
steps=${1:?max steps}
gpu=${2:--1}
shift $(( $# < 2 ? $# : 2 ))
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(elstm_brnn lstm_brnn cnn)
sample=${PTB_SAMPLE:-assets/ptb-sample}
for name in "${configs[@]}"; do
  [ -f "configs/ptb/$name.cfg" ] || { echo "no config configs/ptb/$name.cfg" >&2; exit 2; }
done
python -m spacy project run ptb-sample-convert . --vars.ptb_sample "$sample"
for name in "${configs[@]}"; do
  echo "=== $name: $steps steps ($(date -u +%H:%M:%S))"
  python -m spacy project run ptb-sample-train . --force --vars.ptb_config "$name" \
    --vars.ptb_sample_max_steps "$steps" --vars.gpu "$gpu" --vars.seed "${SEED:-0}"
  python -m spacy project run ptb-sample-evaluate . --force --vars.ptb_config "$name" --vars.gpu "$gpu"
done
