#!/usr/bin/env bash
# Train and score every model of Su & Kuo's Tables 7 (POS) and 6 (parsing) in
# the paper's setting (configs/paper/): each macro-model with each cell, one after another, through
# the project's paper-train and paper-evaluate commands. A pair whose test
# scores are already in METRICS_DIR/DIR/ (paper/ by default) is skipped, so a
# stopped run resumes.
# Needs the full EWT corpus (`spacy project run convert`) and the scorer asset.
# NORMALIZE=false trains with the loss summed over each batch's tokens (the
# configs average it) into METRICS_DIR/paper-summed/ (DIR names another folder).
# Usage: [MODELS="pos_rnn ..."] [CELLS="lstm ..."] [NORMALIZE=false] [DIR=paper-summed]
#        bash scripts/paper_tables.sh [GPU_ID] [METRICS_DIR]
set -euo pipefail
gpu=${1:--1}
metrics=${2:-metrics}
models=(${MODELS:-pos_rnn pos_brnn pos_dbrnn pos_seq2seq pos_seq2seq_att
  dep_rnn dep_brnn dep_dbrnn dep_seq2seq dep_seq2seq_att})
cells=(${CELLS:-lstm gru elstm})
normalize=${NORMALIZE:-true}
[ "$normalize" = true ] || [ "$normalize" = false ] || { echo "NORMALIZE must be true or false" >&2; exit 2; }
default_dir=paper
[ "$normalize" = true ] || default_dir=paper-summed
dir=${DIR:-$default_dir}
for model in "${models[@]}"; do
  [ -f "configs/paper/$model.cfg" ] || { echo "no config configs/paper/$model.cfg" >&2; exit 2; }
  for cell in "${cells[@]}"; do
    if [ -f "$metrics/$dir/$model-$cell-test.official.json" ]; then
      echo "=== $model $cell: done, skipped"
      continue
    fi
    component=elstm_tagger
    [[ $model == dep_* ]] && component=elstm_seq_parser
    echo "=== $model $cell ($(date -u +%H:%M:%S))"
    python -m spacy project run paper-train . --vars.paper_model "$model" \
      --vars.paper_component "$component" \
      --vars.paper_cell "$cell" --vars.metrics_dir "$metrics" --vars.gpu "$gpu" \
      --vars.paper_normalize "$normalize" --vars.paper_dir "$dir"
    python -m spacy project run paper-evaluate . --vars.paper_model "$model" \
      --vars.paper_cell "$cell" --vars.metrics_dir "$metrics" --vars.gpu "$gpu" \
      --vars.paper_dir "$dir"
  done
done
