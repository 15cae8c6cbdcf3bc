#!/usr/bin/env bash
# The three parsers on the same pipeline, trained with one step budget and seed
# in one go: configs/CONFIG.cfg (spaCy's transition parser),
# configs/seqparse/CONFIG.cfg (parsing as sequence labelling) and
# configs/biaffine/CONFIG.cfg (graph-based), each scored on dev and test (spacy
# evaluate and the official script) into METRICS_DIR as CONFIG,
# seqparse-CONFIG and biaffine-CONFIG. A run whose test scores are there
# already is skipped, so a stopped run resumes. A seed other than 0 writes to
# METRICS_DIR-seedN, as converged.sh does.
# Usage: bash scripts/compare_parsers.sh MAX_STEPS METRICS_DIR SEED [GPU_ID] [[KIND/]CONFIG ...]
# Without runs: best_elstm, seqparse/best_elstm, biaffine/best_elstm and the same for cnn.
set -euo pipefail
steps=${1:?max steps}
out=${2:?metrics folder}
seed=${3:?seed}
gpu=${4:--1}
shift $(( $# < 4 ? $# : 4 ))
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(best_elstm seqparse/best_elstm biaffine/best_elstm cnn seqparse/cnn biaffine/cnn)
[ "$seed" = 0 ] || out=$out-seed$seed
mkdir -p "$out"
for run in "${runs[@]}"; do
  name=${run//\//-}
  bash scripts/train_and_score.sh "configs/$run.cfg" "$out" "$name" "training/parsers/$name" \
    "$steps" "$gpu" --system.seed "$seed"
done
