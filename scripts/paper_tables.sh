#!/usr/bin/env bash
# Train and score every model of Su & Kuo's Tables 7 (POS), 6 (parsing) and 8
# (parsing against other parsers) in the paper's setting (configs/paper/): each
# macro-model with each cell, one after another, by scripts/train_and_score.py:
# model-last after the 11 epochs, official scores on EWT dev and test given the
# gold lemmas, into METRICS_DIR/DIR/ (paper/ by default) as MODEL-CELL. Table
# 8's models without a recurrent cell (dep_convseq2seq: the convolutional
# seq2seq; dep_tdp: spaCy's transition parser) train once, as MODEL. A pair
# whose scores are there already is skipped, so a stopped run resumes.
# Needs the full EWT corpus (`spacy project run convert`) and the scorer asset.
# NORMALIZE=false trains with the loss summed over each batch's tokens (the
# configs average it) into METRICS_DIR/paper-summed/ (DIR names another folder).
# OWN=0.25 trains the seq2seq models with scheduled sampling (own_predictions:
# that share of the decoder's training steps fed its own previous prediction)
# into METRICS_DIR/paper-own0.25/; MODELS must then name seq2seq models only.
# CLIP=5 clips each parameter's gradient to that L2 norm before AdaGrad's update
# (the configs clip nothing, as the paper names no clipping), into
# METRICS_DIR/paper-clip5/.
# SEED=N (0 by default, the configs' seed) trains with that seed, into the
# folder's name with -seedN after it (METRICS_DIR/paper-seed1/ for SEED=1).
# Usage: [MODELS="pos_rnn ..."] [CELLS="lstm ..."] [NORMALIZE=false] [OWN=0.25]
#        [CLIP=5] [SEED=1] [DIR=paper-summed] bash scripts/paper_tables.sh [GPU_ID] [METRICS_DIR]
set -euo pipefail
gpu=${1:--1}
metrics=${2:-metrics}
models=(${MODELS:-pos_rnn pos_brnn pos_dbrnn pos_seq2seq pos_seq2seq_att
  dep_rnn dep_brnn dep_dbrnn dep_seq2seq dep_seq2seq_att dep_convseq2seq dep_tdp})
# Table 8's models that have no cell to choose
cell_free=" dep_convseq2seq dep_tdp "
cells=(${CELLS:-lstm gru elstm})
normalize=${NORMALIZE:-true}
[ "$normalize" = true ] || [ "$normalize" = false ] || { echo "NORMALIZE must be true or false" >&2; exit 2; }
own=${OWN:-}
default_dir=paper
[ "$normalize" = true ] || default_dir=paper-summed
if [ -n "$own" ]; then
  [[ $own =~ ^(0(\.[0-9]+)?|1(\.0+)?)$ ]] || { echo "OWN must be a number in [0, 1], got '$own'" >&2; exit 2; }
  [ "$normalize" = true ] || { echo "OWN and NORMALIZE=false do not go together" >&2; exit 2; }
  default_dir=paper-own$own
fi
clip=${CLIP:-}
if [ -n "$clip" ]; then
  [[ $clip =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ ! $clip =~ ^0+(\.0+)?$ ]] \
    || { echo "CLIP must be a number > 0, got '$clip'" >&2; exit 2; }
  [ -z "$own" ] && [ "$normalize" = true ] \
    || { echo "CLIP goes with neither OWN nor NORMALIZE=false" >&2; exit 2; }
  default_dir=paper-clip$clip
fi
seed=${SEED:-0}
[[ $seed =~ ^[0-9]+$ ]] || { echo "SEED must be a whole number >= 0, got '$seed'" >&2; exit 2; }
[ "$seed" = 0 ] || default_dir=$default_dir-seed$seed
dir=${DIR:-$default_dir}
for model in "${models[@]}"; do  # every model checked before anything trains
  [ -f "configs/paper/$model.cfg" ] || { echo "no config configs/paper/$model.cfg" >&2; exit 2; }
  if [[ $cell_free == *" $model "* ]] && { [ -n "$own$clip" ] || [ "$normalize" != true ]; }; then
    echo "OWN, CLIP and NORMALIZE apply to the recurrent models only, not $model" >&2
    exit 2
  fi
  if [ -n "$own" ] && [[ $model != *_seq2seq* ]]; then
    echo "OWN applies to the seq2seq models only (pos_seq2seq, pos_seq2seq_att, dep_seq2seq, dep_seq2seq_att), not $model" >&2
    exit 2
  fi
done
for model in "${models[@]}"; do
  if [[ $cell_free == *" $model "* ]]; then
    python scripts/train_and_score.py "$model=configs/paper/$model.cfg" \
      --metrics "$metrics/$dir" --models "training/$dir" --gpu-id "$gpu" \
      --model-last --gold-lemmas --no-evaluate --train-conllu none -- --system.seed "$seed"
    continue
  fi
  for cell in "${cells[@]}"; do
    component=elstm_tagger
    [[ $model == dep_* ]] && component=elstm_seq_parser
    overrides=()
    [ -z "$own" ] || overrides=(--components.$component.model.own_predictions "$own")
    [ -z "$clip" ] || overrides=(--training.optimizer.grad_clip "$clip")
    python scripts/train_and_score.py "$model-$cell=configs/paper/$model.cfg" \
      --metrics "$metrics/$dir" --models "training/$dir" --gpu-id "$gpu" \
      --model-last --gold-lemmas --no-evaluate --train-conllu none -- \
      --components.$component.model.cell "$cell" --components.$component.normalize "$normalize" \
      --system.seed "$seed" "${overrides[@]}"
  done
done
