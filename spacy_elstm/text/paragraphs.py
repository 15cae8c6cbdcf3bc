"""The paragraph rule of raw text, the one place it is decided: a blank line
(a line break, then nothing but spaces or tabs, then another line break; CRLF
counts) ends a paragraph, and so a sentence. The tokenizers, `elstm_senter`,
the segmenter's windows and the text units of `input_modes.py` (which
`spacy-elstm parse` reads files by) read it from here.
"""
import re

import numpy
from spacy.attrs import IDX, SENT_START
from spacy.tokens import Doc

BLANK_LINE = re.compile(r"\n[^\S\n]*\n")


def ends_paragraph(whitespace: str) -> bool:
    """Whether this run of whitespace between two words holds a blank line."""
    return BLANK_LINE.search(whitespace) is not None


def is_blank_line(line: str) -> bool:
    """Whether a line (without its line break) is blank: a paragraph ends at it."""
    return BLANK_LINE.fullmatch(f"\n{line}\n") is not None


def paragraph_breaks(text: str) -> numpy.ndarray:
    """Where the text's blank lines start (int64, sorted): a word after one of
    them, with only whitespace between, starts a paragraph."""
    return numpy.array([m.start() for m in BLANK_LINE.finditer(text)], dtype="int64")


def mark_paragraph_starts(doc: Doc, text: str) -> None:
    """Start a sentence at each token after a whitespace token that holds a
    blank line, in one array operation (spaCy's per-token setter checks the
    whole Doc each time); `text` is the Doc's."""
    breaks = paragraph_breaks(text)
    if not breaks.size or len(doc) < 2:
        return
    idx = doc.to_array(IDX).astype("int64")
    holding = numpy.unique(numpy.searchsorted(idx, breaks, side="right") - 1)
    follows = [k + 1 for k in holding.tolist()
               if k + 1 < len(doc) and doc[k].is_space and ends_paragraph(doc[k].text)]
    if follows:
        starts = doc.to_array(SENT_START).astype("int64")
        starts[follows] = 1
        doc.from_array([SENT_START], starts.astype("uint64").reshape(-1, 1))
