"""Running a plan (`spacy-elstm parse`'s route: plan → read → run → write),
what both backends share: a task read again from its byte range, parsed and
written by a worker that has the pipeline (`parse_task`); the tasks of a plan
handed to a backend's workers, with the progress bar, the errors file and the
run's `Summary` kept around them (`run_tasks`); and the errors a run raises.
"""
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Union

from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..text.input_modes import make_docs
from .plan import Task, chunk_task, plan_chunks
from .records import CorpusInputError, Record, read_records
from .shards import write_errors, write_shard
from .summary import ProgressBar, Summary


class BackendError(RuntimeError):
    """The backend cannot run: its extra is not installed, the cluster cannot
    be reached, a worker failed, or an input file changed during the run."""


class InputFailure(CorpusInputError):
    """on_error='fail' stopped the run at bad input: the error, and the
    summary of what was written before it."""

    def __init__(self, error: CorpusInputError, summary: Summary):
        super().__init__(str(error), error.line)
        self.summary = summary


def pipe_inputs(nlp, records: Iterable[Record], input_mode: str,
                batch_size: int) -> Iterator[Doc]:
    """The Doc to parse for each record, in order: a CoNLL-U record's gold Doc,
    or its text made a Doc in the input mode, the texts tokenized `batch_size`
    at a time (`input_modes.make_docs`)."""
    records = list(records)
    made = make_docs(nlp, (r.text for r in records if r.doc is None), input_mode, batch_size)
    for record in records:
        yield record.doc if record.doc is not None else next(made)


def annotated(doc: Doc, record: Record) -> Doc:
    """The parsed doc with its record's extra input fields in `user_data`, and
    "piece", its number among the pieces of a text cut by --max-length."""
    doc.user_data.update(record.extra)
    if record.piece:
        doc.user_data["piece"] = record.piece
    return doc


def parse_task(nlp, task: Task, *, out_format: str, batch_size: int, max_length: int,
               input_mode: str = "raw") -> Dict[str, Any]:
    """Read the task's chunk again, parse it and write its shard; a small
    summary back (docs, words, seconds, this process's id and peak RSS). Bad
    input inside the range is skipped: the plan has listed it already."""
    start = time.perf_counter()
    records = [r for r in read_records(Path(task.path), task.fmt, nlp.vocab, max_length,
                                       task.span, task.text_unit, input_mode)
               if isinstance(r, Record)]
    if len(records) != task.docs or records[-1].end != task.end:
        raise BackendError(f"{task.path}, line {task.line}: {len(records)} docs where the plan "
                           f"found {task.docs} in bytes {task.start}-{task.end} (did the file "
                           "change during the run?).")
    docs = [annotated(doc, record) for doc, record in nlp.pipe(
        zip(pipe_inputs(nlp, records, input_mode, batch_size), records), as_tuples=True,
        batch_size=batch_size)]
    write_shard(Path(task.shard), docs, out_format)
    return {"shard": Path(task.shard).name, "docs": len(docs), "words": sum(map(len, docs)),
            "seconds": time.perf_counter() - start, "pid": os.getpid(),
            "peak_rss": peak_rss_bytes()}


def peak_rss_bytes(children: bool = False) -> int:
    """This process's peak resident memory (or its largest waited-for child's)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
    return usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)


TaskRunner = Callable[[List["Task"], Summary, Callable[[Dict[str, Any]], None]], None]


def run_tasks(run: TaskRunner, source: Union[str, Path], output_dir: Union[str, Path],
              vocab: Vocab, *, out_format: str, in_format: Optional[str], shard_size: int,
              max_length: int, text_unit: str, on_error: str, force: bool,
              progress: bool, input_mode: str = "raw") -> Summary:
    """What every backend of workers that write their own shards does around
    them (after `begin_run`): plan the chunks, make a task of each chunk to
    parse, and hand the tasks to `run(tasks, summary, count)`, which has them
    parsed (each by `parse_task`) and calls `count(row)` with each written
    shard's summary. The progress bar, the errors file and the summary are kept
    here; an input error found while making the tasks is raised (InputFailure)
    once the shards before it are written. `summary.seconds` leaves out
    `summary.startup` (a cluster's start)."""
    summary, errors = Summary(), []
    chunks = plan_chunks(source, output_dir, vocab, in_format=in_format,
                         out_format=out_format, shard_size=shard_size, max_length=max_length,
                         on_error=on_error, force=force, summary=summary, errors=errors,
                         text_unit=text_unit, input_mode=input_mode)
    bar = ProgressBar(progress)
    tasks: List[Task] = []
    failure: Optional[CorpusInputError] = None
    peaks: Dict[int, int] = {}

    def count(row: Dict[str, Any]) -> None:
        add_task_summary(summary, peaks, row)
        bar.update(summary, int(row["docs"]))

    try:
        try:
            for chunk in chunks:
                tasks.append(chunk_task(chunk))
        except CorpusInputError as err:  # the shards before it are still written
            failure = err
        if tasks:
            run(tasks, summary, count)
    finally:
        bar.close(summary)
        summary.seconds -= summary.startup
        summary.peak_rss = sorted(peaks.values())
        summary.errors_file = write_errors(output_dir, errors)
    if failure is not None:
        raise InputFailure(failure, summary)
    return summary


def add_task_summary(summary: Summary, peaks: Dict[int, int], row: Dict[str, Any]) -> None:
    """Count one written shard's summary (from `parse_task`) into `summary`,
    and its worker's peak memory into `peaks` ({pid: bytes})."""
    summary.docs += int(row["docs"])
    summary.words += int(row["words"])
    summary.written += 1
    pid = int(row["pid"])
    peaks[pid] = max(peaks.get(pid, 0), int(row["peak_rss"]))


