"""Marks of punctuation split off any word (spacy_elstm/text/treebank_tokenizer.py,
step 2): Tokens and Words F1 of the treebank tokenizer learned from the
treebank's train split, on a split's raw text, scored alone by the CoNLL 2018
script, as `[initialize.tokenizer]` leaves it ("learned") and with the marks it
learned taken out of its prefix and suffix rules again ("without marks"; its
special cases kept).

    python -m lab.punctuation_marks --treebank assets/UD_Greek-GDT --split dev --output metrics/treebanks/UD_Greek-GDT/tokenizer-marks-dev.json
"""
import re
from typing import Dict, List

from spacy.tokenizer import Tokenizer

from spacy_elstm.text.treebank_tokenizer import _copied

from .tokenizer_alone import rules_study_main


def without_marks(rules: Tokenizer, marks: Dict[str, List[str]]) -> Tokenizer:
    """A copy of the rules whose prefix and suffix patterns end without the
    learned marks (appended last, `^<mark>` and `<mark>$`, as spaCy compiles them)."""
    copy = _copied(rules)
    for side, search, piece in (("prefix", "prefix_search", "|^{}"),
                                ("suffix", "suffix_search", "|{}$")):
        if not marks[side]:
            continue
        pattern = getattr(rules, search).__self__.pattern
        tail = "".join(piece.format(re.escape(mark)) for mark in marks[side])
        if not pattern.endswith(tail):
            raise SystemExit(f"lab.punctuation_marks: the {side} patterns do not end with "
                             f"the learned marks {marks[side]}")
        setattr(copy, search, re.compile(pattern[:-len(tail)]).search)
    return copy


def described(marks: Dict[str, List[str]]) -> str:
    """`prefix - ; suffix - .`, or `none`."""
    return "; ".join(f"{side} {' '.join(found)}" for side, found in marks.items() if found) \
        or "none"


def study(nlp, train):
    learned, marks = nlp.tokenizer.rules, nlp.tokenizer.learned["punctuation_marks"]
    return ({"without marks": without_marks(learned, marks), "learned": learned},
            lambda rules: {"marks": described(marks) if rules is learned else "none"})


def main(argv=None) -> int:
    return rules_study_main(__doc__, argv, study)


if __name__ == "__main__":
    raise SystemExit(main())
