#!/usr/bin/env bash
# Train and evaluate every config in configs/ with the same step budget, one
# after another, writing each one's training log and dev/test scores into one
# folder: the data behind the README's accuracy tables.
# Usage: bash scripts/compare_encoders.sh MAX_STEPS METRICS_DIR [GPU_ID]
set -euo pipefail
steps=${1:?max steps}
out=${2:?metrics folder}
gpu=${3:--1}
for config in configs/*.cfg; do
  name=$(basename "$config" .cfg)
  echo "=== $name: $steps steps ($(date -u +%H:%M:%S))"
  python -m spacy project run train . --force --vars.config "$name" --vars.max_steps "$steps" \
    --vars.metrics_dir "$out" --vars.gpu "$gpu"
  python -m spacy project run evaluate . --force --vars.config "$name" --vars.metrics_dir "$out" \
    --vars.gpu "$gpu"
done
