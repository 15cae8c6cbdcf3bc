"""Hard-wrapped lines read as running text.

Text wrapped at a fixed width (UD's text files at 80 characters, e-mail at 72)
breaks its lines wherever the next word would not fit, inside sentences as
often as between them; a line break the writer chose (one sentence per line, a
signature's "Thanks,\\nJohn") often ends a sentence. `unwrapped` tells the two
apart by width: a single line break is a wrap where the line before it and the
next line's first word would not have fitted on one line as wide as the text's
longest of more than one word, every single line break of its paragraph is
one, and the text has at least MIN_WRAPS of them, or its one wrap is in lines
at most WIDEST_LONE_WRAP wide (a longer line before a short one is a sentence
written on its own line). The senter reads wraps as spaces; every other line
break, and every blank line, stays as written.
"""
import re
from typing import List, Optional

# a text whose longest line is narrower than this is not hard-wrapped (lines
# written one by one: one sentence per line, a short message)
NARROWEST_WRAP = 60
MIN_WRAPS = 2
# a text with a single wrap is wrapped where its lines are at most this wide
# (UD's 80 columns, e-mail's 72): a longer line before a short one is a
# sentence written on one line and the next on another
WIDEST_LONE_WRAP = 80
LINE_BREAK = re.compile(r"\r?\n")


def unwrapped(text: str) -> str:
    """The text with every line break that hard wrapping made replaced by
    spaces (CRLF by two), so that each character keeps its offset."""
    if "\n" not in text:
        return text
    lines = LINE_BREAK.split(text)
    breaks = list(LINE_BREAK.finditer(text))
    widths = [len(line.rstrip()) for line in lines]
    width = wrap_width(lines, widths)
    wraps = wrapped_breaks(lines, widths, width)
    count = sum(1 for wrap in wraps if wrap)
    if count < MIN_WRAPS and not (count and width <= WIDEST_LONE_WRAP):
        return text
    out = list(text)
    for wrap, found in zip(wraps, breaks):
        if wrap:
            out[found.start():found.end()] = " " * (found.end() - found.start())
    return "".join(out)


def wrapped_breaks(lines: List[str], widths: List[int], width: int) -> List[Optional[bool]]:
    """For the break after each line but the last (`widths`: each line's,
    trailing spaces left out; `width`: the text's, `wrap_width`): True where it
    is a wrap, False where it is a single line break that is not (and no break
    of its paragraph is then a wrap), None where it borders a blank line."""
    found: List[Optional[bool]] = []
    for k in range(len(lines) - 1):
        if not lines[k].strip() or not lines[k + 1].strip():
            found.append(None)
            continue
        following = lines[k + 1].split(None, 1)[0]
        found.append(width >= NARROWEST_WRAP and not lines[k + 1][0].isspace()
                     and widths[k] + 1 + len(following) > width)
    # a paragraph with a break that is not a wrap is not wrapped at all
    start = 0
    for end in [k for k, wrap in enumerate(found) if wrap is None] + [len(found)]:
        if False in found[start:end]:
            found[start:end] = [False] * (end - start)
        start = end + 1
    return found


def wrap_width(lines: List[str], widths: List[int]) -> int:
    """The width the text was wrapped at: its longest line of more than one
    word (a line of one word longer than that, a URL, is where the wrapping
    could not break), or its longest line where none has more than one."""
    wider = [w for w, line in zip(widths, lines) if len(line.split(None, 1)) > 1]
    return max(wider or widths)
