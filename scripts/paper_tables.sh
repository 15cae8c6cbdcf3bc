#!/usr/bin/env bash
# Train and score every model of Su & Kuo's Tables 7 (POS) and 6 (parsing) in
# the paper's setting (configs/paper/): each macro-model with each cell, one after another, through
# the project's paper-train and paper-evaluate commands. A pair whose test
# scores are already in METRICS_DIR/paper/ is skipped, so a stopped run resumes.
# Needs the full EWT corpus (`spacy project run convert`) and the scorer asset.
# Usage: [MODELS="pos_rnn ..."] [CELLS="lstm ..."] bash scripts/paper_tables.sh [GPU_ID] [METRICS_DIR]
set -euo pipefail
gpu=${1:--1}
metrics=${2:-metrics}
models=(${MODELS:-pos_rnn pos_brnn pos_dbrnn pos_seq2seq pos_seq2seq_att
  dep_rnn dep_brnn dep_dbrnn dep_seq2seq dep_seq2seq_att})
cells=(${CELLS:-lstm gru elstm})
for model in "${models[@]}"; do
  [ -f "configs/paper/$model.cfg" ] || { echo "no config configs/paper/$model.cfg" >&2; exit 2; }
  for cell in "${cells[@]}"; do
    if [ -f "$metrics/paper/$model-$cell-test.official.json" ]; then
      echo "=== $model $cell: done, skipped"
      continue
    fi
    component=elstm_tagger
    [[ $model == dep_* ]] && component=elstm_seq_parser
    echo "=== $model $cell ($(date -u +%H:%M:%S))"
    python -m spacy project run paper-train . --vars.paper_model "$model" \
      --vars.paper_component "$component" \
      --vars.paper_cell "$cell" --vars.metrics_dir "$metrics" --vars.gpu "$gpu"
    python -m spacy project run paper-evaluate . --vars.paper_model "$model" \
      --vars.paper_cell "$cell" --vars.metrics_dir "$metrics" --vars.gpu "$gpu"
  done
done
