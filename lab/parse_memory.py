"""Peak memory of `spacy-elstm parse` against the input's size: the same
command, the same --shard-size and --batch-size, on a small and a large plain
text file, each run in a fresh process whose peak RSS is read when it ends.
Streaming input (spacy_elstm/parsing/records.py) keeps the peak at a shard's
docs and a batch, whatever the file's size; the target is the large input's
peak within 2x the small one's.

The pipeline is spaCy's blank English (its rule tokenizer only), so the run
measures the reading, planning, hashing and writing of `parse`, not a model.
The inputs are generated in a temporary folder (deleted after): lines of
`--words` words of `--word-length` letters, `--sizes` megabytes each, read one
doc a line (`--text-unit line`).

    python -m lab.parse_memory [--sizes 10,1000] [--shard-size 1000] [--output metrics/parse-memory.json]
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict

from spacy_elstm.files import write_atomically

MB = 1_000_000


def write_input(path: Path, megabytes: int, words: int, word_length: int) -> int:
    """A text file of about `megabytes` MB, one doc a line; its number of lines."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    line = " ".join((letters[i % 26] * word_length) for i in range(words)) + ".\n"
    block = (line * 1000).encode("utf8")
    written = lines = 0
    with path.open("wb") as file:
        while written < megabytes * MB:
            file.write(block)
            written += len(block)
            lines += 1000
    return lines


def measure(model: Path, source: Path, output: Path, shard_size: int,
            batch_size: int) -> Dict[str, Any]:
    """One `spacy-elstm parse` run in a fresh process: its peak RSS and time."""
    command = [sys.executable, "-m", "spacy_elstm", "parse", str(model), str(source),
               str(output), "--shard-size", str(shard_size), "--batch-size", str(batch_size),
               "--text-unit", "line", "--no-progress"]
    begun = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)  # this child's own peak
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if process.returncode != 0:
        raise SystemExit(f"parse failed: {stderr.decode()[-2000:]}")
    return {"input_bytes": source.stat().st_size, "peak_rss_bytes": usage.ru_maxrss * 1024,
            "seconds": time.perf_counter() - begun, "summary": stdout.decode().strip()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,1000", help="Input sizes in MB, by commas, "
                        "smallest first (each run's peak is read after the smaller ones').")
    parser.add_argument("--shard-size", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--words", type=int, default=10, help="Words per line.")
    parser.add_argument("--word-length", type=int, default=99, help="Letters per word.")
    parser.add_argument("--output", type=Path, default=Path("metrics/parse-memory.json"))
    args = parser.parse_args()
    import spacy

    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="parse-memory-") as folder:
        model = Path(folder) / "blank_en"
        spacy.blank("en").to_disk(model)
        for megabytes in sizes:
            source = Path(folder) / f"input-{megabytes}mb.txt"
            lines = write_input(source, megabytes, args.words, args.word_length)
            row = measure(model, source, Path(folder) / f"out-{megabytes}mb", args.shard_size,
                          args.batch_size)
            row.update(megabytes=megabytes, lines=lines)
            rows.append(row)
            print(f"{megabytes} MB: peak RSS {row['peak_rss_bytes'] / 2**20:.0f} MiB in "
                  f"{row['seconds']:.0f} s ({row['summary']})", flush=True)
            source.unlink()
            subprocess.run(["rm", "-rf", str(Path(folder) / f"out-{megabytes}mb")], check=True)
    ratio = rows[-1]["peak_rss_bytes"] / rows[0]["peak_rss_bytes"]
    print(f"peak RSS {sizes[-1]} MB / {sizes[0]} MB: {ratio:.2f} (target <= 2)")
    result = {"benchmark": "parse-memory", "command": "python -m lab.parse_memory " +
              " ".join(sys.argv[1:]), "pipeline": "spacy.blank('en')",
              "shard_size": args.shard_size, "batch_size": args.batch_size,
              "words_per_line": args.words, "word_length": args.word_length, "rows": rows,
              "peak_ratio_largest_to_smallest": ratio, "target_ratio": 2.0,
              "environment": {"python": platform.python_version(), "cpus": os.cpu_count(),
                              "machine": platform.machine()}}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(args.output, (json.dumps(result, indent=1) + "\n").encode("utf8"))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
