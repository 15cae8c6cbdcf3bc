"""Corpus parsing benchmark: words/second of `spacy-elstm parse` on one input
with one process, `--n-process N` and the Ray backend with N workers, in one
run. Each setting runs in a fresh process into a fresh output folder, so none
inherits another's memory, threads or cluster; each reports its parse time
(input read, parsed and written, workers started), the time to load the
pipeline or start the cluster apart from it, and the peak RSS of each worker."""
import multiprocessing
import os
import queue as queue_module
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from ..parsing.run import peak_rss_bytes


def text_of_conllu(path: Path, output: Path) -> Path:
    """A plain-text input, one sentence a line, from a CoNLL-U file's words and
    spaces (so the benchmark's pipeline tokenizes raw text)."""
    from ..treebanks.conllu_reader import read_conllu

    lines = [doc.text.strip() for doc in read_conllu(path)]
    output.write_text("\n".join(line for line in lines if line) + "\n", encoding="utf8")
    return output


def settings(n_process: int) -> List[Dict[str, Any]]:
    return [{"name": "1 process", "backend": "local", "n_process": 1},
            {"name": f"--n-process {n_process}", "backend": "local", "n_process": n_process},
            {"name": f"Ray, {n_process} workers", "backend": "ray", "n_process": n_process}]


def _one(model: str, source: str, output: str, backend: str, n_process: int,
         options: Dict[str, Any], start_method: str) -> Dict[str, Any]:
    """One setting, in this (fresh) process."""
    import torch

    from ..parsing.local import parse_corpus
    from ..parsing.ray_backend import parse_with_ray

    # a spawned process would hand its own start method to nlp.pipe's workers;
    # they start as they would from the command line (fork on Linux)
    multiprocessing.set_start_method(start_method, force=True)
    torch.set_num_threads(1)
    row: Dict[str, Any] = {"backend": backend, "n_process": n_process}
    if backend == "ray":
        import ray

        begun = time.perf_counter()
        ray.init(address="local", num_cpus=n_process, include_dashboard=False,
                 object_store_memory=100 * 2**20, logging_level="WARNING")
        row["cluster_start_seconds"] = time.perf_counter() - begun
        try:
            summary = parse_with_ray(model, source, output, n_process=n_process,
                                     progress=False, **options)
        finally:
            begun = time.perf_counter()
            ray.shutdown()
            row["cluster_stop_seconds"] = time.perf_counter() - begun
    else:
        import spacy

        begun = time.perf_counter()
        nlp = spacy.load(model)
        row["load_seconds"] = time.perf_counter() - begun
        summary = parse_corpus(nlp, source, output, n_process=n_process, progress=False,
                               **options)
    row.update(docs=summary.docs, words=summary.words, seconds=summary.seconds,
               words_per_second=summary.words / summary.seconds, failures=summary.failures,
               shards=summary.written, worker_peak_rss_bytes=summary.peak_rss,
               driver_peak_rss_bytes=peak_rss_bytes())
    return row


def _busy(n_steps: int) -> float:
    """Seconds of a fixed CPU-bound loop (no memory traffic, no I/O)."""
    begun = time.perf_counter()
    total = 0
    for i in range(n_steps):
        total += i * i
    return time.perf_counter() - begun


def parallel_ceiling(n_process: int, n_steps: int = 20_000_000) -> Dict[str, float]:
    """What the machine gives N processes at once: one process runs a fixed
    CPU-bound loop, then N run it together; the speedup is N x one's time over
    the N processes' wall time (N on N free cores). A parallel run's words/s
    ratio cannot be expected above it."""
    one = _busy(n_steps)
    with multiprocessing.get_context("fork").Pool(n_process) as pool:
        begun = time.perf_counter()
        pool.map(_busy, [n_steps] * n_process)
        together = time.perf_counter() - begun
    return {"one_seconds": one, "together_seconds": together,
            "speedup": n_process * one / together}


def _child(kwargs: Dict[str, Any], results) -> None:
    try:
        results.put(("ok", _one(**kwargs)))
    except BaseException as err:  # said in the parent, not lost with the process
        results.put(("error", f"{type(err).__name__}: {err}"))


def _in_fresh_process(**kwargs: Any) -> Dict[str, Any]:
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    process = context.Process(target=_child, args=(kwargs, results))
    process.start()
    while True:
        try:
            status, value = results.get(timeout=1.0)
            break
        except queue_module.Empty:
            if not process.is_alive():
                raise RuntimeError(f"the benchmark process died (exit code {process.exitcode})")
    process.join()
    if status == "error":
        raise RuntimeError(value)
    return value


def run_parse_benchmark(model: str, source: Path, *, n_process: int = 2, shard_size: int = 1000,
                        batch_size: int = 64, out_format: str = "spacy",
                        progress: Optional[Callable[[str], None]] = None) -> Dict[str, Any]:
    """{"rows": one per setting, "ratios": the targets' ratios, "ray_overhead"}.
    Every setting parses `source` into its own temporary folder; each worker
    runs one torch thread (OMP_NUM_THREADS=1, inherited by every process)."""
    os.environ["OMP_NUM_THREADS"] = "1"
    options = {"shard_size": shard_size, "batch_size": batch_size, "out_format": out_format,
               "text_unit": "line"}  # one sentence a line, a doc each
    rows = []
    for setting in settings(n_process):
        if progress:
            progress(f"parse benchmark: {setting['name']} ...")
        with tempfile.TemporaryDirectory(prefix="bench-parse-") as folder:
            row = _in_fresh_process(model=str(model), source=str(source),
                                    output=str(Path(folder) / "out"), backend=setting["backend"],
                                    n_process=setting["n_process"], options=options,
                                    start_method=multiprocessing.get_start_method())
        rows.append({"name": setting["name"], **row})
        if progress:
            progress(f"  {row['words']:,} words in {row['seconds']:.1f} s: "
                     f"{row['words_per_second']:,.0f} words/s")
    if progress:
        progress(f"parse benchmark: the machine's ceiling, {n_process} busy loops at once ...")
    ceiling = parallel_ceiling(n_process)
    if progress:
        progress(f"  {ceiling['speedup']:.2f}x one loop's speed")
    one, local, ray = rows
    return {
        "rows": rows,
        "machine_parallel_speedup": ceiling,
        "ratios": {"n_process_vs_one": local["words_per_second"] / one["words_per_second"],
                   "ray_vs_n_process": ray["words_per_second"] / local["words_per_second"]},
        "ray_overhead": {
            "cluster_start_seconds": ray["cluster_start_seconds"],
            "parse_seconds": ray["seconds"], "n_process_parse_seconds": local["seconds"],
            "extra_parse_seconds": ray["seconds"] - local["seconds"],
            "extra_seconds_with_start": (ray["seconds"] + ray["cluster_start_seconds"]
                                         - local["seconds"] - local["load_seconds"])},
    }
