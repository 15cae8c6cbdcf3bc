#!/usr/bin/env bash
# The tagger macro-models of configs/labeller/ (BRNN, DBRNN, seq2seq with
# attention, label recurrence: one elstm_tagger each, identical but for its
# model) trained on UPOS with the same step budget and training settings, one
# after another, each scored on dev and test (spacy evaluate and the official
# script) into METRICS_DIR beside its training log. A model whose test scores
# are there already is skipped, so a stopped run resumes.
# Usage: bash scripts/macro_taggers.sh MAX_STEPS METRICS_DIR [GPU_ID] [NAME ...]
set -euo pipefail
steps=${1:?max steps}
out=${2:?metrics folder}
gpu=${3:--1}
shift $(( $# < 3 ? $# : 3 ))
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(brnn_tagger dbrnn_tagger seq2seq_attention_tagger label_recurrent_tagger)
mkdir -p "$out"
for name in "${names[@]}"; do
  [ -f "configs/labeller/$name.cfg" ] || { echo "no config configs/labeller/$name.cfg" >&2; exit 2; }
  if [ -f "$out/$name-test.official.json" ]; then
    echo "=== $name: done, skipped"
    continue
  fi
  echo "=== $name: $steps steps ($(date -u +%H:%M:%S))"
  python -m spacy train "configs/labeller/$name.cfg" --output "training/macro/$name" \
    --paths.train corpus/ud/en_ewt-ud-train.spacy --paths.dev corpus/ud/en_ewt-ud-dev.spacy \
    --paths.train_log "$out/train-$name.jsonl" --training.max_steps "$steps" \
    --components.elstm_tagger.attr pos --training.score_weights.tag_acc null \
    --training.score_weights.pos_acc 1.0 --gpu-id "$gpu"
  bash scripts/score_model.sh "training/macro/$name/model-best" "$out" "$name" "$gpu"
done
