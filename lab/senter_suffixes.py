"""elstm_senter's word-level model with and without word endings
(`word_suffix_chars`), on one treebank's dev split: the tokenizer and the
character model trained once as `configs/raw/best_elstm.cfg` trains them (its
settings and its `[initialize]`: 12 epochs, at least 12,000 sentences' worth
each, seed 0), then a word-level model per ending length beside it, each
trained as the config trains it (8 epochs as many times over); Tokens, Words
and Sentences F1 by the CoNLL 2018 script on the split's raw text in UD's form
for the treebank's language, and where sentences end after each mark (found,
extra). On Uyghur-UDT a sentence may end after `،`, which also divides
clauses; the endings of its rare words (a finite verb's) may tell which.

    python -m lab.senter_suffixes --treebank assets/UD_Uyghur-UDT --output metrics/treebanks/UD_Uyghur-UDT/senter-suffixes-dev.json [--suffix-chars 0 3] [--seed 0]
    python -m lab.senter_suffixes --treebank assets/UD_English-EWT --output metrics/tokenizers/senter-suffixes-seed0.json
"""
import json
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, NamedTuple

import spacy
from spacy_elstm.files import write_json
from spacy_elstm.text.treebank_tokenizer import NAME
from spacy_elstm.text.word_sentences import WordSentences
from spacy_elstm.text.wrapping import unwrapped
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer, official_scores, write_raw_conllu
from spacy_elstm.treebanks.ud_folder import find_treebank

from .sentence_ends import compare, sentence_ends
from .tokenizer_alone import parse_treebank_args, treebank_parser

CONFIG = Path("configs/raw/best_elstm.cfg")


def measure(nlp, gold: Path, documents, scorer) -> Dict[str, Any]:
    """Tokens, Words and Sentences F1 (in %) of the pipeline on the raw
    documents, and its sentence ends by mark."""
    docs = [nlp(d.text) for d in documents]
    with tempfile.TemporaryDirectory() as temp:
        system = Path(temp) / "sentences.conllu"
        write_raw_conllu(system, docs, documents)
        scores = official_scores(scorer, gold, system)
        marks = compare(sentence_ends(gold), sentence_ends(system))
    return {**{m: round(100 * scores[m].f1, 2) for m in ("Tokens", "Words", "Sentences")},
            "ends_by_mark": marks}


class CharsTrained(NamedTuple):
    """A blank pipeline of a treebank's language with its learned tokenizer and
    an elstm_senter (the shipped config's) whose character model is trained;
    the training layouts the word-level model learns from; the config's
    `[initialize]` of the senter; the passes over the text per epoch."""

    treebank: Any
    nlp: Any
    senter: Any
    layouts: Any
    training: Dict[str, Any]
    repeats: int
    char_seconds: float


def characters_trained(treebank_folder: Path, seed: int, char_models: int = 1) -> CharsTrained:
    """The tokenizer and the senter's character model (`char_models` of them,
    of as many seeds) trained on the treebank's train split as
    `configs/raw/best_elstm.cfg` trains them (`seed`); the senter's models of
    text without punctuation left out (the dev text has punctuation: the first
    pair splits it)."""
    treebank = find_treebank(treebank_folder)
    corpus = Path("corpus") / treebank.name / f"{treebank.stem}-ud-train.spacy"
    config = spacy.util.load_config(CONFIG, interpolate=False)
    shipped = {k: v for k, v in config["components"]["elstm_senter"].items() if k != "factory"}
    training = dict(config["initialize"]["components"]["elstm_senter"])
    nlp = spacy.blank(treebank.lang, config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    nlp.tokenizer.initialize(lambda: [], nlp=nlp, min_count=1, treebank=str(corpus),
                             seed=seed)  # as [initialize.tokenizer] has it
    senter = nlp.add_pipe("elstm_senter", config=shipped)
    senter.unpunctuated = None
    senter.segmenter.models = char_models
    start = time.perf_counter()
    layouts = senter.segmenter.learn(None, str(corpus), nlp.vocab, epochs=training["epochs"],
                                     batch_size=32, learn_rate=0.002, seed=seed,
                                     training_text="varied",
                                     min_epoch_sentences=training["min_epoch_sentences"],
                                     read_as=unwrapped)
    senter.segmenter.learned["wraps"] = "as spaces"
    return CharsTrained(treebank, nlp, senter, layouts, training,
                        senter.segmenter.learned.get("epoch_repeats", 1),
                        round(time.perf_counter() - start, 1))


def main(argv=None) -> int:
    parser = treebank_parser(__doc__)
    parser.add_argument("--suffix-chars", type=int, nargs="+", default=[0, 3],
                        help="the ending lengths the word-level model reads (0: none, as shipped)")
    parser.add_argument("--seed", type=int, default=0)
    args = parse_treebank_args(parser, argv, "the senter")
    trained = characters_trained(args.treebank, args.seed)
    treebank, nlp, senter, layouts, training, repeats = trained[:6]
    word_settings = dict(senter.words.settings)
    gold = treebank.files[args.split]
    documents = raw_documents(gold, "ud", treebank.code)
    scorer = load_scorer(args.scorer)
    result: Dict[str, Any] = {
        "treebank": treebank.name, "split": args.split, "text_form": "ud", "seed": args.seed,
        "config": CONFIG.as_posix(), "char_seconds": trained.char_seconds,
        "epoch_repeats": repeats, "word_epochs": training["word_epochs"] * repeats,
        "end_threshold": senter.end_threshold, "rows": []}
    for suffix_chars in args.suffix_chars:
        settings = {**word_settings, **({"suffix_chars": suffix_chars} if suffix_chars else {})}
        senter.words = WordSentences(settings, senter.segmenter.owner)
        senter.words.train(layouts, epochs=training["word_epochs"] * repeats, batch_size=32,
                           learn_rate=0.002, seed=args.seed, read_as=unwrapped)
        row = {"suffix_chars": suffix_chars, "word_seconds": senter.words.learned["seconds"],
               **measure(nlp, gold, documents, scorer)}
        print(json.dumps(row, ensure_ascii=False), flush=True)
        result["rows"].append(row)
        write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
