#!/usr/bin/env bash
# One run of a comparison: train CONFIG on the full EWT train split (dev picks
# model-best) into MODEL_DIR, logging to OUT/train-NAME.jsonl, then score the
# best model on dev and test (scripts/score_model.sh) into OUT as NAME. Skipped
# when OUT already holds NAME's official test scores, so a stopped comparison
# resumes by run. OVERRIDEs go to spacy train as they are.
# Usage: bash scripts/train_and_score.sh CONFIG OUT NAME MODEL_DIR MAX_STEPS GPU_ID [OVERRIDE ...]
set -euo pipefail
config=${1:?config}
out=${2:?metrics folder}
name=${3:?name}
model=${4:?model folder}
steps=${5:?max steps}
gpu=${6:?gpu id}
shift 6
[ -f "$config" ] || { echo "no config $config" >&2; exit 2; }
if [ -f "$out/$name-test.official.json" ]; then
  echo "=== $name: done, skipped"
  exit 0
fi
echo "=== $name: $steps steps ($(date -u +%H:%M:%S))"
python -m spacy train "$config" --output "$model" \
  --paths.train corpus/ud/en_ewt-ud-train.spacy --paths.dev corpus/ud/en_ewt-ud-dev.spacy \
  --paths.train_log "$out/train-$name.jsonl" --training.max_steps "$steps" --gpu-id "$gpu" "$@"
bash scripts/score_model.sh "$model/model-best" "$out" "$name" "$gpu"
