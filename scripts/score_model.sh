#!/usr/bin/env bash
# Score one trained pipeline on EWT dev and test, gold tokenisation: spacy
# evaluate (into OUT/NAME-SPLIT.json) and the official CoNLL 2018 script (into
# OUT/NAME-SPLIT.official.json, with UPOS and XPOS on the words EWT train does
# not have), as the report reads them.
# Usage: bash scripts/score_model.sh MODEL OUT NAME [GPU_ID]
set -euo pipefail
model=${1:?model folder}
out=${2:?metrics folder}
name=${3:?name}
gpu=${4:--1}
for split in dev test; do
  python -m spacy evaluate "$model" "corpus/ud/en_ewt-ud-$split.spacy" \
    --output "$out/$name-$split.json" --gold-preproc --gpu-id "$gpu"
  python -m spacy_elstm score "$model" "assets/UD_English-EWT/en_ewt-ud-$split.conllu" \
    --output "$out/$name-$split.official.json" \
    --scorer assets/conll2018-eval/conll18_ud_eval.py --gpu-id "$gpu" \
    --train assets/UD_English-EWT/en_ewt-ud-train.conllu
done
