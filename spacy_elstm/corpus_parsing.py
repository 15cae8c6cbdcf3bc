"""Parse a corpus with a pipeline into output shards: `spacy-elstm parse`.

Inputs (plain text, one doc a line; JSONL with a `text` field; CoNLL-U, whose
gold words and sentence starts are kept; corpus_reader.py reads them as a
stream) are cut into chunks of `shard_size` docs; each chunk becomes one
output shard named from its input file (its path below the input root) and
chunk index, written whole (temporary name, then rename). The run's plan is
recorded in OUTPUT_DIR's manifest (parse_manifest.py): a rerun of the same plan
skips the shards that exist, so a killed run restarted redoes only what is
missing; another plan stops, or with `force` starts over. Bad input (an
undecodable line, invalid JSON, a record without `text`, a line over
`max_length` characters, an invalid CoNLL-U sentence) names the file and line;
it is skipped and listed in `errors.jsonl`, or stops the run once the shards
before it are written.

Both backends share this module: `begin_run` (the output folder, the input
files, the manifest), `plan_chunks` (chunking, shard names, the resume rule,
bad input), `write_shard` and `parse_task` (one chunk read again from its byte
range, parsed and written by a worker that has the pipeline). `parse_corpus`
is the local backend: `nlp.pipe` in this process, or with `n_process` > 1
workers forked with the pipeline, each writing its chunks' shards (`nlp.pipe`'s
own processes where fork is not available); spacy_elstm/ray_parsing.py is Ray's.
"""
import glob
import hashlib
import json
import multiprocessing
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab

from .corpus_reader import CorpusInputError, Record, Span, read_records
from .files import write_atomically
from .multiprocess import exit_with_parent
from .parse_manifest import (ERRORS_FILE, build_manifest, check_output_dir, input_root,
                             is_inside, model_identity, relative_name, start_or_resume)

INPUT_FORMATS = {".txt": "text", ".jsonl": "jsonl", ".conllu": "conllu"}
OUTPUT_SUFFIXES = {"spacy": ".spacy", "conllu": ".conllu", "jsonl": ".jsonl"}
BACKENDS = ("local", "ray")
__all__ = ["CorpusInputError", "Record", "Span", "read_records"]  # read here by other modules


class BackendError(RuntimeError):
    """The backend cannot run: its extra is not installed, the cluster cannot
    be reached, a worker failed, or an input file changed during the run."""


@dataclass
class Summary:
    docs: int = 0
    words: int = 0
    seconds: float = 0.0
    failures: int = 0
    written: int = 0
    skipped: int = 0
    startup: float = 0.0  # starting or joining a cluster, not in `seconds`
    peak_rss: List[int] = field(default_factory=list)  # bytes, one per worker process
    errors_file: str = ""  # where the failures are listed

    def line(self) -> str:
        rate = self.words / self.seconds if self.seconds > 0 else 0.0
        failures = f"{self.failures} failures" + (
            f" (listed in {self.errors_file})" if self.failures and self.errors_file else "")
        return (f"{self.docs} docs, {self.words} words in {self.seconds:.1f} s "
                f"({rate:.0f} words/s); {failures}; "
                f"{self.written} shards written, {self.skipped} skipped"
                + (f"; {self.startup:.1f} s to start or join the cluster" if self.startup else ""))

    @property
    def all_failed(self) -> bool:
        """Bad input and not one doc parsed, now or in an earlier run."""
        return self.failures > 0 and self.written + self.skipped == 0


class InputFailure(CorpusInputError):
    """on_error='fail' stopped the run at bad input: the error, and the
    summary of what was written before it."""

    def __init__(self, error: CorpusInputError, summary: Summary):
        super().__init__(str(error), error.line)
        self.summary = summary


def input_files(source: Union[str, Path],
                output_dir: Optional[Union[str, Path]] = None) -> List[Path]:
    """A file, the files of a folder (recursively) with a known extension, or
    the files a glob matches; sorted, so shard names and order are stable.
    Nothing inside `output_dir` is input (its shards, errors and manifest)."""
    path = Path(source)
    if output_dir is not None and path.exists() and is_inside(path, Path(output_dir)):
        raise CorpusInputError(f"INPUT {source} is inside OUTPUT_DIR {output_dir}: the output "
                               "folder is never input; give another folder for one or the other.")
    if path.is_file():
        return [path]
    if path.is_dir():
        files = [p for p in path.rglob("*") if p.is_file() and p.suffix in INPUT_FORMATS]
    else:
        files = [Path(p) for p in glob.glob(str(source), recursive=True) if Path(p).is_file()]
    if output_dir is not None:
        files = [p for p in files if not is_inside(p, Path(output_dir))]
    if not files:
        raise CorpusInputError(f"{source}: no input files (a file, a folder of .txt, .jsonl or "
                               ".conllu files, or a glob).")
    return sorted(files)


def input_format(path: Path, override: Optional[str] = None) -> str:
    if override:
        if override not in INPUT_FORMATS.values():
            raise CorpusInputError(f"--input-format must be one of text, jsonl, conllu, "
                                   f"got {override!r}.")
        return override
    try:
        return INPUT_FORMATS[path.suffix]
    except KeyError:
        raise CorpusInputError(f"{path}: unknown input format (extension .txt, .jsonl or "
                               ".conllu, or give --input-format).") from None


def shard_name(path: Path, root: Path, index: int, out_format: str) -> str:
    """`<stem>-<8 hex of the path below the input root>-<chunk>.<ext>`: the
    same wherever the command runs from."""
    digest = hashlib.sha1(relative_name(path, root).encode("utf8")).hexdigest()[:8]
    return f"{path.stem}-{digest}-{index:05d}{OUTPUT_SUFFIXES[out_format]}"


def check_options(*, out_format: str = "spacy", in_format: Optional[str] = None,
                  on_error: str = "skip", shard_size: int = 1000, backend: str = "local") -> None:
    """Raise CorpusInputError for an option out of its choices (checked before
    the pipeline is loaded)."""
    if out_format not in OUTPUT_SUFFIXES:
        raise CorpusInputError(f"--format must be one of spacy, conllu, jsonl, got {out_format!r}.")
    if in_format is not None and in_format not in INPUT_FORMATS.values():
        raise CorpusInputError(f"--input-format must be one of text, jsonl, conllu, "
                               f"got {in_format!r}.")
    if on_error not in ("skip", "fail"):
        raise CorpusInputError(f"--on-error must be skip or fail, got {on_error!r}.")
    if shard_size < 1:
        raise CorpusInputError(f"--shard-size must be at least 1, got {shard_size}.")
    if backend not in BACKENDS:
        raise CorpusInputError(f"--backend must be local or ray, got {backend!r}.")


# -- the run: the output folder, the input files, the manifest (both backends) ----------------


def begin_run(model: Any, source: Union[str, Path], output_dir: Union[str, Path], *,
              in_format: Optional[str], out_format: str, shard_size: int, max_length: int,
              force: bool) -> None:
    """Before any work: OUTPUT_DIR made and writable, the input files found
    (none inside OUTPUT_DIR) with a known format, and the plan checked against
    OUTPUT_DIR's manifest (resume, or start over with `force`, or
    PlanChangedError). `model` is a loaded pipeline, or its name or folder."""
    check_output_dir(output_dir)
    files = input_files(source, output_dir)
    for path in files:
        input_format(path, in_format)
    manifest = build_manifest(files, input_root(source), model_identity(model), dict(
        shard_size=shard_size, out_format=out_format, in_format=in_format, max_length=max_length))
    start_or_resume(output_dir, manifest, force)


# -- the plan: chunks, shard names, the resume rule, bad input (both backends) ------------------


@dataclass
class Chunk:
    """`shard_size` docs (fewer at a file's end) of one file, to be written as `shard`."""

    path: Path
    fmt: str
    shard: Path
    records: List[Record]


def plan_chunks(source: Union[str, Path], output_dir: Union[str, Path], vocab, *,
                in_format: Optional[str], out_format: str, shard_size: int, max_length: int,
                on_error: str, force: bool, summary: "Summary",
                errors: List[Dict[str, Any]]) -> Iterator[Chunk]:
    """The chunks still to parse, in input order, each read from its file
    when it is asked for (one chunk's records in memory at a time). A chunk
    whose shard exists is counted in `summary.skipped` and not given (unless
    `force`); bad input is added to `errors` (and `summary.failures`), or
    raised with on_error='fail' (also listed in `errors`)."""
    files = input_files(source, output_dir)
    root = input_root(source)
    output_dir = Path(output_dir)
    for path in files:
        fmt = input_format(path, in_format)
        records: List[Record] = []
        index = 0
        for item in read_records(path, fmt, vocab, max_length):
            if isinstance(item, CorpusInputError):
                errors.append({"file": str(path), "line": item.line, "error": str(item)})
                summary.failures += 1
                if on_error == "fail":
                    raise item
                continue
            records.append(item)
            if len(records) == shard_size:
                chunk = Chunk(path, fmt, output_dir / shard_name(path, root, index, out_format),
                              records)
                records, index = [], index + 1
                if _still_to_do(chunk, force, summary):
                    yield chunk
        if records:
            chunk = Chunk(path, fmt, output_dir / shard_name(path, root, index, out_format),
                          records)
            if _still_to_do(chunk, force, summary):
                yield chunk


def _still_to_do(chunk: Chunk, force: bool, summary: "Summary") -> bool:
    if chunk.shard.exists() and not force:
        summary.skipped += 1
        return False
    return True


def write_errors(output_dir: Union[str, Path], errors: List[Dict[str, Any]]) -> str:
    """`errors.jsonl` lists this run's bad input (a clean run removes an old
    one); its path, or "" when there is none."""
    errors_path = Path(output_dir) / ERRORS_FILE
    if errors:
        write_atomically(errors_path, "".join(json.dumps(e, ensure_ascii=False) + "\n"
                                              for e in errors).encode("utf8"))
        return str(errors_path)
    errors_path.unlink(missing_ok=True)
    return ""


def pipe_input(record: Record) -> Union[str, Doc]:
    return record.doc if record.doc is not None else record.text


def annotated(doc: Doc, record: Record) -> Doc:
    """The parsed doc with its record's extra input fields in `user_data`."""
    doc.user_data.update(record.extra)
    return doc


def write_shard(shard: Path, docs: List[Doc], out_format: str) -> None:
    write_atomically(shard, _serialize(docs, out_format, shard.stem))


# -- tasks: a chunk as a file's byte range, parsed again by a worker --------------------------


@dataclass(frozen=True)
class Task:
    """What a worker needs to read one chunk again and write its shard: plain
    values (a path, a byte range, its first line, the docs expected), so a
    task passes between processes and machines as a few bytes."""

    path: str
    fmt: str
    shard: str
    docs: int
    start: int
    end: int
    line: int

    @property
    def span(self) -> Span:
        return Span(self.start, self.end, self.line)

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def chunk_task(chunk: Chunk) -> Task:
    """The chunk as a Task, its records dropped: the bytes from its first
    record's start to its last record's end."""
    first, last = chunk.records[0], chunk.records[-1]
    return Task(str(chunk.path.resolve()), chunk.fmt, str(chunk.shard.resolve()),
                len(chunk.records), first.start, last.end, first.line)


def chunk_tasks(chunks: Iterable[Chunk]) -> Iterator[Task]:
    return (chunk_task(chunk) for chunk in chunks)


def parse_task(nlp, task: Task, *, out_format: str, batch_size: int,
               max_length: int) -> Dict[str, Any]:
    """Read the task's chunk again, parse it and write its shard; a small
    summary back (docs, words, seconds, this process's id and peak RSS). Bad
    input inside the range is skipped: the plan has listed it already."""
    start = time.perf_counter()
    records = [r for r in read_records(Path(task.path), task.fmt, nlp.vocab, max_length,
                                       task.span) if isinstance(r, Record)]
    if len(records) != task.docs:
        raise BackendError(f"{task.path}, line {task.line}: {len(records)} docs where the plan "
                           f"found {task.docs} (did the file change during the run?).")
    docs = [annotated(doc, record) for doc, record in nlp.pipe(
        ((pipe_input(r), r) for r in records), as_tuples=True, batch_size=batch_size)]
    write_shard(Path(task.shard), docs, out_format)
    return {"shard": Path(task.shard).name, "docs": len(docs), "words": sum(map(len, docs)),
            "seconds": time.perf_counter() - start, "pid": os.getpid(),
            "peak_rss": peak_rss_bytes()}


def peak_rss_bytes(children: bool = False) -> int:
    """This process's peak resident memory (or its largest waited-for child's)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
    return usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)


# -- the local backend ----------------------------------------------------------------------


def parse_corpus(nlp, source: Union[str, Path], output_dir: Union[str, Path], *,
                 out_format: str = "spacy", in_format: Optional[str] = None,
                 shard_size: int = 1000, batch_size: int = 64, n_process: int = 1,
                 max_length: int = 0, on_error: str = "skip", force: bool = False,
                 progress: bool = True) -> Summary:
    """Parse every input file into shards in `output_dir` on this machine (see
    the module's docstring; the Ray backend is ray_parsing.parse_with_ray, with
    the same options). `nlp` is a loaded pipeline or its name or folder.
    Raises InputFailure on bad input when on_error='fail', after the shards
    before it are written whole; PlanChangedError or OutputDirError before any
    work."""
    check_options(out_format=out_format, in_format=in_format, on_error=on_error,
                  shard_size=shard_size)
    options = dict(out_format=out_format, in_format=in_format, shard_size=shard_size,
                   batch_size=batch_size, n_process=n_process, max_length=max_length,
                   on_error=on_error, force=force, progress=progress)
    if isinstance(nlp, (str, Path)):
        from .pipeline_loading import load_pipeline

        nlp = load_pipeline(nlp)
    begin_run(nlp, source, output_dir, in_format=in_format, out_format=out_format,
              shard_size=shard_size, max_length=max_length, force=force)
    if n_process > 1 and "fork" in multiprocessing.get_all_start_methods():
        return _parse_in_forked_workers(nlp, source, output_dir, **options)
    summary = Summary()
    errors: List[Dict[str, Any]] = []
    chunks = plan_chunks(source, output_dir, nlp.vocab, in_format=in_format,
                         out_format=out_format, shard_size=shard_size, max_length=max_length,
                         on_error=on_error, force=force, summary=summary, errors=errors)
    pending: List[Optional[Chunk]] = []
    failure: List[CorpusInputError] = []

    def todo() -> Iterator[Tuple[Union[str, Doc], Tuple[int, int]]]:
        try:
            for chunk in chunks:
                pending.append(chunk)
                for i, record in enumerate(chunk.records):
                    yield pipe_input(record), (len(pending) - 1, i)
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
                             shard_size: int, batch_size: int, max_length: int, on_error: str,
                             force: bool, progress: bool) -> Summary:
    """The local backend with `n_process` workers forked from this process
    with its pipeline: each takes a chunk's task, parses it and writes its
    shard (`parse_task`, as a Ray actor does), and sends back only a summary,
    so no doc passes between processes (nlp.pipe's own workers send every doc
    back to be written here, which leaves this process the bottleneck). A
    worker whose parent is killed exits at once, quietly."""
    def run(tasks: List[Task], summary: Summary, count: Callable[[Dict[str, Any]], None]) -> None:
        _WORKER_STATE.update(nlp=nlp, options=dict(out_format=out_format, batch_size=batch_size,
                                                   max_length=max_length))
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
                     on_error=on_error, force=force, progress=progress)


TaskRunner = Callable[[List["Task"], Summary, Callable[[Dict[str, Any]], None]], None]


def run_tasks(run: TaskRunner, source: Union[str, Path], output_dir: Union[str, Path],
              vocab: Vocab, *, out_format: str, in_format: Optional[str], shard_size: int,
              max_length: int, on_error: str, force: bool, progress: bool) -> Summary:
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
                         on_error=on_error, force=force, summary=summary, errors=errors)
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


class ProgressBar:
    """Docs done, with docs/s and words/s, on stderr (nothing if not enabled);
    it also times the run into `summary.seconds`."""

    def __init__(self, enabled: bool):
        self.start = time.perf_counter()
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(unit=" docs", file=sys.stderr, dynamic_ncols=True)

    def update(self, summary: Summary, docs: int) -> None:
        if self.bar is not None:
            self.bar.update(docs)
            elapsed = max(time.perf_counter() - self.start, 1e-9)
            self.bar.set_postfix_str(f"{summary.docs / elapsed:.0f} docs/s, "
                                     f"{summary.words / elapsed:.0f} words/s", refresh=False)

    def close(self, summary: Summary) -> None:
        if self.bar is not None:
            self.bar.close()
        summary.seconds = time.perf_counter() - self.start


def _serialize(docs: List[Doc], out_format: str, shard: str = "doc") -> bytes:
    if out_format == "spacy":
        return DocBin(docs=docs, store_user_data=True).to_bytes()
    if out_format == "jsonl":
        return "".join(json.dumps(doc_to_json(doc), ensure_ascii=False) + "\n"
                       for doc in docs).encode("utf8")
    return "".join(doc_to_conllu(doc, f"{shard}-{k + 1}") for k, doc in enumerate(docs)
                   ).encode("utf8")


def doc_to_json(doc: Doc) -> Dict[str, Any]:
    """The doc's extra input fields, then its text, tokens, tags, heads
    (absolute token indices) and relations, and its sentences as token spans."""
    record = {str(k): v for k, v in doc.user_data.items() if isinstance(k, str)}
    record.update({
        "text": doc.text,
        "tokens": [t.text for t in doc],
        "tags": [t.tag_ for t in doc],
        "heads": [t.head.i for t in doc],
        "deps": [t.dep_ for t in doc],
        "sents": [[s.start, s.end] for s in doc.sents] if doc.has_annotation("SENT_START") else [],
    })
    return record


def doc_to_conllu(doc: Doc, fallback_id: Optional[str] = None) -> str:
    """The doc's sentences as CoNLL-U (`conllu_writer.py`: multiword tokens as
    ranges, `# newdoc id` from the record's "id" field, else `fallback_id`,
    the shard's name and the doc's place in it, so sent_ids are unique)."""
    from .conllu_writer import doc_to_conllu as write

    doc_id = doc.user_data.get("id", fallback_id)
    return write(doc, doc_id=None if doc_id is None else str(doc_id))[0]
