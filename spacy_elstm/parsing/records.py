"""The input docs of `spacy-elstm parse`, read from a file as a stream.

A file is read line by line from a byte offset to another (a `Span`), never
whole, so memory does not grow with the file: each doc comes out as a `Record`
that knows the bytes it was read from, which is how a worker finds a chunk's
docs again. Plain text is one doc a text unit (`text/input_modes.py`: a
paragraph, a line, or the file), held only while it is within --max-length;
JSONL one object a line with a string `text` field (its other fields kept);
CoNLL-U one doc a sentence, with its gold words and sentence start. Bad input
comes out in place as a `CorpusInputError` naming the file and the line, for
the caller to skip or raise."""
import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Dict, Iterator, List, Optional, Tuple, Union

from spacy.tokens import Doc

from ..text.paragraphs import is_blank_line

UTF8_BOM = b"\xef\xbb\xbf"
LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # JSON can escape one; UTF-8 cannot write it


class CorpusInputError(ValueError):
    """Bad input; the message names the file and the line (also in `line`)."""

    def __init__(self, message: str, line: Optional[int] = None):
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Span:
    """Where some of a file's docs are: bytes [start, end) (end None: to the
    end of the file), whose first byte starts line `line`."""

    start: int = 0
    end: Optional[int] = None
    line: int = 1


@dataclass
class Record:
    """One input doc: its text (or pre-tokenized Doc for CoNLL-U), extra
    fields, the 1-based lines it starts and ends on, and its bytes [start, end)
    in the file (the end past its last line's newline)."""

    line: int
    last: int
    text: Optional[str] = None
    doc: Optional[Doc] = None
    extra: Dict[str, Any] = field(default_factory=dict)
    start: int = 0
    end: int = 0


Item = Union[Record, CorpusInputError]


def read_records(path: Path, fmt: str, vocab, max_length: int = 0, span: Span = Span(),
                 text_unit: str = "paragraph") -> Iterator[Item]:
    """The docs of one input file (or of its `span`), in order, one doc in
    memory at a time; bad input comes as an error in place. `text_unit` is
    how a text file is cut into docs (text/input_modes.py's TEXT_UNITS)."""
    with path.open("rb") as file:
        lines = _lines(file, span)
        if fmt == "conllu":
            yield from _conllu_records(path, vocab, lines)
        elif fmt == "jsonl":
            yield from _jsonl_records(path, max_length, lines)
        else:
            yield from _text_records(path, text_unit, max_length, lines)


Line = Tuple[int, int, int, bytes]


def _lines(file: BinaryIO, span: Span) -> Iterator[Line]:
    """(line number, its first byte, the byte after its end of line, the line
    without its end of line) from the span's start to its end."""
    file.seek(span.start)
    offset, number = span.start, span.line
    for raw in file:
        if span.end is not None and offset >= span.end:
            return
        line = raw.rstrip(b"\n").rstrip(b"\r")
        if offset == 0 and line.startswith(UTF8_BOM):
            line = line[len(UTF8_BOM):]
        yield number, offset, offset + len(raw), line
        offset += len(raw)
        number += 1


def _not_utf8(path: Path, number: int, raw: bytes, err: UnicodeDecodeError) -> CorpusInputError:
    return CorpusInputError(f"{path}, line {number}: not UTF-8 (byte 0x{raw[err.start]:02x} "
                            f"at column {err.start + 1}).", number)


def _text_records(path: Path, text_unit: str, max_length: int,
                  lines: Iterator[Line]) -> Iterator[Item]:
    """One record a text unit: a non-blank line ("line"), a run of non-blank
    lines ("paragraph") or the file from its first to its last non-blank line
    ("file"), as text/input_modes.py's text_units cuts a text."""
    unit: Optional[_TextUnit] = None
    for number, offset, end, raw in lines:
        try:
            line, error = raw.decode("utf-8"), None
        except UnicodeDecodeError as err:
            line, error = "", _not_utf8(path, number, raw, err)
        if error is None and is_blank_line(line):
            if unit is not None and text_unit == "file":
                unit.add_blank(line)
            elif unit is not None:
                yield unit.item()
                unit = None
            continue
        if unit is None:
            unit = _TextUnit(path, number, offset, max_length)
        unit.add(number, end, line, error)
        if text_unit == "line":
            yield unit.item()
            unit = None
    if unit is not None:
        yield unit.item()


class _TextUnit:
    """A text unit being read, from its first line to its last non-blank one:
    its lines while it is within max_length (then only its length in
    characters), and the blank lines after them (a file unit) until a
    non-blank line takes them in."""

    def __init__(self, path: Path, number: int, start: int, max_length: int):
        self.path, self.max_length = path, max_length
        self.first = self.last = number
        self.start = self.end = start
        self.lines: Optional[List[str]] = []
        self.length = -1  # of the lines joined by "\n"
        self.blanks: Optional[List[str]] = []
        self.blank_length = 0
        self.error: Optional[CorpusInputError] = None

    def _fits(self, length: int) -> bool:
        return not self.max_length or length <= self.max_length

    def add_blank(self, line: str) -> None:
        self.blank_length += len(line) + 1
        if (self.lines is not None and self.blanks is not None
                and self._fits(self.length + self.blank_length)):
            self.blanks.append(line)
        else:
            self.blanks = None  # the unit is too long if a non-blank line follows

    def add(self, number: int, end: int, line: str, error: Optional[CorpusInputError]) -> None:
        self.error = self.error or error
        self.length += self.blank_length + len(line) + 1
        if (self.lines is not None and self.blanks is not None and self.error is None
                and self._fits(self.length)):
            self.lines += self.blanks + [line]
        else:
            self.lines = None
        self.blanks, self.blank_length = [], 0
        self.last, self.end = number, end

    def item(self) -> Item:
        if self.error is not None:
            return self.error
        if self.lines is None:
            lines = f" in lines {self.first}-{self.last}" if self.last > self.first else ""
            return CorpusInputError(f"{self.path}, line {self.first}: {self.length} characters"
                                    f"{lines}, more than --max-length {self.max_length}.",
                                    self.first)
        return Record(self.first, self.last, text="\n".join(self.lines), start=self.start,
                      end=self.end)


def _jsonl_records(path: Path, max_length: int, lines: Iterator[Line]) -> Iterator[Item]:
    for number, offset, end, raw in lines:
        if not raw.strip():
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            yield _not_utf8(path, number, raw, err)
            continue
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
        text = value.pop("text")
        lone = LONE_SURROGATE.search(text)
        if lone is not None:  # a \\ud800-style escape: no character, nothing UTF-8 can write
            yield CorpusInputError(f"{path}, line {number}: 'text' holds a lone surrogate "
                                   f"(U+{ord(lone.group()):04X}, character {lone.start() + 1}), "
                                   "which is no character.", number)
            continue
        if max_length and len(text) > max_length:
            yield CorpusInputError(f"{path}, line {number}: {len(text)} characters, more than "
                                   f"--max-length {max_length}.", number)
            continue
        yield Record(number, number, text=text, extra=value, start=offset, end=end)


def _conllu_records(path: Path, vocab, lines: Iterator[Line]) -> Iterator[Item]:
    """One record a sentence block (a run of non-blank lines), checked by the
    treebank reader's strict CoNLL-U rules."""
    from ..treebanks.conllu_reader import Block, CorpusFormatError, _to_doc

    block: List[Line] = []
    for line in itertools.chain(lines, [(0, 0, 0, b"")]):  # a blank line ends the last block
        if line[3].strip():
            block.append(line)
            continue
        if not block:
            continue
        numbers = [n for n, _, _, _ in block]
        start, end = block[0][1], block[-1][2]
        try:
            texts = [_decode(path, n, r) for n, _, _, r in block]
            gold = _to_doc(path, Block(texts, numbers), vocab)
        except CorpusFormatError as err:
            yield CorpusInputError(str(err), _line_of(str(err)))
        else:
            words = [t.text for t in gold]
            spaces = [bool(t.whitespace_) for t in gold]
            starts = [True] + [False] * (len(words) - 1)
            yield Record(numbers[0], numbers[-1], start=start, end=end,
                         doc=Doc(vocab, words=words, spaces=spaces, sent_starts=starts))
        block = []


def _decode(path: Path, number: int, raw: bytes) -> str:
    from ..treebanks.conllu_reader import CorpusFormatError

    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CorpusFormatError(f"{path}, line {number}: not UTF-8 (byte 0x{raw[err.start]:02x} "
                                f"at column {err.start + 1}; CoNLL-U files are UTF-8).") from None


def _line_of(message: str) -> Optional[int]:
    found = re.search(r", line (\d+):", message)
    return int(found.group(1)) if found else None
