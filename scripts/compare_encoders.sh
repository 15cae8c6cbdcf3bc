#!/usr/bin/env bash
# Train and evaluate configs with the same step budget, one after another,
# writing each one's training log and dev/test scores (spacy evaluate and the
# official CoNLL 2018 script) into one folder: the data behind the README's
# accuracy tables.
# Usage: [SEED=N] bash scripts/compare_encoders.sh MAX_STEPS METRICS_DIR [GPU_ID] [CONFIG ...]
# Without CONFIGs, every config in configs/; SEED (default 0) is the training seed.
set -euo pipefail
steps=${1:?max steps}
out=${2:?metrics folder}
gpu=${3:--1}
shift $(( $# < 3 ? $# : 3 ))
configs=("$@")
if [ ${#configs[@]} -eq 0 ]; then
  for config in configs/*.cfg; do configs+=("$(basename "$config" .cfg)"); done
fi
for name in "${configs[@]}"; do
  [ -f "configs/$name.cfg" ] || { echo "no config configs/$name.cfg" >&2; exit 2; }
  echo "=== $name: $steps steps ($(date -u +%H:%M:%S))"
  python -m spacy project run train . --force --vars.config "$name" --vars.max_steps "$steps" \
    --vars.metrics_dir "$out" --vars.gpu "$gpu" --vars.seed "${SEED:-0}"
  python -m spacy project run evaluate . --force --vars.config "$name" --vars.metrics_dir "$out" \
    --vars.gpu "$gpu"
done
