"""Tokenizers and sentence splitters alone on raw text, each learned from EWT
train: spaCy's English rules, the rules adapted to the treebank
(spacy-elstm.TreebankTokenizer.v1), the character-level tokenizer and
sentence splitter (spacy-elstm.CharTokenizer.v1), and the adapted rules with
the character model's sentences (`elstm_senter`, the same trained weights);
Tokens, Words and Sentences F1 from the CoNLL 2018 script on the raw text of
each split in each text form (UD's own text files, or each paragraph on one
line: spacy_elstm/treebanks/gold_text.py), and their own speed; the character
model trained on each training text asked for ("varied": the sentences laid out
as users' text arrives; "treebank": the converted Docs' text as it is).

    python -m lab.tokenizers [--splits dev] [--text-forms ud joined] [--training-texts varied treebank] [--char-epochs 12] [--width 64] [--seed 0] [--output metrics/tokenizers/tokenizers.json]

No tagger or parser runs, so Sentences counts only the splitters' boundaries
(a blank line ends a sentence for all but spaCy's rules, which split none).
"""
import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import spacy
from spacy.training import Example

from spacy_elstm.text.char_tokenizer import NAME as CHAR_NAME
from spacy_elstm.components.elstm_senter import ELSTMSenter
from spacy_elstm.files import write_json
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer, official_scores, write_raw_conllu
from spacy_elstm.text.treebank_tokenizer import NAME
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs

CONLLU = "assets/UD_English-EWT/en_ewt-ud-{split}.conllu"
SCRIPT = "assets/conll2018-eval/conll18_ud_eval.py"


def tokenizers(train: Path, char_epochs: int, training_texts, seed: int,
               width: int = 64) -> Dict[str, Any]:
    """{name: (text -> Doc, what it learned)}; the character model's names end
    with the training text it learned from."""
    rules = spacy.blank("en")
    learned = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    docs = conllu_to_docs(train, 10, learned.vocab)
    start = time.perf_counter()
    learned.tokenizer.initialize(
        lambda: (Example(learned.make_doc(d.text), d) for d in docs), nlp=learned)
    seconds = time.perf_counter() - start
    found = {"spacy_rules": (rules.make_doc, {}),
             "learned": (learned.make_doc, {"learned": learned.tokenizer.learned,
                                            "initialize_seconds": round(seconds, 1)})}
    for training_text in training_texts:
        chars = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": CHAR_NAME,
                                                                "width": width}}})
        chars.tokenizer.initialize(lambda: (Example(d, d) for d in docs), nlp=chars,
                                   epochs=char_epochs, seed=seed, training_text=training_text)
        senter = ELSTMSenter("elstm_senter", chars.tokenizer.segmenter)
        found[f"characters/{training_text}"] = (chars.make_doc,
                                                {"learned": chars.tokenizer.learned})
        found[f"learned+senter/{training_text}"] = (
            lambda text, senter=senter: senter(learned.make_doc(text)), {})
    return found


def pipeline_with(path: Path, pipes: Sequence[str] = ()):
    """The pipeline at `path` with its tokenizer and these of its components
    alone (the others left out as it loads, each loaded once)."""
    names = spacy.util.load_config(Path(path) / "config.cfg")["nlp"]["pipeline"]
    return spacy.load(path, exclude=[name for name in names if name not in pipes])


def senter_pipeline(path: Path):
    """The pipeline at `path` with its tokenizer and elstm_senter alone."""
    return pipeline_with(path, ("elstm_senter",))


def measure(make_doc, gold: Path, scorer, text_form: str,
            language: Optional[str] = None) -> Dict[str, Any]:
    """Tokens, Words and Sentences F1 of `make_doc` on the gold file's raw text
    in `text_form` (UD's wrapped for `language`, a UD code; English's by
    default), and its words/s."""
    documents = raw_documents(gold, text_form, language or "en")
    texts = [d.text for d in documents]
    start = time.perf_counter()
    docs = [make_doc(text) for text in texts]
    seconds = time.perf_counter() - start
    words = sum(1 for doc in docs for t in doc if not t.is_space)
    return {**official_f1(scorer, gold, docs, documents, ("Tokens", "Words", "Sentences")),
            "words": words, "words_per_second": round(words / seconds, 1)}


def official_f1(scorer, gold: Path, docs: Sequence, documents: Sequence,
                metrics: Sequence[str]) -> Dict[str, float]:
    """The CoNLL 2018 script's F1 (in %, two places) of each of `metrics` for
    the Docs of the raw documents against the gold file."""
    with tempfile.TemporaryDirectory() as temp:
        system = Path(temp) / "tokens.conllu"
        write_raw_conllu(system, docs, documents)
        evaluation = official_scores(scorer, gold, system)
    return {m: round(100 * evaluation[m].f1, 2) for m in metrics}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", nargs="+", default=["dev"])
    parser.add_argument("--char-epochs", type=int, default=12,
                        help="the character model's passes over EWT train")
    parser.add_argument("--text-forms", nargs="+", default=["ud", "joined"])
    parser.add_argument("--training-texts", nargs="+", default=["varied"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--width", type=int, default=64, help="the character model's width")
    parser.add_argument("--output", type=Path, default=Path("metrics/tokenizers/tokenizers.json"))
    args = parser.parse_args(argv)
    scorer = load_scorer(SCRIPT)
    result: Dict[str, Any] = {"train": Path(CONLLU.format(split="train")).name,
                              "char_epochs": args.char_epochs, "seed": args.seed,
                              "width": args.width, "rows": []}
    found = tokenizers(Path(CONLLU.format(split="train")), args.char_epochs,
                       args.training_texts, args.seed, args.width)
    for name, (make_doc, extra) in found.items():
        for split in args.splits:
            gold = Path(CONLLU.format(split=split))
            for form in args.text_forms:
                row = {"tokenizer": name, "split": split, "text_form": form,
                       **measure(make_doc, gold, scorer, form)}
                print(json.dumps(row), flush=True)
                result["rows"].append(row)
        result.setdefault("details", {})[name] = extra
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
