#!/usr/bin/env bash
# Time the README's quick start as a new user meets it: a fresh clone of this
# repository in a temporary folder, a new virtual environment, the README's own
# command line (the install, then `spacy project run sample`), with an empty pip
# cache and an empty kernel cache (so the first compile is counted). Writes the
# wall time, the user and system CPU time of each part and of the whole, and the
# machine's facts (cores, CPU, memory, load before and after) to a metrics file,
# from which `python -m lab.report` writes the README's quick-start line.
#
#   bash scripts/time_quickstart.sh [--output metrics/quickstart.json] [--keep]
#   bash scripts/time_quickstart.sh --print-command
#
# Run it on a quiet machine: the load averages are recorded, not corrected for.
# --command CMD times CMD instead of the README's line (to try the script out);
# --repo PATH clones another checkout; the clone is of its committed HEAD.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUTPUT="$ROOT/metrics/quickstart.json"
REPO="$ROOT"
KEEP=0
COMMAND=""
PYTHON="${PYTHON:-python3}"

readme_command() {
    # The README's quick-start line: the bash line that ends in the sample workflow.
    grep -E '^pip install .*&& python -m spacy project run sample$' "$1" | head -n 1
}

while [ $# -gt 0 ]; do
    case "$1" in
        --output) OUTPUT="$2"; shift 2 ;;
        --repo) REPO="$2"; shift 2 ;;
        --command) COMMAND="$2"; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --print-command) readme_command "$ROOT/README.md"; exit 0 ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "time_quickstart.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
case "$OUTPUT" in /*) ;; *) OUTPUT="$PWD/$OUTPUT" ;; esac

WORK="$(mktemp -d "${TMPDIR:-/tmp}/quickstart.XXXXXX")"
cleanup() { if [ "$KEEP" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT
LOG="$WORK/quickstart.log"
TIMES="$WORK/times.tsv"
: > "$TIMES"

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*load averages*: //; s/,//g'; }
LOAD_BEFORE="$(load)"
STARTED="$(date -u +%Y-%m-%dT%H:%M:%SZ)"

git clone --quiet "$REPO" "$WORK/clone"
cd "$WORK/clone"
COMMIT="$(git rev-parse HEAD)"
[ -n "$COMMAND" ] || COMMAND="$(readme_command README.md)"
if [ -z "$COMMAND" ]; then
    echo "time_quickstart.sh: no quick-start line in README.md" >&2
    exit 1
fi

# A new user's caches are empty: pip's, and the compiled kernels'.
export PIP_CACHE_DIR="$WORK/pip-cache" TORCH_EXTENSIONS_DIR="$WORK/torch-extensions"
unset PIP_NO_CACHE_DIR

# Each part of the line (split at " && ") timed on its own, in order, the venv
# included; bash's `time` counts the CPU time of every process a part starts.
TIMEFORMAT='%R %U %S'
run_part() {
    local name="$1" part="$2" measured
    echo "== $part" >> "$LOG"
    if ! measured="$( { time bash -c "$part" >> "$LOG" 2>&1 ; } 2>&1 )"; then
        echo "time_quickstart.sh: '$part' failed; the last lines of its output:" >&2
        tail -n 20 "$LOG" >&2
        exit 1
    fi
    printf '%s\t%s\t%s\n' "$name" "$part" "$measured" >> "$TIMES"
}
run_part venv "$PYTHON -m venv $WORK/venv"
sed -i "s#$WORK#<temp>#g" "$TIMES"  # the record names no folder of this machine
# shellcheck disable=SC1091
source "$WORK/venv/bin/activate"
IFS=$'\n' read -r -d '' -a PARTS < <(printf '%s' "$COMMAND" | sed 's/ && /\n/g'; printf '\0') || true
for part in "${PARTS[@]}"; do
    run_part readme "$part"
done
TORCH_VERSION="$(python -c 'import torch; print(torch.__version__)' 2>/dev/null || echo none)"
deactivate
LOAD_AFTER="$(load)"

mkdir -p "$(dirname "$OUTPUT")"
QS_COMMAND="$COMMAND" QS_COMMIT="$COMMIT" QS_STARTED="$STARTED" QS_LOAD_BEFORE="$LOAD_BEFORE" \
QS_LOAD_AFTER="$LOAD_AFTER" QS_TORCH="$TORCH_VERSION" "$PYTHON" - "$TIMES" "$OUTPUT" <<'EOF'
import json, os, platform, sys
times, output = sys.argv[1:3]
env = os.environ
parts = []
for line in open(times, encoding="utf8"):
    name, command, measured = line.rstrip("\n").split("\t")
    wall, user, system = (float(x) for x in measured.split())
    parts.append({"part": name, "command": command, "wall_s": wall, "user_s": user,
                  "system_s": system})


def first(path, prefix, read):
    if not os.path.exists(path):
        return None
    return next((read(line) for line in open(path) if line.startswith(prefix)), None)


record = {
    "what": "the README's quick start on a fresh clone: a venv, then the README's line",
    "command": env["QS_COMMAND"],
    "commit": env["QS_COMMIT"],
    "started": env["QS_STARTED"],
    "wall_s": round(sum(p["wall_s"] for p in parts), 2),
    "user_s": round(sum(p["user_s"] for p in parts), 2),
    "system_s": round(sum(p["system_s"] for p in parts), 2),
    "parts": parts,
    "machine": {
        "cpu_cores": os.cpu_count(),
        "cpu": first("/proc/cpuinfo", "model name", lambda l: l.split(":", 1)[1].strip())
               or platform.processor(),
        "memory_mib": first("/proc/meminfo", "MemTotal", lambda l: int(l.split()[1]) // 1024),
        "load_before": [float(x) for x in env["QS_LOAD_BEFORE"].split()],
        "load_after": [float(x) for x in env["QS_LOAD_AFTER"].split()],
        "os": platform.platform(),
        "python": platform.python_version(),
        "torch": env["QS_TORCH"],
        "omp_num_threads": env.get("OMP_NUM_THREADS"),
    },
}
tmp = output + ".tmp"
with open(tmp, "w", encoding="utf8") as f:
    json.dump(record, f, indent=2)
    f.write("\n")
os.replace(tmp, output)
print(f"wrote {output}: {record['wall_s']:.0f} s wall, {record['user_s']:.0f} s user CPU")
EOF
