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
import argparse
import json
import time
from pathlib import Path
from typing import Any, Dict

import spacy
from spacy.training import Example

from spacy_elstm.files import write_json
from spacy_elstm.text.joined_words import JoinedWords
from spacy_elstm.text.treebank_tokenizer import NAME
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer, md5
from spacy_elstm.treebanks.ud_folder import find_treebank

from .words_with_spaces import SCRIPT, measure


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--treebank", type=Path, required=True, help="a UD treebank's folder")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--text-form", default="ud")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scorer", type=Path, default=SCRIPT)
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.split == "train":
        raise SystemExit("--split train: the tokenizer learns from it; measure dev.")
    treebank = find_treebank(args.treebank)
    scorer = load_scorer(args.scorer)
    nlp = spacy.blank(treebank.lang, config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    train = conllu_to_docs(treebank.files["train"], 10, nlp.vocab)
    start = time.perf_counter()
    nlp.tokenizer.initialize(lambda: (Example(nlp.make_doc(d.text), d) for d in train), nlp=nlp,
                             seed=args.seed)
    seconds = time.perf_counter() - start
    learned = nlp.tokenizer.joined_words
    if not learned:
        raise SystemExit(f"{treebank.name}: the rules follow its words (training-word F1 "
                         f"{nlp.tokenizer.learned['f1_after_rules']}); no model was learned.")
    gold = treebank.files[args.split]
    documents = raw_documents(gold, args.text_form, treebank.code)
    result: Dict[str, Any] = {
        "treebank": treebank.name, "train": treebank.files["train"].name, "gold": gold.name,
        "text_form": args.text_form, "scorer_md5": md5(args.scorer), "seed": args.seed,
        "initialize_seconds": round(seconds, 1),
        "tokenizer_learned": nlp.tokenizer.learned, "rows": []}
    variants = {"rules": JoinedWords(), "model": JoinedWords(learned.segmenter),
                "learned": learned}
    for name, joined in variants.items():
        nlp.tokenizer.joined_words = joined
        row = {"variant": name, "chunks": len(joined.chunks),
               **measure(nlp, gold, documents, scorer)}
        print(json.dumps(row), flush=True)
        result["rows"].append(row)
    nlp.tokenizer.joined_words = learned
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
