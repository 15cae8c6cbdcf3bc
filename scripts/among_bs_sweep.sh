#!/usr/bin/env bash
# The "A among Bs" sweep of Su & Kuo (Sec. 3.1, Table 2, Fig. 5) under the
# training settings chosen on the LSTM alone by `spacy-elstm memory
# among-bs-grid` (its optimizer, learning rate and stop loss, read from
# GRID, metrics/memory/grid/among-bs-grid.json by default): every cell, each
# hidden width, T raised one step at a time with each T's model starting from
# the previous T's (warm), and beside it each listed T trained afresh
# (scratch). One piece is one cell, width and start, written to
# METRICS_DIR/memory/protocol/h<WIDTH>-<START>/<CELL>/among-bs.json; a piece
# whose JSON is there already is skipped, so a stopped sweep resumes piece by
# piece (a piece stopped midway starts again).
# Usage: [CELLS="lstm gru elstm elstm2 solstm"] [WIDTHS="1 8"] [STARTS="warm scratch"]
#        [SEEDS=5] [LENGTHS=2,10,20,40,60,80,100,120] [MAX_UPDATES=4000] [PATIENCE=2000]
#        [GRID=metrics/memory/grid/among-bs-grid.json]
#        bash scripts/among_bs_sweep.sh [METRICS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."  # python -m runs this checkout's package
metrics=${1:-metrics}
cells=(${CELLS:-lstm gru elstm elstm2 solstm})
widths=(${WIDTHS:-1 8})
starts=(${STARTS:-warm scratch})
seeds=${SEEDS:-5}
lengths=${LENGTHS:-2,10,20,40,60,80,100,120}
max_updates=${MAX_UPDATES:-4000}
patience=${PATIENCE:-2000}
grid=${GRID:-$metrics/memory/grid/among-bs-grid.json}
[ -f "$grid" ] || { echo "no settings grid $grid: run spacy-elstm memory among-bs-grid first" >&2; exit 2; }
for cell in "${cells[@]}"; do  # every value checked before anything trains
  [[ $cell =~ ^(lstm|gru|elstm|elstm2|solstm)$ ]] \
    || { echo "CELLS: unknown cell '$cell'; choose lstm, gru, elstm, elstm2 or solstm" >&2; exit 2; }
done
for width in "${widths[@]}"; do
  [[ $width =~ ^[1-9][0-9]*$ ]] || { echo "WIDTHS: '$width' is not a whole number >= 1" >&2; exit 2; }
done
for start in "${starts[@]}"; do
  [[ $start =~ ^(warm|scratch)$ ]] || { echo "STARTS: '$start' is neither warm nor scratch" >&2; exit 2; }
done
# the chosen optimizer, learning rate and stop loss
read -r optimizer learn_rate stop_loss < <(python -c '
import json, sys
data = json.load(open(sys.argv[1]))
chosen, settings = data["chosen"], data["settings"]
print(chosen["optimizer"], chosen["learn_rate"], settings["stop_loss"] or settings["solved_loss"])
' "$grid")
for width in "${widths[@]}"; do
  for start in "${starts[@]}"; do
    for cell in "${cells[@]}"; do
      out=$metrics/memory/protocol/h$width-$start/$cell
      if [ -f "$out/among-bs.json" ]; then echo "done already: $out"; continue; fi
      how=(--step 0)
      [ "$start" = warm ] && how=(--warm-start --step 1)
      echo "$(date -u +%FT%TZ) start $out"
      python -m spacy_elstm memory among-bs --cells "$cell" --hidden "$width" --lengths "$lengths" \
        --seeds "$seeds" --optimizer "$optimizer" --learn-rate "$learn_rate" \
        --stop-loss "$stop_loss" --max-updates "$max_updates" --patience "$patience" \
        "${how[@]}" --loss-every 10 --no-progress --output "$out"
      rm -rf "$out/models" "$out/runs.jsonl" "$out"/*.png  # the JSON keeps the runs
      echo "$(date -u +%FT%TZ) end $out"
    done
  done
done
