"""Special cases of a chunk's core (spacy_elstm/text/treebank_tokenizer.py,
step 3): Tokens and Words F1 of the treebank tokenizer learned from the
treebank's train split, on a split's raw text, scored alone by the CoNLL 2018
script, as `[initialize.tokenizer]` leaves it ("learned") and with the special
cases of cores taken out again ("chunks only": the tokenizer before it learned
them).

    python -m lab.core_special_cases --treebank assets/UD_Turkish-IMST --split dev --output metrics/treebanks/UD_Turkish-IMST/tokenizer-cores-dev.json
"""
from spacy.tokenizer import Tokenizer

from spacy_elstm.text.treebank_tokenizer import _chunk_analyses, _copied, _core_analyses

from .tokenizer_alone import rules_study_main


def without_cores(rules: Tokenizer, train) -> Tokenizer:
    """A copy of the rules without the special cases of cores that the
    training text never has as a chunk."""
    chunks = _chunk_analyses(train)
    cores = set(_core_analyses(chunks)) - set(chunks)
    copy = _copied(rules)
    copy.rules = {key: value for key, value in rules.rules.items() if key not in cores}
    return copy


def study(nlp, train):
    learned = nlp.tokenizer.rules
    return ({"chunks only": without_cores(learned, train), "learned": learned},
            lambda rules: {"special_cases": len(rules.rules)})


def main(argv=None) -> int:
    return rules_study_main(__doc__, argv, study)


if __name__ == "__main__":
    raise SystemExit(main())
