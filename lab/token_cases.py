"""The treebank tokenizer with and without its special cases of tokens (step 3
of `text/treebank_tokenizer.py`: a word or multiword token whose most frequent
training analysis the rules miss becomes a special case, which the rules also
apply once a chunk's punctuation is split off), learned from a treebank's train
split, on a split's raw text in UD's form, scored alone by the CoNLL 2018
script (lab.tokenizer_alone): Tokens and Words.

    python -m lab.token_cases --treebank assets/UD_Turkish-IMST --output metrics/treebanks/UD_Turkish-IMST/token-cases-dev.json
"""
import json
from typing import Any, Dict
from unittest import mock

from spacy_elstm.files import write_json
from spacy_elstm.text import treebank_tokenizer
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer
from spacy_elstm.treebanks.ud_folder import find_treebank

from .tokenizer_alone import learned_tokenizer, measure, parse_treebank_args, treebank_parser


def main(argv=None) -> int:
    parser = treebank_parser(__doc__)
    args = parse_treebank_args(parser, argv, "the tokenizer")
    treebank = find_treebank(args.treebank)
    gold = treebank.files[args.split]
    documents = raw_documents(gold, "ud", treebank.code)
    scorer = load_scorer(args.scorer)
    result: Dict[str, Any] = {"treebank": treebank.name, "split": args.split,
                              "text_form": "ud", "rows": []}
    for variant in ("without token cases", "with token cases"):
        if variant.startswith("without"):
            with mock.patch.object(treebank_tokenizer, "_token_analyses", lambda docs: {}):
                nlp, _, seconds = learned_tokenizer(treebank, min_count=1)
        else:
            nlp, _, seconds = learned_tokenizer(treebank, min_count=1)
        learned = nlp.tokenizer.learned
        row = {"variant": variant, "learn_seconds": round(seconds, 1),
               "token_special_cases": learned.get("token_special_cases", 0),
               "special_cases": learned["special_cases"],
               **measure(nlp, gold, documents, scorer)}
        print(json.dumps(row), flush=True)
        result["rows"].append(row)
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
