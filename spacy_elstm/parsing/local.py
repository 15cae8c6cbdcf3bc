"""The local backend of `spacy-elstm parse`: the corpus parsed on this machine
into output shards.

Inputs (plain text, one doc a paragraph, a line or a file; JSONL with a `text`
field; CoNLL-U, whose gold words and sentence starts are kept; `records.py`
reads them as a stream; a text made a Doc in the input mode of
`text/input_modes.py`)
are cut into chunks of `shard_size` docs (`plan.py`); each chunk becomes one
output shard named from its input file (its path below the input root) and
chunk index, written whole (`shards.py`). The run's plan is recorded in
OUTPUT_DIR's manifest (`manifest.py`): a rerun of the same plan skips the
shards that exist, so a killed run restarted redoes only what is missing;
another plan stops, or with `force` starts over. Bad input (an undecodable
line, invalid JSON, a record without `text`, a text over `max_length`
characters that cannot be cut into pieces (a word longer than that), an
invalid CoNLL-U sentence) names the file and line; it is skipped
and listed in `errors.jsonl`, or stops the run once the shards before it are
written.

`parse_corpus` runs `nlp.pipe` in this process, or with `n_process` > 1 workers
forked with the pipeline, each writing its chunks' shards (`run.py`'s
`parse_task`, as the Ray backend's actors do; `nlp.pipe`'s own processes where
fork is not available). `ray_backend.py` is the other backend.
"""
import multiprocessing
import os
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

from spacy.tokens import Doc

from .plan import Chunk, Task, begin_run, check_options, plan_chunks
from .processes import exit_with_parent
from .records import CorpusInputError
from .run import (InputFailure, ProgressBar, Summary, annotated, parse_task, peak_rss_bytes,
                  pipe_inputs, run_tasks)
from .shards import write_errors, write_shard


def parse_corpus(nlp, source: Union[str, Path], output_dir: Union[str, Path], *,
                 out_format: str = "spacy", in_format: Optional[str] = None,
                 shard_size: int = 1000, batch_size: int = 64, n_process: int = 1,
                 max_length: int = 0, text_unit: str = "paragraph", input_mode: str = "raw",
                 on_error: str = "skip", force: bool = False,
                 progress: bool = True) -> Summary:
    """Parse every input file into shards in `output_dir` on this machine (see
    the module's docstring; the Ray backend is ray_backend.parse_with_ray, with
    the same options). `nlp` is a loaded pipeline or its name or folder.
    `text_unit` (paragraph, line, file) cuts text files into docs; `input_mode`
    (raw, sentences, pretokenized) makes a text or JSONL doc's Doc
    (text/input_modes.py).
    Raises InputFailure on bad input when on_error='fail', after the shards
    before it are written whole; PlanChangedError or OutputDirError before any
    work."""
    check_options(out_format=out_format, in_format=in_format, on_error=on_error,
                  shard_size=shard_size, text_unit=text_unit, input_mode=input_mode)
    options = dict(out_format=out_format, in_format=in_format, shard_size=shard_size,
                   batch_size=batch_size, n_process=n_process, max_length=max_length,
                   text_unit=text_unit, input_mode=input_mode, on_error=on_error, force=force,
                   progress=progress)
    if isinstance(nlp, (str, Path)):
        from .pipelines import load_pipeline

        nlp = load_pipeline(nlp)
    begin_run(nlp, source, output_dir, in_format=in_format, out_format=out_format,
              shard_size=shard_size, max_length=max_length, text_unit=text_unit,
              input_mode=input_mode, force=force)
    if n_process > 1 and "fork" in multiprocessing.get_all_start_methods():
        return _parse_in_forked_workers(nlp, source, output_dir, **options)
    summary = Summary()
    errors: List[Dict[str, Any]] = []
    chunks = plan_chunks(source, output_dir, nlp.vocab, in_format=in_format,
                         out_format=out_format, shard_size=shard_size, max_length=max_length,
                         on_error=on_error, force=force, summary=summary, errors=errors,
                         text_unit=text_unit, input_mode=input_mode)
    pending: List[Optional[Chunk]] = []
    failure: List[CorpusInputError] = []

    def todo() -> Iterator[Tuple[Doc, Tuple[int, int]]]:
        try:
            for chunk in chunks:
                pending.append(chunk)
                docs = pipe_inputs(nlp, chunk.records, input_mode, batch_size)
                for i, doc in enumerate(docs):
                    yield doc, (len(pending) - 1, i)
        except CorpusInputError as err:  # the chunks before it are still parsed and written
            failure.append(err)

    bar = ProgressBar(progress)
    parsed: List[Doc] = []
    try:
        for doc, (number, i) in nlp.pipe(todo(), as_tuples=True, batch_size=batch_size,
                                         n_process=n_process):
            chunk = pending[number]
            parsed.append(annotated(doc, chunk.records[i]))
            summary.docs += 1
            summary.words += len(doc)
            if i == len(chunk.records) - 1:
                write_shard(chunk.shard, parsed, out_format)
                summary.written += 1
                pending[number] = None  # free the records
                parsed = []
            bar.update(summary, 1)
    finally:
        bar.close(summary)
        summary.errors_file = write_errors(output_dir, errors)
    summary.peak_rss = [peak_rss_bytes(children=n_process > 1)]
    if failure:
        raise InputFailure(failure[0], summary)
    return summary


_WORKER_STATE: Dict[str, Any] = {}  # a forked worker's pipeline and options, inherited


def _parse_in_worker(task: "Task") -> Dict[str, Any]:
    return parse_task(_WORKER_STATE["nlp"], task, **_WORKER_STATE["options"])


def _parse_in_forked_workers(nlp, source: Union[str, Path], output_dir: Union[str, Path], *,
                             n_process: int, out_format: str, in_format: Optional[str],
                             shard_size: int, batch_size: int, max_length: int,
                             text_unit: str, input_mode: str, on_error: str, force: bool,
                             progress: bool) -> Summary:
    """The local backend with `n_process` workers forked from this process
    with its pipeline: each takes a chunk's task, parses it and writes its
    shard (`parse_task`, as a Ray actor does), and sends back only a summary,
    so no doc passes between processes (nlp.pipe's own workers send every doc
    back to be written here, which leaves this process the bottleneck). A
    worker whose parent is killed exits at once, quietly."""
    def run(tasks: List[Task], summary: Summary, count: Callable[[Dict[str, Any]], None]) -> None:
        _WORKER_STATE.update(nlp=nlp, options=dict(out_format=out_format, batch_size=batch_size,
                                                   max_length=max_length,
                                                   input_mode=input_mode))
        try:
            with multiprocessing.get_context("fork").Pool(
                    min(n_process, len(tasks)), initializer=exit_with_parent,
                    initargs=(os.getpid(),)) as pool:
                for row in pool.imap_unordered(_parse_in_worker, tasks):
                    count(row)
        finally:
            _WORKER_STATE.clear()

    return run_tasks(run, source, output_dir, nlp.vocab, out_format=out_format,
                     in_format=in_format, shard_size=shard_size, max_length=max_length,
                     text_unit=text_unit, on_error=on_error, force=force, progress=progress,
                     input_mode=input_mode)
