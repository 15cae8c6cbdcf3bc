#!/usr/bin/env bash
# The input-gate study of Su & Kuo (Sec. 5.2, Fig. 11; Fig. 12 for POS): the
# LSTM and the ELSTM with their gates computed from [x_t, h_(t-1)]
# (gates = "recurrent", the configs' setting) and from x_t alone
# (gates = "input"), in the paper's setting (configs/paper/), over seeds. Each
# run is scripts/train_and_score.py with overrides: its training log, the loss
# of every EVAL steps and the dev score after them, in
# METRICS_DIR/DIR/train-MODEL-CELL-GATES-seedN.jsonl, and model-last scored
# officially on EWT dev given the gold lemmas (MODEL-CELL-GATES-seedN-dev.official.json).
# A run whose scores are there already is skipped, so a stopped study resumes.
# EPOCHS (11 by default, the paper's) trains fewer epochs, into
# input-gates-<EPOCHS>epochs/ rather than input-gates/ (DIR names another folder).
# EVAL (157 by default, four logs an epoch of EWT train's 628 batches) is how
# many steps each logged loss sums; training is the same for any EVAL.
# Needs the full EWT corpus (`spacy project run convert`) and the scorer asset.
# Usage: [MODELS="dep_brnn ..."] [CELLS="lstm elstm"] [GATES="recurrent input"]
#        [SEEDS="0 1"] [EPOCHS=11] [EVAL=157] [DIR=input-gates]
#        bash scripts/input_gates.sh [GPU_ID] [METRICS_DIR]
set -euo pipefail
gpu=${1:--1}
metrics=${2:-metrics}
models=(${MODELS:-dep_brnn})
cells=(${CELLS:-lstm elstm})
gates=(${GATES:-recurrent input})
seeds=(${SEEDS:-0 1})
epochs=${EPOCHS:-11}
eval_every=${EVAL:-157}
[[ $epochs =~ ^[1-9][0-9]*$ ]] || { echo "EPOCHS must be a whole number >= 1, got '$epochs'" >&2; exit 2; }
[[ $eval_every =~ ^[1-9][0-9]*$ ]] || { echo "EVAL must be a whole number >= 1, got '$eval_every'" >&2; exit 2; }
default_dir=input-gates
[ "$epochs" = 11 ] || default_dir=input-gates-${epochs}epochs
dir=${DIR:-$default_dir}
for model in "${models[@]}"; do  # every value checked before anything trains
  [ -f "configs/paper/$model.cfg" ] || { echo "no config configs/paper/$model.cfg" >&2; exit 2; }
done
for cell in "${cells[@]}"; do
  [[ $cell =~ ^(lstm|elstm|elstm2)$ ]] \
    || { echo "CELLS: '$cell' has no gates=\"input\" variant; choose lstm, elstm or elstm2" >&2; exit 2; }
done
for gate in "${gates[@]}"; do
  [[ $gate =~ ^(recurrent|input)$ ]] || { echo "GATES: '$gate' is neither recurrent nor input" >&2; exit 2; }
done
for seed in "${seeds[@]}"; do
  [[ $seed =~ ^[0-9]+$ ]] || { echo "SEEDS: '$seed' is not a whole number >= 0" >&2; exit 2; }
done
for seed in "${seeds[@]}"; do  # seed by seed: a stopped study has whole seeds of every setting
  for model in "${models[@]}"; do
    component=elstm_tagger
    [[ $model == dep_* ]] && component=elstm_seq_parser
    for cell in "${cells[@]}"; do
      for gate in "${gates[@]}"; do
        python scripts/train_and_score.py "$model-$cell-$gate-seed$seed=configs/paper/$model.cfg" \
          --metrics "$metrics/$dir" --models "training/$dir" --gpu-id "$gpu" --splits dev \
          --model-last --gold-lemmas --no-evaluate --train-conllu none -- \
          --components.$component.model.cell "$cell" --components.$component.model.gates "$gate" \
          --system.seed "$seed" --training.max_epochs "$epochs" --training.eval_frequency "$eval_every"
      done
    done
  done
done
