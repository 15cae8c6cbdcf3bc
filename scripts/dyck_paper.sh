#!/usr/bin/env bash
# Bounded Dyck-2 at the second-order LSTM paper's sizes (`spacy-elstm dyck
# --paper-size`: 10,000 / 4,000 / 10,000 strings up to 200 symbols, Adam at
# 1e-4, up to 100 epochs with the paper's early stopping), one model per
# command, each into METRICS_DIR/dyck/paper-m<M>-<CELL>-seed<SEED>.json, so
# that the results page adds them up into one table. A model takes half an
# hour or more on one CPU thread (the results page gives each model's
# seconds), so every piece resumes: a finished model is kept, and one stopped
# midway goes on from its last finished epoch (the command's own checkpoints).
# The LSTM and the ELSTM of every m come first.
# Usage: [MS="4 6 8"] [CELLS="lstm elstm solstm"] [SEEDS="0"]
#        bash scripts/dyck_paper.sh [METRICS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."  # python -m runs this checkout's package
metrics=${1:-metrics}
ms=(${MS:-4 6 8})
cells=(${CELLS:-lstm elstm solstm})
seeds=(${SEEDS:-0})
for m in "${ms[@]}"; do  # every value checked before anything trains
  [[ $m =~ ^[1-9][0-9]*$ ]] || { echo "MS: '$m' is not a whole number >= 1" >&2; exit 2; }
done
for cell in "${cells[@]}"; do
  [[ $cell =~ ^(lstm|elstm|solstm)$ ]] \
    || { echo "CELLS: unknown cell '$cell'; choose lstm, elstm or solstm" >&2; exit 2; }
done
for seed in "${seeds[@]}"; do
  [[ $seed =~ ^[0-9]+$ ]] || { echo "SEEDS: '$seed' is not a whole number >= 0" >&2; exit 2; }
done
# the fast cells of every m before the slow one
order=()
for cell in "${cells[@]}"; do [ "$cell" = solstm ] || order+=("$cell"); done
for cell in "${cells[@]}"; do [ "$cell" = solstm ] && order+=("$cell"); done
for seed in "${seeds[@]}"; do
  for cell in "${order[@]}"; do
    for m in "${ms[@]}"; do
      name=paper-m$m-$cell-seed$seed
      if [ -f "$metrics/dyck/$name.json" ] && [ ! -d "$metrics/dyck/$name.checkpoints" ]; then
        echo "done already: $metrics/dyck/$name.json"; continue
      fi
      echo "$(date -u +%FT%TZ) start $name"
      python -m spacy_elstm dyck "$metrics/dyck" --paper-size --m "$m" --cell "$cell" \
        --seed "$seed" --name "$name" --no-progress
      echo "$(date -u +%FT%TZ) end $name"
    done
  done
done
