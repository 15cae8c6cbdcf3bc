#!/usr/bin/env bash
# The comparison on one UD treebank (docs/results/treebanks.md): our raw-text
# pipelines (configs/raw/<config>.cfg, CONFIGS) trained and scored on it, UDPipe 1
# trained beside them with its default schedule and scored on the same raw test
# text and on the gold words, the non-projective trees each gets right, where
# each ends sentences (and how often each mark ends one in the training split),
# the multiword tokens each writes with the right words, and the words/s of all
# of them in one process, one thread. Every step whose output is there already
# is skipped, so a stopped study resumes; another SEED trains and scores our
# pipelines again into metrics/treebanks/<treebank>-seedN (UDPipe 1,
# the trees, the sentence ends and the speed are measured on seed 0's pipelines).
#
#   bash scripts/treebank_study.sh UD_<Name> [STEPS] [SEED]
#
# STEPS: training.max_steps of our pipelines (3000); CONFIGS ("best_elstm cnn");
# STUDY: the folder under metrics/ and training/ (treebanks).
set -euo pipefail
cd "$(dirname "$0")/.."
TREEBANK=${1:?usage: bash scripts/treebank_study.sh UD_<Name> [STEPS] [SEED]}
STEPS=${2:-3000}
SEED=${3:-0}
CONFIGS=${CONFIGS:-best_elstm cnn}
SCORER=${SCORER:-assets/conll2018-eval/conll18_ud_eval.py}
STUDY=${STUDY:-treebanks}
METRICS=metrics/$STUDY/$TREEBANK
MODELS=training/$STUDY/$TREEBANK
PEER=training/udpipe1/$TREEBANK
# the treebank's stem and the folder of its three splits (its own folder, or where
# a split in parts or a dev held out from train was written: ud_splits)
read -r STEM SPLITS < <(python -c "from spacy_elstm.treebanks.ud_folder import find_treebank
t = find_treebank('assets/$TREEBANK'); print(t.stem, t.files['test'].parent)")
GOLD=$SPLITS/$STEM-ud-test.conllu

[ -d "corpus/$TREEBANK" ] || python -m spacy_elstm convert "assets/$TREEBANK" "corpus/$TREEBANK"
for config in $CONFIGS; do
    python scripts/train_and_score.py "$config=configs/raw/$config.cfg" --raw \
        --treebank "assets/$TREEBANK" --metrics "$METRICS" --models "$MODELS" \
        --steps "$STEPS" --seed "$SEED"
done
[ "$SEED" -eq 0 ] || exit 0

if [ ! -f "$PEER/$STEM.udpipe" ]; then  # UDPipe 1's default schedule: options left empty
    python -m lab.udpipe_peer train --train "$SPLITS/$STEM-ud-train.conllu" \
        --heldout "$SPLITS/$STEM-ud-dev.conllu" --model "$PEER/$STEM.udpipe" \
        --tokenizer "" --tagger "" --parser ""
fi
[ -f "$METRICS/udpipe1-test.json" ] || python -m lab.udpipe_peer run --model "$PEER/$STEM.udpipe" \
    --gold "$GOLD" --scorer "$SCORER" --output "$PEER/udpipe1-test.conllu" \
    --json "$METRICS/udpipe1-test.json"
[ -f "$METRICS/udpipe1-test.gold.json" ] || python -m lab.udpipe_peer gold-tokens \
    --model "$PEER/$STEM.udpipe" --gold "$GOLD" --scorer "$SCORER" \
    --output "$PEER/udpipe1-test.gold.conllu" --json "$METRICS/udpipe1-test.gold.json"

systems=() raw=() pipelines=()
for config in $CONFIGS; do
    systems+=("$config=$MODELS/$config/predictions/$STEM-ud-test.conllu")
    raw+=("$config=$MODELS/$config/predictions-raw/$STEM-ud-test.conllu")
    pipelines+=("$config=$MODELS/$config/model-best")
done
[ -f "$METRICS/nonprojective-test.json" ] || python -m lab.nonprojective "$GOLD" "${systems[@]}" \
    "udpipe1=$PEER/udpipe1-test.gold.conllu" --output "$METRICS/nonprojective-test.json"
[ -f "$METRICS/sentence-marks-train.json" ] || python -m lab.sentence_ends \
    "$SPLITS/$STEM-ud-train.conllu" --output "$METRICS/sentence-marks-train.json"
[ -f "$METRICS/sentence-ends-test.json" ] || python -m lab.sentence_ends "$GOLD" "${raw[@]}" \
    "udpipe1=$PEER/udpipe1-test.conllu" --output "$METRICS/sentence-ends-test.json"
[ -f "$METRICS/multiword-test.json" ] || python -m lab.multiword_tokens "$GOLD" "${raw[@]}" \
    "udpipe1=$PEER/udpipe1-test.conllu" --train "$SPLITS/$STEM-ud-train.conllu" \
    --output "$METRICS/multiword-test.json"
[ -f "$METRICS/speed-test.json" ] || python -m lab.treebank_speed --gold "$GOLD" "${pipelines[@]}" \
    --udpipe "$PEER/$STEM.udpipe" --output "$METRICS/speed-test.json"
