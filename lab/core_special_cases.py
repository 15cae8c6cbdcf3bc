"""Special cases of a chunk's core (spacy_elstm/text/treebank_tokenizer.py,
step 3): Tokens and Words F1 of the treebank tokenizer learned from the
treebank's train split, on a split's raw text, scored alone by the CoNLL 2018
script, as `[initialize.tokenizer]` leaves it ("learned") and with the special
cases of cores taken out again ("chunks only": the tokenizer before it learned
them).

    python -m lab.core_special_cases --treebank assets/UD_Turkish-IMST --split dev --output metrics/treebanks/UD_Turkish-IMST/tokenizer-cores-dev.json
"""
from typing import Any, Dict

from spacy.tokenizer import Tokenizer

from spacy_elstm.files import write_json
from spacy_elstm.text.treebank_tokenizer import _chunk_analyses, _copied, _core_analyses
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer, md5
from spacy_elstm.treebanks.ud_folder import find_treebank

from .tokenizer_alone import learned_tokenizer, parse_treebank_args, treebank_parser, variant_rows


def without_cores(rules: Tokenizer, train) -> Tokenizer:
    """A copy of the rules without the special cases of cores that the
    training text never has as a chunk."""
    chunks = _chunk_analyses(train)
    cores = set(_core_analyses(chunks)) - set(chunks)
    copy = _copied(rules)
    copy.rules = {key: value for key, value in rules.rules.items() if key not in cores}
    return copy


def main(argv=None) -> int:
    parser = treebank_parser(__doc__)
    args = parse_treebank_args(parser, argv, "the tokenizer")
    treebank = find_treebank(args.treebank)
    scorer = load_scorer(args.scorer)
    nlp, train, _ = learned_tokenizer(treebank)
    gold = treebank.files[args.split]
    documents = raw_documents(gold, "ud", treebank.code)
    learned = nlp.tokenizer.rules
    result: Dict[str, Any] = {
        "treebank": treebank.name, "train": treebank.files["train"].name, "gold": gold.name,
        "text_form": "ud", "scorer_md5": md5(args.scorer),
        "tokenizer_learned": nlp.tokenizer.learned}
    result["rows"] = variant_rows(
        nlp, "rules", {"chunks only": without_cores(learned, train), "learned": learned},
        lambda rules: {"special_cases": len(rules.rules)}, gold, documents, scorer)
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
