"""What `elstm_senter` costs and what it finds, by the depth of its two models:
the character model and the word-level model each with one or two
bidirectional layers, trained as `configs/raw/` train them (EWT train in the
varied layouts; 12 and 8 epochs), over seeds; Sentences F1 (CoNLL 2018 script)
on EWT dev's raw text in each text form over the pipeline's own tokenizer, and
the senter's own seconds on dev's documents in UD's form (`nlp.pipe` over
tokenized Docs, one thread, the best of three rounds), as a ratio to the shipped
depths (two and two) of the same seed in the same run.

    python -m lab.senter_depths [--seeds 0 1] [--output metrics/tokenizers/senter-depths.json]
"""
import argparse
import json
import time
from pathlib import Path
from typing import Any, Dict, List

import torch

from spacy_elstm.components.elstm_senter import WORD_DROPOUT, WORD_WIDTH
from spacy_elstm.files import write_json
from spacy_elstm.text.word_sentences import WordSentences
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer

from .senter_words import CORPUS, FORMS, tokenizer_pipeline
from .tokenizers import CONLLU, SCRIPT, measure

DEPTHS = (2, 1)  # the shipped depth first: the others' time is a ratio to it
ROUNDS = 3


def senter_seconds(nlp, texts: List[str]) -> float:
    """The senter alone over the texts' Docs, read as the pipeline reads them
    (`pipe`), the best of ROUNDS."""
    senter = nlp.get_pipe("elstm_senter")
    best = float("inf")
    for _ in range(ROUNDS):
        docs = [nlp.make_doc(text) for text in texts]
        start = time.perf_counter()
        for _ in senter.pipe(docs):
            pass
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--output", type=Path,
                        default=Path("metrics/tokenizers/senter-depths.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    scorer = load_scorer(SCRIPT)
    dev = Path(CONLLU.format(split="dev"))
    texts = [d.text for d in raw_documents(dev, "ud")]
    result: Dict[str, Any] = {"split": "dev", "char_epochs": 12, "word_epochs": 8,
                              "word_width": WORD_WIDTH, "timing": "senter alone, UD's form, "
                              f"best of {ROUNDS}, one thread", "rows": []}
    for seed in args.seeds:
        shipped_seconds = None
        for char_depth in DEPTHS:
            nlp = tokenizer_pipeline()
            senter = nlp.add_pipe("elstm_senter", config={"word_width": 0, "depth": char_depth})
            start = time.perf_counter()
            training = senter.segmenter.learn(None, CORPUS, nlp.vocab, epochs=12, batch_size=32,
                                              learn_rate=0.002, seed=seed,
                                              training_text="varied")
            char_seconds = round(time.perf_counter() - start, 1)
            settings = {"width": WORD_WIDTH, "cell": senter.segmenter.settings["cell"],
                        "period": senter.segmenter.settings["period"], "dropout": WORD_DROPOUT}
            for word_depth in DEPTHS:
                words = WordSentences({**settings, "depth": word_depth}, "elstm_senter")
                words.train(training, epochs=8, batch_size=32, learn_rate=0.002, seed=seed)
                senter.words = words
                seconds = senter_seconds(nlp, texts)
                shipped_seconds = shipped_seconds or seconds
                row: Dict[str, Any] = {
                    "char_depth": char_depth, "word_depth": word_depth, "seed": seed,
                    "char_train_seconds": char_seconds,
                    "word_train_seconds": words.learned["seconds"],
                    "senter_seconds": round(seconds, 3),
                    "time_vs_shipped": round(seconds / shipped_seconds, 3)}
                for form in FORMS:
                    row[f"Sentences_{form}"] = measure(nlp, dev, scorer, form)["Sentences"]
                print(json.dumps(row), flush=True)
                result["rows"].append(row)
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
