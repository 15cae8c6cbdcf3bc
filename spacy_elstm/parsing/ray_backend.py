"""The Ray backend of `spacy-elstm parse` (`--backend ray`): the local backend's
plan (chunks, shard names, the resume rule, bad input; plan.py) run
by Ray Data. Each chunk still to parse is one row, a Task (a path, a byte range,
its first line); a fixed pool of actors, each loading the pipeline once, reads
its row's chunk, parses it, writes the shard as the local backend does and
sends back a small summary. No text and no Doc crosses between processes, so
the same rows run on one machine or on many that share the files.

Ray is imported here only, when the backend runs (it is the optional extra
`spacy-elstm[cluster]`)."""
import inspect
import logging
import os
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Union

from spacy.vocab import Vocab

from .plan import Task, begin_run, check_options
from .run import BackendError, parse_task, run_tasks
from .summary import Summary
from .pipelines import check_pipeline, load_pipeline

MISSING = '--backend ray needs Ray Data, not installed: pip install "spacy-elstm[cluster]"'


def import_ray():
    """The `ray` module with Ray Data, or a BackendError naming the extra."""
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:
        raise BackendError(MISSING) from None
    return ray


class ShardParser:
    """A Ray Data actor: the pipeline loaded once, then one Task per row
    parsed into its shard; a row of the task's summary back."""

    def __init__(self, model: str, out_format: str, batch_size: int, max_length: int,
                 input_mode: str):
        self.nlp = load_pipeline(model)
        self.options = dict(out_format=out_format, batch_size=batch_size, max_length=max_length,
                            input_mode=input_mode)

    def __call__(self, batch: Dict[str, Any]) -> Dict[str, List[Any]]:
        columns = list(batch)
        results = []
        for values in zip(*(batch[c] for c in columns)):
            row = {c: v.item() if hasattr(v, "item") else v for c, v in zip(columns, values)}
            results.append(parse_task(self.nlp, Task(**row), **self.options))
        return {key: [r[key] for r in results] for key in results[0]}


def start_ray(address: Optional[str], n_process: int) -> bool:
    """Connect to the cluster at `address`, or start a local one with
    `n_process` CPUs; nothing if this process is connected already. True if
    this call connected (the caller shuts it down)."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    settings: Dict[str, Any] = {"logging_level": "WARNING"}
    if address:
        settings["address"] = address
    else:
        # a local cluster's C++ core workers log at "error" level on stderr when
        # they are shut down at the end of every run; a failure still reaches
        # us as a Python exception, so only fatal lines are printed
        os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")
        settings.update(address="local", num_cpus=n_process, include_dashboard=False)
    try:
        ray.init(**settings)
    except (ConnectionError, RuntimeError, ValueError) as err:
        where = f"the Ray cluster at --address {address}" if address else "a local Ray cluster"
        raise BackendError(f"cannot start or reach {where}: {_first_line(err)}") from None
    return True


def parse_with_ray(model: Union[str, Path], source: Union[str, Path],
                   output_dir: Union[str, Path], *, address: Optional[str] = None,
                   n_process: int = 1, out_format: str = "spacy", in_format: Optional[str] = None,
                   shard_size: int = 1000, batch_size: int = 64, max_length: int = 0,
                   text_unit: str = "paragraph", input_mode: str = "raw",
                   on_error: str = "skip", force: bool = False,
                   progress: bool = True) -> Summary:
    """As local.parse_corpus, on `n_process` Ray actors. Every shard
    that exists is skipped before a task is made, so a finished corpus starts
    no cluster. `summary.startup` is the time to start or join the cluster
    (not in `summary.seconds`); `summary.peak_rss` has each actor's peak."""
    check_options(out_format=out_format, in_format=in_format, on_error=on_error,
                  shard_size=shard_size, backend="ray", text_unit=text_unit,
                  input_mode=input_mode)
    if not isinstance(model, (str, Path)):
        raise BackendError("--backend ray loads the pipeline in each worker: give its name "
                           "or folder, not a loaded pipeline.")
    if Path(model).exists():  # workers may start in another folder
        model = Path(model).resolve()
    ray = import_ray()
    check_pipeline(model)  # a damaged pipeline found here, not in every worker
    begin_run(model, source, output_dir, in_format=in_format, out_format=out_format,
              shard_size=shard_size, max_length=max_length, text_unit=text_unit,
              input_mode=input_mode, force=force)

    def run(tasks: List[Task], summary: Summary, count: Callable[[Dict[str, Any]], None]) -> None:
        begun = time.perf_counter()
        started = start_ray(address, n_process)
        summary.startup = time.perf_counter() - begun
        try:
            _run(ray, tasks, str(model), n_process, count, out_format=out_format,
                 batch_size=batch_size, max_length=max_length, input_mode=input_mode)
        finally:
            if started:
                ray.shutdown()

    return run_tasks(run, source, output_dir, Vocab(), out_format=out_format,
                     in_format=in_format, shard_size=shard_size, max_length=max_length,
                     text_unit=text_unit, on_error=on_error, force=force, progress=progress,
                     input_mode=input_mode)


def _run(ray, tasks: List[Task], model: str, n_process: int,
         count: Callable[[Dict[str, Any]], None], **options: Any) -> None:
    from ray.data import ActorPoolStrategy, DataContext

    DataContext.get_current().enable_progress_bars = False  # ours counts docs
    logging.getLogger("ray.data").setLevel(logging.WARNING)  # no execution plans on stderr
    rows = [task.to_dict() for task in tasks]
    blocks = ("override_num_blocks" if "override_num_blocks"
              in inspect.signature(ray.data.from_items).parameters else "parallelism")
    dataset = ray.data.from_items(rows, **{blocks: len(rows)}).map_batches(
        ShardParser, fn_constructor_kwargs=dict(model=model, **options), batch_size=1,
        compute=ActorPoolStrategy(size=min(n_process, len(rows))), num_cpus=1, batch_format="numpy")
    try:
        for row in dataset.iter_rows():
            count(row)
    except Exception as err:  # a worker's error, wrapped by Ray: its own line
        raise BackendError(f"a Ray worker failed: {_first_line(err)}") from err


def _first_line(err: BaseException) -> str:
    """The cause's own message: Ray wraps a worker's error in lines of context."""
    while err.__cause__ is not None:
        err = err.__cause__
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return lines[-1] if lines else type(err).__name__
