#!/usr/bin/env bash
# The GPU check of issue 45, in one call on a bare machine (docs/gpu.md, "The
# prepared device check"): install what travels in .gpu/ (scripts/gpu_bundle.sh),
# profile training steps of configs/gpu/best_elstm.cfg (lab.pipeline_profile
# --train), train it for a fixed wall time, score dev with the official script,
# time inference beside spaCy's CNN and BiLSTM pipelines on the same device and
# the raw-text pipeline (configs/raw/best_elstm.cfg: its tokenizer and
# elstm_senter, trained RAW_STEPS steps) on dev's raw text in UD's form, words/s
# and every official score (`score --raw`), and last run the test files with
# CUDA cases. The defaults fit a 540 s call as the steps took on an H200
# (docs/results/speed.md, "GPU check"). Every result goes to OUT as JSON (at most 8 files:
# what a device call brings back):
#
#   environment.json  steps.jsonl (each step's exit status and seconds)  gpu-check.log
#   profile-train-gpu.json  train-gpu.jsonl  gpu-dev.official.json  bench-gpu.json
#   raw-gpu-dev.json
#
#   bash scripts/gpu_check.sh OUT
#
# Settings (environment variables): GPU_ID (0; -1 runs it all on the CPU, as
# the test does), TRAIN_SECONDS (180: spaCy's start included), TRAIN_OVERRIDES (extra `spacy train`
# options), PROFILE_WORDS (10000), BATCH_WORDS (5000), BENCH_WORDS (all of dev),
# TESTS (the pytest files), RAW_STEPS (100), RAW_OVERRIDES (extra `spacy train`
# options of the raw-text pipeline; the senter's epochs 2 and 2), DATA (.gpu/corpus: <stem>-ud-{train,dev}.spacy,
# <stem>-ud-dev.conllu, conll18_ud_eval.py, and treebank.env, which scripts/gpu_bundle.sh
# writes: STEM, the treebank's files' stem, en_ewt by default, and NLP_LANG, its language). A step that fails is recorded and
# the next ones still run; the script exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: bash scripts/gpu_check.sh OUT}
mkdir -p "$OUT"
GPU_ID=${GPU_ID:-0}
TRAIN_SECONDS=${TRAIN_SECONDS:-180}
TRAIN_OVERRIDES=${TRAIN_OVERRIDES:-}
PROFILE_WORDS=${PROFILE_WORDS:-10000}
BATCH_WORDS=${BATCH_WORDS:-5000}
BENCH_WORDS=${BENCH_WORDS:-}
TESTS=${TESTS:-tests/test_gpu.py tests/test_triton.py tests/test_reference.py}
RAW_STEPS=${RAW_STEPS:-100}
# the senter's own training shortened (12 and 8 epochs in the config: 116 s of an H200's
# call); the raw step times words/s, its scores after 100 steps say only that it runs
RAW_OVERRIDES=${RAW_OVERRIDES:---initialize.components.elstm_senter.epochs 2 --initialize.components.elstm_senter.word_epochs 2}
DATA=${DATA:-.gpu/corpus}
STEM=en_ewt
NLP_LANG=en
# shellcheck disable=SC1091
[ -f "$DATA/treebank.env" ] && . "$DATA/treebank.env"
MODEL=$(mktemp -d)/gpu_best_elstm
RAW=$(mktemp -d)/raw_best_elstm
LOG="$OUT/gpu-check.log"
: > "$OUT/steps.jsonl"
echo "treebank: $DATA/$STEM-ud-*, language $NLP_LANG" | tee "$LOG"
failed=0

step() {  # step NAME COMMAND...: run it, its output into the log, its status into steps.jsonl
    local name=$1 start rc
    shift
    start=$(date +%s)
    echo "== $name: $*" | tee -a "$LOG"
    "$@" >> "$LOG" 2>&1
    rc=$?
    echo "{\"step\": \"$name\", \"rc\": $rc, \"seconds\": $(( $(date +%s) - start ))}" >> "$OUT/steps.jsonl"
    echo "   $name: exit $rc" | tee -a "$LOG"
    if [ "$rc" -ne 0 ]; then failed=1; fi
    return 0
}

install() {  # the bundle's packages, where this Python lacks spaCy (a bare GPU machine)
    if python3 -c "import spacy, spacy_elstm" 2>/dev/null; then
        echo "spaCy and spacy_elstm are installed: the bundle is not needed"
        return 0
    fi
    mkdir -p /tmp/gpu-site && tar -xzf .gpu/site.tar.gz -C /tmp/gpu-site
}

if [ ! -d "$DATA" ]; then
    echo "gpu_check: no $DATA: run scripts/gpu_bundle.sh first." >&2
    exit 2
fi
step install install
if ! python3 -c "import spacy" 2>/dev/null; then
    export PYTHONPATH=/tmp/gpu-site${PYTHONPATH:+:$PYTHONPATH}
fi
export PYTHONUNBUFFERED=1
step environment python3 -c "
import json, platform, sys, torch, spacy, thinc
env = {'python': platform.python_version(), 'torch': torch.__version__, 'cuda': torch.version.cuda,
       'spacy': spacy.__version__, 'thinc': thinc.__version__, 'gpu_id': $GPU_ID,
       'gpu': torch.cuda.get_device_name($GPU_ID) if $GPU_ID >= 0 else None}
json.dump(env, open(sys.argv[1], 'w'), indent=2)
print(env)" "$OUT/environment.json"
step profile-train python3 -m lab.pipeline_profile gpu_best_elstm=configs/gpu/best_elstm.cfg \
    --train --train-words "$PROFILE_WORDS" --batch-words "$BATCH_WORDS" --rounds 2 \
    --gpu-id "$GPU_ID" --data "$DATA/$STEM-ud-dev.conllu" --output "$OUT/profile-train-gpu.json"
train() {  # stopped after TRAIN_SECONDS; model-best holds the best dev evaluation so far
    # shellcheck disable=SC2086
    timeout -s INT "$TRAIN_SECONDS" python3 -m spacy train configs/gpu/best_elstm.cfg \
        --output "$MODEL" --paths.train "$DATA/$STEM-ud-train.spacy" \
        --paths.dev "$DATA/$STEM-ud-dev.spacy" --paths.train_log "$OUT/train-gpu.jsonl" \
        --nlp.lang "$NLP_LANG" --gpu-id "$GPU_ID" $TRAIN_OVERRIDES
    local rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 130 ]; then
        echo "stopped after $TRAIN_SECONDS s, as asked"
        rc=0
    fi
    [ "$rc" -eq 0 ] && [ -d "$MODEL/model-best" ] || { echo "no $MODEL/model-best"; return 1; }
}
step train train
step score python3 -m spacy_elstm score "$MODEL/model-best" "$DATA/$STEM-ud-dev.conllu" \
    --scorer "$DATA/conll18_ud_eval.py" --gpu-id "$GPU_ID" --output "$OUT/gpu-dev.official.json"
step bench python3 -m spacy_elstm benchmark configs "$DATA/$STEM-ud-dev.conllu" configs/cnn.cfg \
    configs/gpu/spacy_bilstm.cfg "$MODEL/model-best" --reference cnn --repeats 3 \
    --gpu-id "$GPU_ID" ${BENCH_WORDS:+--max-words "$BENCH_WORDS"} --output "$OUT/bench-gpu.json"
raw_train() {  # its tokenizer and senter learn from train when it is initialised
    # shellcheck disable=SC2086
    python3 -m spacy train configs/raw/best_elstm.cfg --output "$RAW" \
        --paths.train "$DATA/$STEM-ud-train.spacy" --paths.dev "$DATA/$STEM-ud-dev.spacy" \
        --nlp.lang "$NLP_LANG" --gpu-id "$GPU_ID" --training.max_steps "$RAW_STEPS" \
        --training.eval_frequency "$RAW_STEPS" $RAW_OVERRIDES
}
step raw-train raw_train
step raw-score python3 -m spacy_elstm score "$RAW/model-last" "$DATA/$STEM-ud-dev.conllu" --raw \
    --scorer "$DATA/conll18_ud_eval.py" --gpu-id "$GPU_ID" --output "$OUT/raw-gpu-dev.json"
# last: the measurements above come back even where the call's time runs out here
# shellcheck disable=SC2086
step tests timeout 150 python3 -m pytest -q -p no:cacheprovider $TESTS
echo "done: $(grep -c '"rc": 0' "$OUT/steps.jsonl") of $(wc -l < "$OUT/steps.jsonl") steps passed" | tee -a "$LOG"
exit $failed
