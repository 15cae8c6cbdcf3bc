"""Words that contain a space (spacy_elstm/text/spaced_words.py): Tokens and
Words F1 of the treebank tokenizer (spacy-elstm.TreebankTokenizer.v1, learned
from the treebank's train split) on a split's raw text, scored alone by the
CoNLL 2018 script, without the lexicon of words with spaces ("none": the
tokenizer before it learned them) and with each way of learning and looking it
up; "learned" is the tokenizer as `[initialize.tokenizer]` leaves it.

    python -m lab.words_with_spaces --treebank assets/UD_Vietnamese-VTB --split dev --output metrics/treebanks/UD_Vietnamese-VTB/tokenizer-dev.json

Variants: "all/CASE" keeps every training word with a space, "kept/CASE" those
written together more often than apart; CASE is how a text is looked up
(SpacedWords' `case`); "+runs" adds the runs of capitalised syllables, joined
where the training data writes them as one word more often than not. No
tagger or parser runs, and the tokenizer splits no sentences (only a blank
line ends one), so Sentences is left out.
"""
import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

import spacy
from spacy.training import Example

from spacy_elstm.files import write_json
from spacy_elstm.text.spaced_words import CASES, SpacedWords, word_key
from spacy_elstm.text.treebank_tokenizer import NAME
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs, read_conllu
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer, md5, official_scores, write_raw_conllu
from spacy_elstm.treebanks.ud_folder import find_treebank

SCRIPT = Path("assets/conll2018-eval/conll18_ud_eval.py")


def variants(docs: List) -> Dict[str, SpacedWords]:
    """{name: lexicon} of every way measured, "none" first."""
    found = {"none": SpacedWords()}
    for keep_all, kind in ((True, "all"), (False, "kept")):
        for case in CASES:
            found[f"{kind}/{case}"] = SpacedWords.learn(docs, case=case, keep_all=keep_all,
                                                        runs=False)
    for case in CASES:
        found[f"kept/{case}+runs"] = SpacedWords.learn(docs, case=case)
    return found


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


def spaced_words_of(path: Path) -> List[str]:
    """The words with a space of a CoNLL-U file, as the lexicon writes them."""
    return [word_key(t.text) for doc in read_conllu(path) for t in doc if len(t.text.split()) > 1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--treebank", type=Path, required=True, help="a UD treebank's folder")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--text-form", default="ud")
    parser.add_argument("--scorer", type=Path, default=SCRIPT)
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.split == "train":
        raise SystemExit("--split train: the tokenizer learns from it; measure dev.")
    treebank = find_treebank(args.treebank)
    scorer = load_scorer(args.scorer)
    nlp = spacy.blank(treebank.lang, config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    train = conllu_to_docs(treebank.files["train"], 10, nlp.vocab)
    nlp.tokenizer.initialize(lambda: (Example(nlp.make_doc(d.text), d) for d in train), nlp=nlp)
    learned = nlp.tokenizer.spaced_words
    gold = treebank.files[args.split]
    documents = raw_documents(gold, args.text_form, treebank.code)
    held_out = spaced_words_of(gold)
    result: Dict[str, Any] = {
        "treebank": treebank.name, "train": treebank.files["train"].name, "gold": gold.name,
        "text_form": args.text_form, "scorer_md5": md5(args.scorer),
        "learned": {"case": learned.case, "capitalised_runs": learned.capitalised_runs},
        "tokenizer_learned": nlp.tokenizer.learned,
        "gold_words_with_space": len(held_out),
        "gold_words_with_space_in_train": sum(w in SpacedWords.learn(
            train, case="as_written", keep_all=True).words for w in held_out),
        "rows": []}
    lexicons = {**variants(train), "learned": learned}
    for name, lexicon in lexicons.items():
        nlp.tokenizer.spaced_words = lexicon
        row = {"variant": name, "lexicon": len(lexicon), "joins_runs": lexicon.joins_runs,
               **measure(nlp, gold, documents, scorer)}
        print(json.dumps(row), flush=True)
        result["rows"].append(row)
    nlp.tokenizer.spaced_words = learned
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
