#!/usr/bin/env bash
# Every raw-text score of one trained pipeline that docs/results/ud.md reads, by the
# CoNLL 2018 script (`spacy-elstm score --raw`), into METRICS/NAME-SPLIT.raw[-KIND].json:
#   dev:  UD's text form (.raw), one Doc per document (-file), and the text as users
#         may have it (-crlf, -lowercase, -unpunctuated, -lowercase-unpunctuated:
#         `--text-variant`);
#   test: UD's text form, paragraphs on one line (-joined), one sentence per line
#         (-lines), and the same four variants.
# Read test once per final pipeline.
#
#   bash scripts/score_raw.sh PIPELINE METRICS NAME [SPLIT...]
#   bash scripts/score_raw.sh training/raw-ud-10000steps/best_elstm/model-best metrics/raw-ud-10000steps best_elstm
set -euo pipefail
cd "$(dirname "$0")/.."
PIPELINE=${1:?usage: bash scripts/score_raw.sh PIPELINE METRICS NAME [SPLIT...]}
METRICS=${2:?usage}
NAME=${3:?usage}
shift 3
if [ $# -gt 0 ]; then SPLITS=("$@"); else SPLITS=(dev test); fi
GOLD=${GOLD:-assets/UD_English-EWT/en_ewt-ud-SPLIT.conllu}  # SPLIT: each split's name
SCORER=${SCORER:-assets/conll2018-eval/conll18_ud_eval.py}
score() {  # score SPLIT KIND OPTIONS...
    local split=$1 kind=$2
    shift 2
    python -m spacy_elstm score "$PIPELINE" "${GOLD//SPLIT/$split}" --raw --scorer "$SCORER" \
        --output "$METRICS/$NAME-$split.raw${kind:+-$kind}.json" "$@"
}
for split in "${SPLITS[@]}"; do
    score "$split" ""
    if [ "$split" = test ]; then
        score "$split" joined --text-form joined
        score "$split" lines --text-form lines
    else
        score "$split" file --text-unit file
    fi
    for variant in crlf lowercase unpunctuated lowercase-unpunctuated; do
        score "$split" "$variant" --text-variant "$variant"
    done
done
