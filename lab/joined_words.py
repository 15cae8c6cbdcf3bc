"""Words written together (spacy_elstm/text/joined_words.py): Tokens and Words
F1 of the treebank tokenizer (spacy-elstm.TreebankTokenizer.v1, learned from
the treebank's train split) on a split's raw text, scored alone by the CoNLL
2018 script: "rules" without the character model (a tokenizer saved before it:
the language's rules adapted to the treebank, chunks seen in training as
special cases), "model" the character model deciding every chunk, "learned"
the model with the chunks seen in training keeping their analysis, as
`[initialize.tokenizer]` leaves it.

    python -m lab.joined_words --treebank assets/UD_Coptic-Scriptorium --split dev --output metrics/treebanks/UD_Coptic-Scriptorium/joined-words-dev.json

No tagger or parser runs, and the tokenizer splits no sentences (only a blank
line ends one), so Sentences is left out.
"""
from typing import Any, Dict

from spacy_elstm.files import write_json
from spacy_elstm.text.joined_words import JoinedWords
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer, md5
from spacy_elstm.treebanks.ud_folder import find_treebank

from .tokenizer_alone import learned_tokenizer, parse_treebank_args, treebank_parser, variant_rows


def main(argv=None) -> int:
    parser = treebank_parser(__doc__)
    parser.add_argument("--text-form", default="ud")
    parser.add_argument("--seed", type=int, default=0)
    args = parse_treebank_args(parser, argv, "the tokenizer")
    treebank = find_treebank(args.treebank)
    scorer = load_scorer(args.scorer)
    nlp, _, seconds = learned_tokenizer(treebank, seed=args.seed)
    learned = nlp.tokenizer.joined_words
    if not learned:
        raise SystemExit(f"{treebank.name}: the rules follow its words (training-word F1 "
                         f"{nlp.tokenizer.learned['f1_after_rules']}); no model was learned.")
    gold = treebank.files[args.split]
    documents = raw_documents(gold, args.text_form, treebank.code)
    result: Dict[str, Any] = {
        "treebank": treebank.name, "train": treebank.files["train"].name, "gold": gold.name,
        "text_form": args.text_form, "scorer_md5": md5(args.scorer), "seed": args.seed,
        "initialize_seconds": round(seconds, 1), "tokenizer_learned": nlp.tokenizer.learned}
    result["rows"] = variant_rows(
        nlp, "joined_words", {"rules": JoinedWords(), "model": JoinedWords(learned.segmenter),
                              "learned": learned},
        lambda joined: {"chunks": len(joined.chunks)}, gold, documents, scorer)
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
