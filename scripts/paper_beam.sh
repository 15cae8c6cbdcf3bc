#!/usr/bin/env bash
# Beam search against greedy decoding for the paper-settings seq2seq models that
# scripts/paper_tables.sh trained: each model-last scored on EWT **dev** (gold
# lemmas in, the official script) with each beam width, into
# METRICS_DIR/DIR/beam-<model>-<cell>-w<width>-dev.official.json. Width 1 (greedy
# decoding) is always scored first, in the same run, so that the report sets each
# width's scores and words/s against greedy decoding measured alike. A pair
# without a trained model is skipped, a score already there is kept. Dev only:
# the width is a setting one would tune.
# Usage: [MODELS="pos_seq2seq ..."] [CELLS="lstm ..."] [WIDTHS="4 8"] [DIR=paper]
#        bash scripts/paper_beam.sh [GPU_ID] [METRICS_DIR]
set -euo pipefail
gpu=${1:--1}
metrics=${2:-metrics}
models=(${MODELS:-pos_seq2seq pos_seq2seq_att dep_seq2seq dep_seq2seq_att})
cells=(${CELLS:-lstm gru elstm})
widths=(${WIDTHS:-4})
dir=${DIR:-paper}
for width in "${widths[@]}"; do
  [[ $width =~ ^[1-9][0-9]*$ ]] || { echo "WIDTHS must be positive integers, got '$width'" >&2; exit 2; }
done
for model in "${models[@]}"; do
  [[ $model == *_seq2seq* ]] || { echo "beam search is for the seq2seq models, not $model" >&2; exit 2; }
done
for model in "${models[@]}"; do
  component=elstm_tagger
  [[ $model == dep_* ]] && component=elstm_seq_parser
  for cell in "${cells[@]}"; do
    pipeline=training/$dir/$model-$cell/model-last
    [ -d "$pipeline" ] || { echo "=== $model $cell: no $pipeline, skipped"; continue; }
    for width in 1 "${widths[@]}"; do
      out=$metrics/$dir/beam-$model-$cell-w$width-dev.official.json
      [ -f "$out" ] && { echo "=== $model $cell beam $width: done, skipped"; continue; }
      echo "=== $model $cell beam $width ($(date -u +%H:%M:%S))"
      python -m spacy_elstm score "$pipeline" assets/UD_English-EWT/en_ewt-ud-dev.conllu \
        --gold-lemmas --scorer assets/conll2018-eval/conll18_ud_eval.py --gpu-id "$gpu" \
        --output "$out" --components.$component.model.beam_width "$width"
    done
  done
done
