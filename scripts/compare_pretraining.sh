#!/usr/bin/env bash
# Fine-tune configs/pretrain/elstm_next_word.cfg on EWT with the same step budget
# twice, from the pretrained tok2vec weights and from scratch, and score both
# on dev and test (spacy evaluate and the official CoNLL 2018 script) into one
# folder, as `<name>-<split>.json` / `.official.json` beside `train-<name>.jsonl`.
# Usage: bash scripts/compare_pretraining.sh MAX_STEPS METRICS_DIR WEIGHTS [SEED [GPU_ID [RUN ...]]]
#   WEIGHTS: a file `spacy pretrain` wrote, e.g. training/pretrain/model-last.bin
#   RUN: scratch or pretrained (default both), so the two can run side by side
set -euo pipefail
steps=${1:?max steps}
out=${2:?metrics folder}
weights=${3:?pretrained weights}
seed=${4:-0}
gpu=${5:--1}
runs=("${@:6}")
[ ${#runs[@]} -gt 0 ] || runs=(scratch pretrained)
config=configs/pretrain/elstm_next_word.cfg
[ -f "$weights" ] || { echo "no pretrained weights $weights (run: spacy project run pretrain)" >&2; exit 2; }
mkdir -p "$out"
for run in "${runs[@]}"; do
  case $run in scratch|pretrained) ;; *) echo "unknown run $run: choose scratch or pretrained" >&2; exit 2;; esac
  name=elstm_next_word-$run
  init=null
  [ "$run" = pretrained ] && init=$weights
  echo "=== $name: $steps steps ($(date -u +%H:%M:%S))"
  python -m spacy train "$config" --output "training/$name" \
    --paths.train corpus/ud/en_ewt-ud-train.spacy --paths.dev corpus/ud/en_ewt-ud-dev.spacy \
    --paths.train_log "$out/train-$name.jsonl" --paths.init_tok2vec "$init" \
    --training.max_steps "$steps" --system.seed "$seed" --gpu-id "$gpu"
  bash scripts/score_model.sh "training/$name/model-best" "$out" "$name" "$gpu"
done
