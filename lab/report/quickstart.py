"""The README's quick-start time: what scripts/time_quickstart.sh measured on a
fresh clone (metrics/quickstart.json), and nothing it did not measure."""
from pathlib import Path

from .common import read_json

FILE = "quickstart.json"
SAMPLE = "spacy project run sample"


def _minutes(seconds: float) -> str:
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes} min {seconds:02d} s"


def quickstart(metrics: Path) -> str:
    """One paragraph: the wall time in all and by part, the user CPU time, and
    the machine it ran on, from `metrics`/quickstart.json."""
    record = read_json(metrics / FILE)
    if record is None:
        return (f"Not timed on this version yet: `bash scripts/time_quickstart.sh` times it "
                f"on a fresh clone into `metrics/{FILE}`, and `python -m lab.report` writes "
                f"what it measured here.")
    parts = record["parts"]
    sample = sum(p["wall_s"] for p in parts if SAMPLE in p["command"])
    setup = sum(p["wall_s"] for p in parts if SAMPLE not in p["command"])
    machine = record["machine"]
    load = machine["load_before"][0]
    threads = machine.get("omp_num_threads")
    return (f"Timed on a fresh clone by `scripts/time_quickstart.sh` (`metrics/{FILE}`, commit "
            f"{record['commit'][:7]}, {record['started'][:10]}): {_minutes(record['wall_s'])} "
            f"of wall time in all, {_minutes(setup)} for the venv and the install and "
            f"{_minutes(sample)} for the `sample` workflow (the kernels' first compile "
            f"included), {_minutes(record['user_s'])} of user CPU time; on "
            f"{machine['cpu_cores']} CPU cores ({machine['cpu']}), load average {load:.1f} "
            f"at the start{f', OMP_NUM_THREADS={threads}' if threads else ''}, Python "
            f"{machine['python']}, torch {machine['torch']}.")
