"""The input docs of `spacy-elstm parse`, read from a file as a stream.

A file is read line by line from a byte offset (a `Span`), never whole, so
memory does not grow with the file: each doc comes out as a `Record` that knows
the bytes it was read from, which is how a worker finds a chunk's docs again.
Plain text is one doc a text unit (`text/input_modes.py`: a paragraph, a line,
or the file); JSONL one object a line with a string `text` field (its other
fields kept); CoNLL-U one doc a sentence, with its gold words and sentence
start. A text longer than --max-length is cut into pieces (`text/pieces.py`),
each its own doc, as it is read: a text unit is held only up to about
--max-length characters and a line. Bad input comes out in place as a
`CorpusInputError` naming the file and the line, for the caller to skip or
raise."""
import bisect
import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Dict, Iterator, List, Optional, Tuple, Union

from spacy.tokens import Doc

from ..text.paragraphs import is_blank_line
from ..text.pieces import NoCutError, piece_end, pieces

UTF8_BOM = b"\xef\xbb\xbf"
LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # JSON can escape one; UTF-8 cannot write it


class CorpusInputError(ValueError):
    """Bad input; the message names the file and the line (also in `line`)."""

    def __init__(self, message: str, line: Optional[int] = None):
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Span:
    """Where some of a file's docs are: from byte `start`, on line `line`, the
    first of them piece `piece` of its text (0: a whole text, or the first
    piece), `docs` of them (None: to the end of the file)."""

    start: int = 0
    line: int = 1
    piece: int = 0
    docs: Optional[int] = None


@dataclass
class Record:
    """One input doc: its text (or pre-tokenized Doc for CoNLL-U), extra
    fields, the 1-based lines it starts and ends on, its bytes [start, end) in
    the file (the end past its last line's newline, or where the next piece of
    its text starts), and `piece`: 0 for a whole text, else its number (from 1)
    among the pieces of a text longer than --max-length."""

    line: int
    last: int
    text: Optional[str] = None
    doc: Optional[Doc] = None
    extra: Dict[str, Any] = field(default_factory=dict)
    start: int = 0
    end: int = 0
    piece: int = 0


Item = Union[Record, CorpusInputError]


def read_records(path: Path, fmt: str, vocab, max_length: int = 0, span: Span = Span(),
                 text_unit: str = "paragraph", input_mode: str = "raw") -> Iterator[Item]:
    """The docs of one input file (or of its `span`), in order, one doc in
    memory at a time; bad input comes as an error in place. `text_unit` is
    how a text file is cut into docs (text/input_modes.py's TEXT_UNITS), and
    `input_mode` where a text longer than `max_length` may be cut
    (text/pieces.py)."""
    with path.open("rb") as file:
        lines = _lines(file, span)
        if fmt == "conllu":
            items = _conllu_records(path, vocab, lines)
        elif fmt == "jsonl":
            items = _jsonl_records(path, max_length, input_mode, lines, span.piece)
        else:
            items = _text_records(path, text_unit, max_length, input_mode, lines, span.piece)
        docs = 0
        for item in items:
            yield item
            docs += isinstance(item, Record)
            if docs == span.docs:
                return


Line = Tuple[int, int, int, bytes]


def _lines(file: BinaryIO, span: Span) -> Iterator[Line]:
    """(line number, the first byte of its text, the byte after its end of
    line, the line without its end of line) from the span's start on."""
    file.seek(span.start)
    offset, number = span.start, span.line
    for raw in file:
        line, start = raw.rstrip(b"\n").rstrip(b"\r"), offset
        if offset == 0 and line.startswith(UTF8_BOM):
            line, start = line[len(UTF8_BOM):], len(UTF8_BOM)
        yield number, start, offset + len(raw), line
        offset += len(raw)
        number += 1


def _not_utf8(path: Path, number: int, raw: bytes, err: UnicodeDecodeError) -> CorpusInputError:
    return CorpusInputError(f"{path}, line {number}: not UTF-8 (byte 0x{raw[err.start]:02x} "
                            f"at column {err.start + 1}).", number)


def _text_records(path: Path, text_unit: str, max_length: int, input_mode: str,
                  lines: Iterator[Line], piece: int = 0) -> Iterator[Item]:
    """One record a text unit: a non-blank line ("line"), a run of non-blank
    lines ("paragraph") or the file from its first to its last non-blank line
    ("file"), as text/input_modes.py's text_units cuts a text; a unit longer
    than max_length one record a piece. `piece`: that of the first line read
    (a span that starts inside a unit)."""
    unit: Optional[_TextUnit] = None
    for number, start, end, raw in lines:
        try:
            line, error = raw.decode("utf-8"), None
        except UnicodeDecodeError as err:
            line, error = "", _not_utf8(path, number, raw, err)
        if error is None and is_blank_line(line):
            if unit is not None and text_unit == "file":
                unit.add_blank(number, start, line)
            elif unit is not None:
                yield from unit.finish()
                unit = None
            continue
        if unit is None:
            unit = _TextUnit(path, number, max_length, input_mode, piece)
            piece = 0
        yield from unit.add(number, start, end, line, error)
        if text_unit == "line":
            yield from unit.finish()
            unit = None
    if unit is not None:
        yield from unit.finish()


Held = Tuple[str, int, int]  # a line's text (or its rest, after a cut), its number, its first byte


class _TextUnit:
    """A text unit being read: its text not yet given as a record, a line at a
    time (and the blank lines after them, in a file unit, until a non-blank
    line takes them in). Once longer than max_length it is cut into pieces
    (text/pieces.py's piece_end) and each piece given at once, so no more than
    max_length characters and a line are held. After a bad byte, or where no
    piece can be made, the rest of the unit is one error."""

    def __init__(self, path: Path, number: int, max_length: int, input_mode: str,
                 piece: int = 0):
        self.path, self.max_length, self.mode = path, max_length, input_mode
        self.first = self.last = number
        self.end = 0
        self.held: List[Held] = []
        self.length = 0  # of the held texts joined by "\n"
        self.blanks: List[Held] = []
        self.pieces = max(piece - 1, 0)  # given so far
        self.error: Optional[CorpusInputError] = None  # a bad byte
        self.no_cut: Optional[Tuple[NoCutError, int, int]] = None  # and its line, its piece's

    def add_blank(self, number: int, start: int, line: str) -> None:
        if not self.failed:
            self.blanks.append((line, number, start))

    @property
    def failed(self) -> bool:
        return self.error is not None or self.no_cut is not None

    def add(self, number: int, start: int, end: int, line: str,
            error: Optional[CorpusInputError]) -> Iterator[Record]:
        self.last, self.end = number, end
        if not self.failed:
            self.error = error
        if self.failed:
            self.held, self.blanks = [], []
            return
        for held in self.blanks + [(line, number, start)]:
            self.length += len(held[0]) + (1 if self.held else 0)
            self.held.append(held)
        self.blanks = []
        if self.max_length and self.length > self.max_length:
            yield from self._cut()

    def _cut(self) -> Iterator[Record]:
        """Give the pieces of the held text until what is left is within
        max_length."""
        text = "\n".join(t for t, _, _ in self.held)
        starts = list(itertools.accumulate((len(t) + 1 for t, _, _ in self.held[:-1]), initial=0))

        def held_at(i: int) -> int:  # the held line that character i is on
            return bisect.bisect_right(starts, i) - 1

        pos, byte = 0, self.held[0][2]
        while len(text) - pos > self.max_length:
            try:
                end = piece_end(text, pos, self.max_length, self.mode)
            except NoCutError as err:
                self.no_cut = (err, self.held[held_at(err.position)][1],
                               self.held[held_at(pos)][1])
                self.held = []
                return
            k = held_at(end)
            end_byte = (byte + _utf8_length(text[pos:end]) if k == held_at(pos)
                        else self.held[k][2] + _utf8_length(text[starts[k]:end]))
            self.pieces += 1
            yield Record(self.held[held_at(pos)][1], self.held[held_at(end - 1)][1],
                         text=text[pos:end], start=byte, end=end_byte, piece=self.pieces)
            pos, byte = end, end_byte
        k = held_at(pos)
        self.held = [(text[pos:starts[k] + len(self.held[k][0])], self.held[k][1], byte)] \
            + self.held[k + 1:]
        self.length = len(text) - pos

    def finish(self) -> Iterator[Item]:
        if self.error is not None:
            yield self.error
        elif self.no_cut is not None:
            err, line, piece_line = self.no_cut
            lines = f"line {self.first}" if self.last == self.first else \
                f"lines {self.first}-{self.last}"
            rest = (f" from line {piece_line} (its first {self.pieces} "
                    f"{'pieces are' if self.pieces > 1 else 'piece is'} parsed)"
                    if self.pieces else "")
            yield CorpusInputError(f"{self.path}, line {line}: {err}; the text unit in {lines} "
                                   f"is left out{rest}.", line)
        elif self.held:
            yield Record(self.held[0][1], self.last, text="\n".join(t for t, _, _ in self.held),
                         start=self.held[0][2], end=self.end,
                         piece=self.pieces + 1 if self.pieces else 0)


def _utf8_length(text: str) -> int:
    return len(text.encode("utf-8"))


def _jsonl_records(path: Path, max_length: int, input_mode: str, lines: Iterator[Line],
                   piece: int = 0) -> Iterator[Item]:
    """One record a JSON line; a `text` longer than max_length one record a
    piece (the record left out whole where a piece cannot be made). `piece`:
    that of the first line read (a span that starts inside its pieces)."""
    for number, offset, end, raw in lines:
        skip, piece = max(piece - 1, 0), 0
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
        if not max_length or len(text) <= max_length:
            yield Record(number, number, text=text, extra=value, start=offset, end=end)
            continue
        try:
            texts = pieces(text, max_length, input_mode)
        except NoCutError as err:
            yield CorpusInputError(f"{path}, line {number}: 'text' at character "
                                   f"{err.position + 1}: {err}; the record is left out.", number)
            continue
        for k, piece_text in enumerate(texts[skip:], skip + 1):
            yield Record(number, number, text=piece_text, extra=value, start=offset, end=end,
                         piece=k)


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
