"""A text longer than `spacy-elstm parse --max-length` cut into pieces, the one
place where the cut is decided (`piece_end`).

Each piece is at most the limit in characters, and the pieces joined give back
the text exactly. A piece ends after a run of whitespace, which stays at its
end, so every piece but the first starts with a word: before the last word
within the limit that starts a line (the line break and any blank lines or
indentation after it end the piece), else before the last word within the
limit. One sentence a line (the "sentences" and "pretokenized" input modes of
`input_modes.py`) is cut at line breaks only, never inside a sentence. Where no
piece can be made (a word longer than the limit, or a line in those modes),
`NoCutError` says why.

A piece's end depends only on the text from its start to one character past
the limit, so a reader that holds a text a line at a time (`parsing/records.py`)
and one that starts again at a piece's start cut it at the same places."""
import re
from typing import List

NON_SPACE = re.compile(r"\S")
NON_SPACE_RUN = re.compile(r"\S+")


class NoCutError(ValueError):
    """No piece can start at `start`; `position` is where the word (or line)
    that is too long starts."""

    def __init__(self, message: str, position: int):
        super().__init__(message)
        self.position = position


def piece_end(text: str, start: int, limit: int, mode: str = "raw") -> int:
    """Where the piece of `text` that starts at `start` ends (see the module's
    docstring): the text's end if it is within `limit` characters. `mode` is
    the input mode: "raw" cuts at line breaks or whitespace, the others at line
    breaks only."""
    if len(text) - start <= limit:
        return len(text)
    word = start + limit  # the last word start within the limit
    while word > start and (text[word].isspace() or not text[word - 1].isspace()):
        word -= 1
    line_break = text.rfind("\n", start, word)
    if line_break >= 0:
        return NON_SPACE.search(text, line_break).start()
    if word > start and mode == "raw":
        return word
    raise _no_cut(text, start, limit, mode)


def pieces(text: str, limit: int, mode: str = "raw") -> List[str]:
    """The pieces of `text` (itself, if it is within `limit`); NoCutError
    where none can be made."""
    found, start = [], 0
    while start < len(text):
        end = piece_end(text, start, limit, mode)
        found.append(text[start:end])
        start = end
    return found


def _no_cut(text: str, start: int, limit: int, mode: str) -> NoCutError:
    found = NON_SPACE_RUN.search(text, start)
    if found is None:  # whitespace to the end
        what, where, length = "run of whitespace", start, len(text) - start
    else:
        what, where, length = "word", found.start(), len(found.group())
    rule = "a text is cut into pieces at line breaks or whitespace only"
    if mode != "raw" and found is not None:
        line_end = text.find("\n", where)
        what, length = "line", (len(text) if line_end < 0 else line_end) - where
        rule = "one sentence a line: a text is cut into pieces at line breaks only"
    alone = length > limit
    return NoCutError(f"a {what} of {length} characters"
                      f"{'' if alone else ' and the whitespace around it'} "
                      f"{'is' if alone else 'are'} longer than --max-length {limit} ({rule})",
                      where)
