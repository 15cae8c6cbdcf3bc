"""The raw text of a gold CoNLL-U file, document by document: what a user's
pipeline meets, in one of three forms.

- "ud" (the default): UD's own text form, the bytes that
  `conllu_to_text.pl --language CODE` of UniversalDependencies/tools writes,
  which UD releases beside every treebank (`*.txt`) and the CoNLL 2018 shared
  task gave to systems. Sentences of a paragraph run on, each token followed by
  a space (none where MISC says `SpaceAfter=No`); the text is wrapped at 80
  characters at whitespace, or, for Chinese, Japanese, Classical Chinese and
  Cantonese (codes zh, ja, lzh, yue, alone or before a `_`), between any two
  characters but two Latin letters or digits, a line then holding up to 81;
  `# newdoc` and `# newpar` start a paragraph: the line so far, then an empty
  line; so does `NewPar=Yes` in a token's MISC, inside a sentence.
- "joined": each paragraph's sentences joined by a space on one line, paragraphs
  by a blank line (the form this package scored before it had UD's).
- "lines": each sentence on a line of its own, paragraphs by a blank line (as
  text that comes one sentence per line is).

A document starts at `# newdoc` (the whole file is one document where there is
none). In both forms the tokens as written (a multiword token by its own form)
make the text, not `# text`, so that the characters are exactly those the
evaluation script aligns; the documents' texts joined give the whole file's text.
"""
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional, Union

from .conllu_reader import CorpusFormatError, _blocks, _text, comment_keyword

FORMS = ("ud", "joined", "lines")
LINE_WIDTH = 80  # UD's text lines: at most this many characters (81 where wrapped between
#                  characters), unless one word is longer
PARAGRAPH_BREAK = "\n\n"
# What the Perl script's \s matches (Python's str.isspace also takes U+001C-U+001F)
PERL_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
                       + "".join(map(chr, range(0x2000, 0x200B))))
# The language codes whose text is wrapped between characters (the Perl script's rule)
WRAPPED_BETWEEN_CHARACTERS = re.compile(r"(zh|ja|lzh|yue)(_|$)")
# What the Perl script's [\p{Latin}0-9] matches, the characters no line break comes between
# two of: Latin by Unicode's ScriptExtensions.txt (14.0, as Perl 5.36 reads \p{Latin}) and
# the ASCII digits
LATIN_RANGES = """
    0041-005A 0061-007A 00AA 00BA 00C0-00D6 00D8-00F6 00F8-02B8 02E0-02E4 0363-036F 0485-0486
    0951-0952 10FB 1D00-1D25 1D2C-1D5C 1D62-1D65 1D6B-1D77 1D79-1DBE 1E00-1EFF 202F 2071 207F
    2090-209C 20F0 212A-212B 2132 214E 2160-2188 2C60-2C7F A700-A707 A722-A787 A78B-A7CA
    A7D0-A7D1 A7D3 A7D5-A7D9 A7F2-A7FF A92E AB30-AB5A AB5C-AB64 AB66-AB69 FB00-FB06 FF21-FF3A
    FF41-FF5A 10780-10785 10787-107B0 107B2-107BA 1DF00-1DF1E"""
UNBROKEN = frozenset("0123456789").union(
    chr(c) for r in LATIN_RANGES.split() for first, _, last in [r.partition("-")]
    for c in range(int(first, 16), int(last or first, 16) + 1))


@dataclass
class RawDocument:
    """One document: its id (from `# newdoc id`, if any), its text and how many
    gold sentences it holds."""

    doc_id: Optional[str]
    text: str
    sentences: int


def raw_documents(path: Union[str, Path], form: str = "ud",
                  language: str = "en") -> List[RawDocument]:
    """The documents of a CoNLL-U file as raw text in `form` (one of FORMS);
    `language`: the treebank's UD language code, which decides how UD's form
    wraps its lines."""
    if form not in FORMS:
        raise ValueError(f"text form must be one of {', '.join(FORMS)}, got {form!r}.")
    path = Path(path)
    documents = (_ud_documents(path, wraps_between_characters(language)) if form == "ud"
                 else _joined_documents(path, "\n" if form == "lines" else ""))
    if not any(d.sentences for d in documents):
        raise CorpusFormatError(f"{path}: no sentences (an empty CoNLL-U file).")
    return documents


def ud_text(path: Union[str, Path], language: str = "en") -> str:
    """The whole file's text in UD's form, as `conllu_to_text.pl --language
    LANGUAGE` writes it."""
    return "".join(d.text for d in raw_documents(path, "ud", language))


def wraps_between_characters(language: str) -> bool:
    """Whether UD's text form of `language` (a UD language code) wraps its lines
    between characters, as Chinese and Japanese are written, not at whitespace."""
    return WRAPPED_BETWEEN_CHARACTERS.match(language) is not None


# -- UD's form ---------------------------------------------------------------------------------


class _UDText:
    """The text as `conllu_to_text.pl` builds it: sentences are added to a
    buffer when the blank line after them is read, and full lines are cut off
    the buffer at whitespace (or between characters)."""

    def __init__(self, between_characters: bool):
        self.between_characters = between_characters
        self.documents: List[RawDocument] = [RawDocument(None, "", 0)]
        self.buffer = ""  # text not yet written (less than a line, or one unbroken run)
        self.sentence = ""  # the current sentence's text so far
        self.attached = False  # the last token had SpaceAfter=No
        self.newdoc: Optional[str] = None  # a `# newdoc` waiting: its id ("" for none)
        self.newpar = False
        self.started = False  # a sentence has been written

    def write(self, text: str) -> None:
        self.documents[-1].text += text

    def token(self, form: str, misc: List[str]) -> None:
        if "NewPar=Yes" in misc:  # a paragraph starting inside a sentence
            self.add_sentence()
            self.write(self.buffer + PARAGRAPH_BREAK)
            self.buffer = ""
        self.attached = "SpaceAfter=No" in misc
        self.sentence += form + ("" if self.attached else " ")

    def end_sentence(self, counted: bool) -> None:
        """At a blank line (`counted`: one that ends a block of lines)."""
        self.add_sentence()
        self.documents[-1].sentences += counted

    def add_sentence(self) -> None:
        if self.started and (self.newdoc is not None or self.newpar):
            if self.buffer:
                self.write(self.buffer + "\n")
                self.buffer = ""
            self.write("\n")
        if self.newdoc is not None:
            self.documents.append(RawDocument(self.newdoc or None, "", 0))
        self.buffer += self.sentence
        self.sentence, self.started, self.newdoc, self.newpar = "", True, None, False
        self.wrap()

    def wrap(self) -> None:
        """Write every full line of the buffer."""
        if self.between_characters:
            self.wrap_between_characters()
        else:
            self.wrap_at_whitespace()

    def wrap_at_whitespace(self) -> None:
        """Cut at the buffer's last whitespace among its first LINE_WIDTH + 1
        characters, else at its first whitespace; a run with none waits for more
        text if it is attached to what follows."""
        while len(self.buffer) >= LINE_WIDTH:
            spaces = [i for i, c in enumerate(self.buffer) if c in PERL_SPACE]
            within = [i for i in spaces if i <= LINE_WIDTH]
            cut = within[-1] if within else spaces[0] if spaces else None
            if cut:
                self.write(self.buffer[:cut] + "\n")
                self.buffer = self.buffer[cut + 1:]
            elif self.attached:
                break
            else:
                self.write(self.buffer + "\n")
                self.buffer = ""

    def wrap_between_characters(self) -> None:
        """Cut after the last of the buffer's first LINE_WIDTH + 1 characters
        that may end a line, else after the first that may: any character but
        one of UNBROKEN followed by another (a Latin word or a number stays
        whole); whitespace stays where it is."""
        while len(self.buffer) >= LINE_WIDTH:
            last = len(self.buffer) - 1
            ends = [i + 1 for i, c in enumerate(self.buffer)
                    if i == last or not (c in UNBROKEN and self.buffer[i + 1] in UNBROKEN)]
            within = [end for end in ends if end <= LINE_WIDTH + 1]
            cut = within[-1] if within else ends[0]
            self.write(self.buffer[:cut] + "\n")
            self.buffer = self.buffer[cut:]

    def finish(self) -> List[RawDocument]:
        if self.buffer:
            self.write(self.buffer + "\n")
        documents = self.documents
        if len(documents) > 1 and not documents[0].text and not documents[0].sentences:
            documents = documents[1:]
        return documents


def _ud_documents(path: Path, between_characters: bool) -> List[RawDocument]:
    text = _UDText(between_characters)
    covered = 0  # the last word of the multiword token just written
    in_block = False  # lines read since the last blank one
    lines = _text(path).split("\n")
    if lines[-1] == "":
        lines.pop()  # after the last line's end
    for number, line in enumerate(lines, start=1):
        line = line[:-1] if line.endswith("\r") else line
        if all(c in PERL_SPACE for c in line):
            text.end_sentence(counted=in_block)
            covered, in_block = 0, False
            continue
        in_block = True
        if line.startswith("#"):
            keyword = comment_keyword(line)
            if keyword == "newpar":
                text.newpar = True
            elif keyword == "newdoc":
                text.newdoc = newdoc_id(line)
        else:
            columns = line.split("\t")
            if len(columns) != 10:
                raise CorpusFormatError(f"{path}, line {number}: expected 10 tab-separated "
                                        f"columns, got {len(columns)}.")
            ident, form, misc = columns[0], columns[1], columns[9].split("|")
            first, dash, last = ident.partition("-")
            if dash and first.isdigit() and last.isdigit():
                covered = int(last)
                text.token(form, misc)
            elif ident.isdigit() and int(ident) > covered:
                covered = 0
                text.token(form, misc)
    return text.finish()


# -- the joined form ---------------------------------------------------------------------------


def _joined_documents(path: Path, between: str) -> List[RawDocument]:
    """Each paragraph's sentences on one line (`between` ""), or each on its
    own line (`between` a line break)."""
    documents: List[List] = []  # [doc_id, paragraphs: [[sentence text, ...], ...]]
    for block in _blocks(path):
        keywords = {comment_keyword(line): line for line in block.lines}
        if "newdoc" in keywords or not documents:
            documents.append([newdoc_id(keywords.get("newdoc", "#")) or None, []])
        paragraphs = documents[-1][1]
        if "newpar" in keywords or not paragraphs:
            paragraphs.append([])
        paragraphs[-1].append(_sentence_text(path, block))
    return [RawDocument(doc_id, PARAGRAPH_BREAK.join(
                between.join(s.rstrip() if between else s for s in p).rstrip()
                for p in paragraphs),
                        sum(len(p) for p in paragraphs))
            for doc_id, paragraphs in documents]


def newdoc_id(line: str) -> str:
    """The id of a `# newdoc id = ...` line; "" for a `# newdoc` without one."""
    key, _, value = line[1:].partition("=")
    return value.strip() if key.split()[1:] == ["id"] else ""


def block_rows(path: Path, block) -> Iterator[List[str]]:
    """The columns of a sentence block's token and word lines (not its comments,
    nor its empty nodes, which have no text and belong to the enhanced graph)."""
    for line, number in zip(block.lines, block.numbers):
        if line.startswith("#"):
            continue
        columns = line.split("\t")
        if len(columns) != 10:
            raise CorpusFormatError(f"{path}, line {number}: expected 10 tab-separated columns, "
                                    f"got {len(columns)}.")
        if "." not in columns[0]:
            yield columns


def block_tokens(path: Path, block) -> Iterator[List[str]]:
    """The columns of a sentence block's tokens as written: a multiword token's
    range line in place of its words, and every other word."""
    covered = 0  # the last word of the multiword token just given
    for columns in block_rows(path, block):
        ident = columns[0]
        if "-" in ident:
            covered = int(ident.partition("-")[2])
        elif int(ident) <= covered:
            continue
        yield columns


def sentence_tokens(path: Union[str, Path]) -> Iterator[List[List[str]]]:
    """Each sentence of a CoNLL-U file as its tokens' columns (`block_tokens`)."""
    path = Path(path)
    for block in _blocks(path):
        yield list(block_tokens(path, block))


def _sentence_text(path: Path, block) -> str:
    """The sentence's tokens as written, each followed by its space (none
    where MISC says SpaceAfter=No), the last one's kept for the next sentence."""
    return "".join(columns[1] + ("" if "SpaceAfter=No" in columns[9].split("|") else " ")
                   for columns in block_tokens(path, block))
