#!/usr/bin/env bash
# The tagger macro-models of configs/labeller/ (BRNN, DBRNN, seq2seq with
# attention, label recurrence: one elstm_tagger each, identical but for its
# model) trained on UPOS with the same step budget and training settings, one
# after another, each scored on dev and test (spacy evaluate and the official
# script) into METRICS_DIR beside its training log. A model whose test scores
# are there already is skipped, so a stopped run resumes.
# configs/labeller/tuned_dbrnn_tagger.cfg and tuned_brnn_tagger.cfg (the DBRNN and
# the BRNN with the accuracy search's embedding and training) are trained when
# named (project.yml: tuned-tagger).
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
  bash scripts/train_and_score.sh "configs/labeller/$name.cfg" "$out" "$name" "training/macro/$name" \
    "$steps" "$gpu" --components.elstm_tagger.attr pos --training.score_weights.tag_acc null \
    --training.score_weights.pos_acc 1.0
done
