"""The plan of `spacy-elstm parse`, the first step of its route (plan → read →
run → write): the options checked, the input files and their formats, the
output folder and its manifest (`manifest.py`) checked before any work, and
the chunks still to parse, each `shard_size` docs of one file, named for its
output shard; a chunk still to parse is also a `Task`, where in a file a
worker reads its docs again (`records.py`). Both backends plan with this module.
"""
import glob
import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Union

from ..text.input_modes import MODES, TEXT_UNITS
from .manifest import (build_manifest, check_output_dir, input_root, is_inside, model_identity,
                       relative_name, start_or_resume)
from .records import CorpusInputError, Record, Span, read_records
from .summary import Summary

INPUT_FORMATS = {".txt": "text", ".jsonl": "jsonl", ".conllu": "conllu"}
OUTPUT_SUFFIXES = {"spacy": ".spacy", "conllu": ".conllu", "jsonl": ".jsonl"}
BACKENDS = ("local", "ray")


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
                  on_error: str = "skip", shard_size: int = 1000, backend: str = "local",
                  text_unit: str = "paragraph", input_mode: str = "raw") -> None:
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
    if text_unit not in TEXT_UNITS:
        raise CorpusInputError(f"--text-unit must be one of {', '.join(TEXT_UNITS)}, "
                               f"got {text_unit!r}.")
    if input_mode not in MODES:
        raise CorpusInputError(f"input_mode must be one of {', '.join(MODES)}, "
                               f"got {input_mode!r}.")


def begin_run(model: Any, source: Union[str, Path], output_dir: Union[str, Path], *,
              in_format: Optional[str], out_format: str, shard_size: int, max_length: int,
              text_unit: str, input_mode: str, force: bool) -> None:
    """Before any work: OUTPUT_DIR made and writable, the input files found
    (none inside OUTPUT_DIR) with a known format, and the plan checked against
    OUTPUT_DIR's manifest (resume, or start over with `force`, or
    PlanChangedError). `model` is a loaded pipeline, or its name or folder."""
    check_output_dir(output_dir)
    files = input_files(source, output_dir)
    for path in files:
        input_format(path, in_format)
    manifest = build_manifest(files, input_root(source), model_identity(model), dict(
        shard_size=shard_size, out_format=out_format, in_format=in_format, max_length=max_length,
        text_unit=text_unit, input_mode=input_mode))
    start_or_resume(output_dir, manifest, force)


@dataclass
class Chunk:
    """`shard_size` docs (fewer at a file's end) of one file, to be written as
    `shard`; a text file's docs are its `text_unit`s."""

    path: Path
    fmt: str
    text_unit: str
    shard: Path
    records: List[Record]


def plan_chunks(source: Union[str, Path], output_dir: Union[str, Path], vocab, *,
                in_format: Optional[str], out_format: str, shard_size: int, max_length: int,
                on_error: str, force: bool, summary: Summary, errors: List[Dict[str, Any]],
                text_unit: str = "paragraph", input_mode: str = "raw") -> Iterator[Chunk]:
    """The chunks still to parse, in input order, each read from its file
    when it is asked for (one chunk's records in memory at a time). A chunk
    whose shard exists is counted in `summary.skipped` and not given (unless
    `force`); bad input is added to `errors` (and `summary.failures`), or
    raised with on_error='fail' (also listed in `errors`); a text cut into
    pieces (longer than `max_length`) is counted in `summary.cut`."""
    files = input_files(source, output_dir)
    root = input_root(source)
    output_dir = Path(output_dir)
    for path in files:
        fmt = input_format(path, in_format)
        records: List[Record] = []
        index = 0
        for item in read_records(path, fmt, vocab, max_length, text_unit=text_unit,
                                 input_mode=input_mode):
            if isinstance(item, CorpusInputError):
                errors.append({"file": str(path), "line": item.line, "error": str(item)})
                summary.failures += 1
                if on_error == "fail":
                    raise item
                continue
            if item.piece == 1:
                summary.cut += 1
            records.append(item)
            if len(records) == shard_size:
                chunk = Chunk(path, fmt, text_unit,
                              output_dir / shard_name(path, root, index, out_format), records)
                records, index = [], index + 1
                if _still_to_do(chunk, force, summary):
                    yield chunk
        if records:
            chunk = Chunk(path, fmt, text_unit,
                          output_dir / shard_name(path, root, index, out_format), records)
            if _still_to_do(chunk, force, summary):
                yield chunk


def _still_to_do(chunk: Chunk, force: bool, summary: Summary) -> bool:
    if chunk.shard.exists() and not force:
        summary.skipped += 1
        return False
    return True


@dataclass(frozen=True)
class Task:
    """What a worker needs to read one chunk again and write its shard: plain
    values (a path, its format and text unit, the docs expected, the chunk's
    byte range, its first line and the piece its first doc is of its text), so
    a task passes between processes and machines as a few bytes."""

    path: str
    fmt: str
    text_unit: str
    shard: str
    docs: int
    start: int
    end: int
    line: int
    piece: int = 0

    @property
    def span(self) -> Span:
        return Span(self.start, self.line, self.piece, self.docs)

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def chunk_task(chunk: Chunk) -> Task:
    """The chunk as a Task, its records dropped: the bytes from its first
    record's start to its last record's end."""
    first, last = chunk.records[0], chunk.records[-1]
    return Task(str(chunk.path.resolve()), chunk.fmt, chunk.text_unit,
                str(chunk.shard.resolve()), len(chunk.records), first.start, last.end,
                first.line, first.piece)


def chunk_tasks(chunks: Iterable[Chunk]) -> Iterator[Task]:
    return (chunk_task(chunk) for chunk in chunks)
