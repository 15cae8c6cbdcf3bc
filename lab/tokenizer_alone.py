"""The treebank tokenizer alone, as lab.words_with_spaces and lab.joined_words
measure it: learned from a treebank's train split, run on a split's raw text,
scored by the CoNLL 2018 script with one part of what it learned swapped for
each variant in turn; and the command line of the lab's scripts over one
treebank (lab.lemma_lookup's too)."""
import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import spacy
from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc
from spacy.training import Example

from spacy_elstm.files import write_json
from spacy_elstm.text.treebank_tokenizer import NAME
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer, md5, official_scores, write_raw_conllu
from spacy_elstm.treebanks.ud_folder import UDTreebank, find_treebank

SCRIPT = Path("assets/conll2018-eval/conll18_ud_eval.py")


def treebank_parser(doc: str) -> argparse.ArgumentParser:
    """A parser of --treebank, --split (dev), --scorer and --output (required),
    described by the first line of the script's docstring `doc`; a script adds
    its own."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--treebank", type=Path, required=True, help="a UD treebank's folder")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--scorer", type=Path, default=SCRIPT)
    parser.add_argument("--output", type=Path, required=True)
    return parser


def parse_treebank_args(parser: argparse.ArgumentParser, argv, learner: str):
    """The parsed arguments; --split train is refused, since `learner` learns from it."""
    args = parser.parse_args(argv)
    if args.split == "train":
        raise SystemExit(f"--split train: {learner} learns from it; measure dev.")
    return args


def learned_tokenizer(treebank: UDTreebank,
                      **settings) -> Tuple[Language, List[Doc], float]:
    """A blank pipeline of the treebank's language whose tokenizer learned from
    its train split (`settings` as `[initialize.tokenizer]` takes them), that
    split's Docs, and the seconds the tokenizer took to learn."""
    nlp = spacy.blank(treebank.lang, config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    train = conllu_to_docs(treebank.files["train"], 10, nlp.vocab)
    start = time.perf_counter()
    nlp.tokenizer.initialize(lambda: (Example(nlp.make_doc(d.text), d) for d in train), nlp=nlp,
                             **settings)
    return nlp, train, time.perf_counter() - start


def measure(nlp, gold: Path, documents, scorer) -> Dict[str, Any]:
    """Tokens and Words (F1, and Words' precision and recall, in %) and the
    tokens made, those with a space among them."""
    start = time.perf_counter()
    docs = [nlp.make_doc(d.text) for d in documents]
    seconds = time.perf_counter() - start
    tokens = [t.text for doc in docs for t in doc if not t.text.isspace()]
    with tempfile.TemporaryDirectory() as temp:
        system = Path(temp) / "tokens.conllu"
        write_raw_conllu(system, docs, documents)
        scores = official_scores(scorer, gold, system)
    return {"Tokens": round(100 * scores["Tokens"].f1, 2),
            "Words": round(100 * scores["Words"].f1, 2),
            "Words_precision": round(100 * scores["Words"].precision, 2),
            "Words_recall": round(100 * scores["Words"].recall, 2),
            "tokens": len(tokens), "tokens_with_space": sum(len(t.split()) > 1 for t in tokens),
            "seconds": round(seconds, 2)}


def variant_rows(nlp, part: str, variants: Dict[str, Any], describe: Callable[[Any], Dict],
                 gold: Path, documents, scorer) -> List[Dict[str, Any]]:
    """A row per variant of the tokenizer's `part` (an attribute, as
    `spaced_words`): its name, what `describe` says of it, and what `measure`
    gives with it in place; each printed as measured. The learned one is put
    back at the end."""
    learned = getattr(nlp.tokenizer, part)
    rows = []
    for name, variant in variants.items():
        setattr(nlp.tokenizer, part, variant)
        row = {"variant": name, **describe(variant), **measure(nlp, gold, documents, scorer)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    setattr(nlp.tokenizer, part, learned)
    return rows


# what a study of the learned rules compares: the variants of the rules by name,
# and what to say of each beside its scores
RulesStudy = Callable[[Language, List[Doc]],
                      Tuple[Dict[str, Tokenizer], Callable[[Tokenizer], Dict[str, Any]]]]


def rules_study_main(doc: str, argv, study: RulesStudy) -> int:
    """The command line of a study of the learned rules (lab.core_special_cases,
    lab.punctuation_marks): the tokenizer learned from --treebank's train split,
    each of `study(nlp, train)`'s variants of its rules in its place in turn on
    --split's raw text (`variant_rows`), written to --output."""
    args = parse_treebank_args(treebank_parser(doc), argv, "the tokenizer")
    treebank = find_treebank(args.treebank)
    scorer = load_scorer(args.scorer)
    nlp, train, _ = learned_tokenizer(treebank)
    gold = treebank.files[args.split]
    variants, describe = study(nlp, train)
    result: Dict[str, Any] = {
        "treebank": treebank.name, "train": treebank.files["train"].name, "gold": gold.name,
        "text_form": "ud", "scorer_md5": md5(args.scorer),
        "tokenizer_learned": nlp.tokenizer.learned}
    result["rows"] = variant_rows(nlp, "rules", variants, describe, gold,
                                  raw_documents(gold, "ud", treebank.code), scorer)
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0
