"""The input modes: how a text is cut into docs, and how a doc's text becomes
the Doc a pipeline runs on (as Stanza's `tokenize_no_ssplit` and
`tokenize_pretokenized`, CoreNLP's `ssplit.newlineIsSentenceBreak` and
UDPipe's presegmented input offer them). `spacy-elstm parse` decides both here
(`--text-unit`, `--presegmented`, `--pretokenized`).

The text unit (`TEXT_UNITS`): a doc per paragraph (a run of non-blank lines,
by the paragraph rule of `paragraphs.py`), per non-blank line, or the whole
text (from its first to its last non-blank line). A unit's lines are joined
by "\\n" (a CRLF line break reads as "\\n"); the blank lines between units
belong to none.

The mode (`MODES`): "raw", the pipeline's tokenizer and sentence splitter;
"sentences", the tokenizer, then one sentence a line, every token's sentence
start set so that `elstm_senter` keeps them (and spaCy's parser, and this
package's parsers, which parse within sentences); "pretokenized", words
separated by whitespace and one sentence a line, the Doc built from the words
(no tokenizer; the words are joined by single spaces in its text).
`make_doc` gives the Doc, and `nlp(doc)` or `nlp.pipe(docs)` runs the rest of
the pipeline on it; `make_docs` gives the Docs of many texts, the tokenizer
reading them a batch at a time (`tokenizer.pipe`), as the treebank tokenizer's
character model reads a batch's texts together (faster than a text at a time:
`python -m lab.treebank_speed --per-text`, docs/results/treebanks.md).
"""
import re
from typing import Iterable, Iterator, List, Sequence

import numpy
from spacy.attrs import IDX, IS_SPACE, LENGTH, SENT_START
from spacy.errors import Errors
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import minibatch

from .paragraphs import is_blank_line

TEXT_UNITS = ("paragraph", "line", "file")
MODES = ("raw", "sentences", "pretokenized")


def check_choice(name: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}.")


def mode_of(presegmented: bool = False, pretokenized: bool = False) -> str:
    """The mode the command line's flags ask for (pretokenized implies presegmented)."""
    return "pretokenized" if pretokenized else "sentences" if presegmented else "raw"


def text_units(text: str, unit: str = "paragraph") -> List[str]:
    """The docs' texts that `text` is cut into, as `spacy-elstm parse
    --text-unit` cuts a file (a leading byte-order mark dropped)."""
    check_choice("text unit", unit, TEXT_UNITS)
    lines = [line.rstrip("\r") for line in text.removeprefix("\ufeff").split("\n")]
    if unit == "line":
        return [line for line in lines if not is_blank_line(line)]
    if unit == "file":
        kept = [i for i, line in enumerate(lines) if not is_blank_line(line)]
        return ["\n".join(lines[kept[0]:kept[-1] + 1])] if kept else []
    units: List[str] = []
    paragraph: List[str] = []
    for line in lines + [""]:  # a blank line ends the last paragraph
        if not is_blank_line(line):
            paragraph.append(line)
        elif paragraph:
            units.append("\n".join(paragraph))
            paragraph = []
    return units


def paragraphs(text: str) -> List[str]:
    """The text's paragraphs: its runs of non-blank lines, each as written."""
    return text_units(text, "paragraph")


def make_doc(nlp: Language, text: str, mode: str = "raw") -> Doc:
    """The Doc of `text` for the pipeline to complete, in `mode` (see the
    module's docstring): tokenized by the pipeline's tokenizer ("raw",
    "sentences") or built from the whitespace-separated words
    ("pretokenized"), with every sentence start set at each line's first word
    in "sentences" and "pretokenized"."""
    check_choice("mode", mode, MODES)
    if mode == "pretokenized":
        lines = [line.split() for line in text.split("\n")]
        words = [word for line in lines for word in line]
        starts = [i == 0 for line in lines for i in range(len(line))]
        spaces = [True] * len(words)
        if words:
            spaces[-1] = False
        return Doc(nlp.vocab, words=words, spaces=spaces, sent_starts=starts)
    doc = nlp.make_doc(text)
    if mode == "sentences":
        set_line_starts(doc)
    return doc


def make_docs(nlp: Language, texts: Iterable[str], mode: str = "raw",
              batch_size: int = 64) -> Iterator[Doc]:
    """`make_doc` of each text, in order: in "raw" and "sentences" the
    pipeline's tokenizer reads `batch_size` texts at a time where it has a
    `pipe` (spaCy's and this package's tokenizers do), a text longer than
    `nlp.max_length` refused as `nlp.make_doc` refuses it."""
    check_choice("mode", mode, MODES)
    tokenize = getattr(nlp.tokenizer, "pipe", None)
    if mode == "pretokenized" or tokenize is None:
        yield from (make_doc(nlp, text, mode) for text in texts)
        return
    for batch in minibatch(texts, batch_size):
        for text in batch:
            if len(text) > nlp.max_length:
                raise ValueError(Errors.E088.format(length=len(text), max_length=nlp.max_length))
        for doc in tokenize(batch, batch_size=batch_size):
            if mode == "sentences":
                set_line_starts(doc)
            yield doc


def set_line_starts(doc: Doc) -> None:
    """One sentence a line: every token's sentence start set, True at the
    first word after a line break (and at the Doc's first token), False
    elsewhere (whitespace tokens included), so the sentence splitter keeps them;
    found over arrays and set in one operation (spaCy's per-token setter checks
    the whole Doc each time)."""
    if not len(doc):
        return
    starts = numpy.full(len(doc), -1, dtype="int64")  # SENT_START: 1 yes, -1 no
    starts[0] = 1
    idx, length, space = doc.to_array([IDX, LENGTH, IS_SPACE]).astype("int64").T
    words = numpy.flatnonzero(space == 0)
    breaks = numpy.array([m.start() for m in re.finditer("\n", doc.text)], dtype="int64")
    after_break = (numpy.searchsorted(breaks, idx[words[1:]])
                   > numpy.searchsorted(breaks, idx[words[:-1]] + length[words[:-1]]))
    starts[words[1:][after_break]] = 1
    doc.from_array([SENT_START], starts.astype("uint64").reshape(-1, 1))
