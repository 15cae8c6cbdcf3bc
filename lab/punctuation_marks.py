"""Marks of punctuation split off any word (spacy_elstm/text/treebank_tokenizer.py,
step 2): Tokens and Words F1 of the treebank tokenizer learned from the
treebank's train split, on a split's raw text, scored alone by the CoNLL 2018
script, as `[initialize.tokenizer]` leaves it ("learned") and with the marks it
learned taken out of its prefix and suffix rules again ("without marks"; its
special cases kept).

    python -m lab.punctuation_marks --treebank assets/UD_Greek-GDT --split dev --output metrics/treebanks/UD_Greek-GDT/tokenizer-marks-dev.json
"""
import re
from typing import Any, Dict, List

from spacy.tokenizer import Tokenizer

from spacy_elstm.files import write_json
from spacy_elstm.text.treebank_tokenizer import _copied
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer, md5
from spacy_elstm.treebanks.ud_folder import find_treebank

from .tokenizer_alone import learned_tokenizer, parse_treebank_args, treebank_parser, variant_rows


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


def main(argv=None) -> int:
    parser = treebank_parser(__doc__)
    args = parse_treebank_args(parser, argv, "the tokenizer")
    treebank = find_treebank(args.treebank)
    scorer = load_scorer(args.scorer)
    nlp, _, _ = learned_tokenizer(treebank)
    gold = treebank.files[args.split]
    documents = raw_documents(gold, "ud", treebank.code)
    learned = nlp.tokenizer.rules
    marks = nlp.tokenizer.learned["punctuation_marks"]
    result: Dict[str, Any] = {
        "treebank": treebank.name, "train": treebank.files["train"].name, "gold": gold.name,
        "text_form": "ud", "scorer_md5": md5(args.scorer),
        "tokenizer_learned": nlp.tokenizer.learned}
    result["rows"] = variant_rows(
        nlp, "rules", {"without marks": without_marks(learned, marks), "learned": learned},
        lambda rules: {"marks": described(marks) if rules is learned else "none"},
        gold, documents, scorer)
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
