#!/usr/bin/env bash
# Train the PTB language model of one config for several cells, one after
# another, each into training/lm/<run>-seed<N>/, and copy each finished run's
# metrics to metrics/lm/<run>-seed<N>.json (the README's table). A run that was
# interrupted (a checkpoint, no metrics) is resumed where it stopped; a finished
# one is skipped. So the command can be run again until every run is done.
# Usage: bash scripts/compare_lm.sh CONFIG SEED RUN=CELL:PERIOD [...] [-- OVERRIDES]
#   e.g. bash scripts/compare_lm.sh configs/lm/small.cfg 0 lstm=lstm:1 elstm-ts3=elstm:3
set -euo pipefail
config=${1:?config}
seed=${2:?seed}
shift 2
runs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do runs+=("$1"); shift; done
[ $# -gt 0 ] && shift
mkdir -p metrics/lm training/lm
for spec in "${runs[@]}"; do
  name=${spec%%=*}
  rest=${spec#*=}
  cell=${rest%%:*}
  period=${rest#*:}
  out="training/lm/$name-seed$seed"
  metrics="metrics/lm/$name-seed$seed.json"
  if [ -f "$metrics" ]; then echo "=== $name (seed $seed): done"; continue; fi
  resume=()
  if [ -f "$out/checkpoint.pt" ] && [ ! -f "$out/metrics.json" ]; then resume=(--resume); fi
  if [ ! -f "$out/metrics.json" ]; then
    echo "=== $name (seed $seed): $cell, Ts = $period ${resume[*]:-} ($(date -u +%H:%M:%S))"
    spacy-elstm lm train "$config" "$out" "${resume[@]}" --model.cell "$cell" \
      --model.period "$period" --training.seed "$seed" "$@"
  fi
  cp "$out/metrics.json" "$metrics"
done
