"""Parse a corpus with a pipeline into output shards: `spacy-elstm parse`.

Inputs (plain text, one doc a line; JSONL with a `text` field; CoNLL-U, whose
gold words and sentence starts are kept) are cut into chunks of `shard_size`
docs; each chunk becomes one output shard named from its input file and chunk
index, written whole (temporary name, then rename). A shard that exists is
skipped unless `force`, so a killed run restarted redoes only what is missing.
Bad input (an undecodable line, invalid JSON, a record without `text`, a line
over `max_length` characters, an invalid CoNLL-U sentence) names the file and
line; it is skipped and listed in `errors.jsonl`, or stops the run.
"""
import glob
import hashlib
import json
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from spacy.tokens import Doc, DocBin

from .files import write_atomically

INPUT_FORMATS = {".txt": "text", ".jsonl": "jsonl", ".conllu": "conllu"}
OUTPUT_SUFFIXES = {"spacy": ".spacy", "conllu": ".conllu", "jsonl": ".jsonl"}
ERRORS_FILE = "errors.jsonl"


class CorpusInputError(ValueError):
    """Bad input; the message names the file and the line (also in `line`)."""

    def __init__(self, message: str, line: Optional[int] = None):
        super().__init__(message)
        self.line = line


@dataclass
class Record:
    """One input doc: its text (or pre-tokenized Doc for CoNLL-U), extra
    fields, and the 1-based line it starts on."""

    line: int
    text: Optional[str] = None
    doc: Optional[Doc] = None
    extra: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Summary:
    docs: int = 0
    words: int = 0
    seconds: float = 0.0
    failures: int = 0
    written: int = 0
    skipped: int = 0

    def line(self) -> str:
        rate = self.words / self.seconds if self.seconds > 0 else 0.0
        return (f"{self.docs} docs, {self.words} words in {self.seconds:.1f} s "
                f"({rate:.0f} words/s); {self.failures} failures; "
                f"{self.written} shards written, {self.skipped} skipped")


def input_files(source: Union[str, Path]) -> List[Path]:
    """A file, the files of a folder (recursively) with a known extension, or
    the files a glob matches; sorted, so shard names and order are stable."""
    path = Path(source)
    if path.is_file():
        return [path]
    if path.is_dir():
        files = [p for p in path.rglob("*") if p.is_file() and p.suffix in INPUT_FORMATS]
    else:
        files = [Path(p) for p in glob.glob(str(source), recursive=True) if Path(p).is_file()]
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


def read_records(path: Path, fmt: str, vocab, max_length: int = 0
                 ) -> Iterator[Union[Record, CorpusInputError]]:
    """The docs of one input file, in order; bad input comes as an error in
    place (the caller skips it or stops)."""
    if fmt == "conllu":
        yield from _conllu_records(path, vocab)
        return
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for number, raw in enumerate(data.split(b"\n"), start=1):
        raw = raw.rstrip(b"\r")
        if not raw.strip():
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            yield CorpusInputError(f"{path}, line {number}: not UTF-8 (byte "
                                   f"0x{raw[err.start]:02x} at column {err.start + 1}).", number)
            continue
        extra: Dict[str, Any] = {}
        if fmt == "jsonl":
            try:
                value = json.loads(line)
            except json.JSONDecodeError as err:
                yield CorpusInputError(f"{path}, line {number}: invalid JSON ({err.msg}, "
                                       f"column {err.colno}).", number)
                continue
            if not isinstance(value, dict) or not isinstance(value.get("text"), str):
                yield CorpusInputError(f"{path}, line {number}: a JSON object with a string "
                                       "'text' field expected.", number)
                continue
            line = value.pop("text")
            extra = value
        if max_length and len(line) > max_length:
            yield CorpusInputError(f"{path}, line {number}: {len(line)} characters, more than "
                                   f"--max-length {max_length}.", number)
            continue
        yield Record(number, text=line, extra=extra)


def _conllu_records(path: Path, vocab) -> Iterator[Union[Record, CorpusInputError]]:
    from .treebanks.conllu import CorpusFormatError, _blocks, _to_doc

    try:
        blocks = list(_blocks(path))
    except CorpusFormatError as err:  # not UTF-8: the whole file
        yield CorpusInputError(str(err), _line_of(str(err)))
        return
    for block in blocks:
        try:
            gold = _to_doc(path, block, vocab)
        except CorpusFormatError as err:
            yield CorpusInputError(str(err), _line_of(str(err)))
            continue
        words = [t.text for t in gold]
        spaces = [bool(t.whitespace_) for t in gold]
        starts = [True] + [False] * (len(words) - 1)
        yield Record(block.numbers[0], doc=Doc(vocab, words=words, spaces=spaces,
                                               sent_starts=starts))


def _line_of(message: str) -> Optional[int]:
    found = re.search(r", line (\d+):", message)
    return int(found.group(1)) if found else None


def shard_name(path: Path, root: Path, index: int, out_format: str) -> str:
    """`<stem>-<8 hex of the path below the input root>-<chunk>.<ext>`."""
    try:
        relative = path.resolve().relative_to(root.resolve())
    except ValueError:
        relative = path
    digest = hashlib.sha1(relative.as_posix().encode("utf8")).hexdigest()[:8]
    return f"{path.stem}-{digest}-{index:05d}{OUTPUT_SUFFIXES[out_format]}"


def check_options(*, out_format: str = "spacy", in_format: Optional[str] = None,
                  on_error: str = "skip", shard_size: int = 1000) -> None:
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


def parse_corpus(nlp, source: Union[str, Path], output_dir: Union[str, Path], *,
                 out_format: str = "spacy", in_format: Optional[str] = None,
                 shard_size: int = 1000, batch_size: int = 64, n_process: int = 1,
                 max_length: int = 0, on_error: str = "skip", force: bool = False,
                 progress: bool = True) -> Summary:
    """Parse every input file into shards in `output_dir` (see the module's
    docstring). Raises CorpusInputError on bad input when on_error='fail',
    after the shards before it are written whole."""
    check_options(out_format=out_format, in_format=in_format, on_error=on_error,
                  shard_size=shard_size)
    files = input_files(source)
    root = Path(source) if Path(source).is_dir() else Path(".")
    formats = {path: input_format(path, in_format) for path in files}
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    summary = Summary()
    errors: List[Dict[str, str]] = []
    pending: List[Tuple[Path, List[Record]]] = []

    def chunks() -> Iterator[Tuple[Path, List[Record]]]:
        for path in files:
            chunk: List[Record] = []
            index = 0
            for item in read_records(path, formats[path], nlp.vocab, max_length):
                if isinstance(item, CorpusInputError):
                    if on_error == "fail":
                        raise item
                    errors.append({"file": str(path), "line": item.line, "error": str(item)})
                    summary.failures += 1
                    continue
                chunk.append(item)
                if len(chunk) == shard_size:
                    yield output_dir / shard_name(path, root, index, out_format), chunk
                    chunk, index = [], index + 1
            if chunk:
                yield output_dir / shard_name(path, root, index, out_format), chunk

    def todo() -> Iterator[Tuple[Union[str, Doc], Tuple[int, int]]]:
        for shard, records in chunks():
            if shard.exists() and not force:
                summary.skipped += 1
                continue
            pending.append((shard, records))
            number = len(pending) - 1
            for i, record in enumerate(records):
                yield (record.doc if record.doc is not None else record.text), (number, i)

    bar = _progress(progress)
    start = time.perf_counter()
    parsed: List[Doc] = []
    try:
        for doc, (number, i) in nlp.pipe(todo(), as_tuples=True, batch_size=batch_size,
                                         n_process=n_process):
            shard, records = pending[number]
            doc.user_data.update(records[i].extra)
            parsed.append(doc)
            summary.docs += 1
            summary.words += len(doc)
            if i == len(records) - 1:
                write_atomically(shard, _serialize(parsed, out_format))
                summary.written += 1
                pending[number] = (shard, [])  # free the records
                parsed = []
            if bar is not None:
                bar.update(1)
                elapsed = max(time.perf_counter() - start, 1e-9)
                bar.set_postfix_str(f"{summary.docs / elapsed:.0f} docs/s, "
                                    f"{summary.words / elapsed:.0f} words/s", refresh=False)
    finally:
        if bar is not None:
            bar.close()
        summary.seconds = time.perf_counter() - start
        errors_path = output_dir / ERRORS_FILE
        if errors:
            write_atomically(errors_path, "".join(json.dumps(e, ensure_ascii=False) + "\n"
                                                  for e in errors).encode("utf8"))
        elif errors_path.exists() and on_error == "skip":
            errors_path.unlink()
    return summary


def _progress(enabled: bool):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(unit=" docs", file=sys.stderr, dynamic_ncols=True)


def _serialize(docs: List[Doc], out_format: str) -> bytes:
    if out_format == "spacy":
        return DocBin(docs=docs, store_user_data=True).to_bytes()
    if out_format == "jsonl":
        return "".join(json.dumps(doc_to_json(doc), ensure_ascii=False) + "\n"
                       for doc in docs).encode("utf8")
    return "".join(doc_to_conllu(doc) for doc in docs).encode("utf8")


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


def doc_to_conllu(doc: Doc) -> str:
    """One CoNLL-U sentence block per sentence of the doc, each written by
    scoring.doc_to_conllu (its single-root repair and columns)."""
    from .scoring import doc_to_conllu as sentence_to_conllu

    sents = list(doc.sents) if doc.has_annotation("SENT_START") or doc.has_annotation("DEP") \
        else [doc[:]]
    return "".join(sentence_to_conllu(sent.as_doc())[0] for sent in sents if len(sent))
