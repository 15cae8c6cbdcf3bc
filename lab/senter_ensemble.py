"""Several trained senters as one (a probe of how much of the senter's seed
lottery averaging removes): each word's probability that a sentence ends
after it is the mean over the senters' character and word models, and the
senter decides as one does; Sentences F1 on a split's raw text by the CoNLL
2018 script over the raw pipelines' tokenizer, each senter alone and the
ensemble, in the same run.

    python -m lab.senter_ensemble training/senter-once-seed2 training/senter-once-seed3 [...] [--output metrics/tokenizers/senter-ensemble.json]
"""
import argparse
import json
from pathlib import Path
from typing import Any, Dict, List

import numpy
import spacy

from spacy_elstm.components.elstm_senter import ELSTMSenter
from spacy_elstm.files import write_json
from spacy_elstm.treebanks.scoring import load_scorer

from .senter_words import FORMS
from .tokenizers import CONLLU, SCRIPT, measure


class MeanSegmenter:
    """The character models of several senters, their sentence-end probabilities averaged."""

    def __init__(self, segmenters: List):
        self.segmenters = segmenters
        self.window = segmenters[0].window

    def read(self, texts):
        found = [s.read(texts) for s in self.segmenters]
        return [(per_text[0][0], numpy.mean([ends for _, ends in per_text], axis=0))
                for per_text in zip(*found)]


class MeanWords:
    """The word-level models of several senters, their probabilities averaged."""

    def __init__(self, models: List):
        self.models = models
        self.model = models[0].model  # trained: the senter reads it

    def end_probabilities(self, docs):
        found = [m.end_probabilities(docs) for m in self.models]
        return [numpy.mean(per_doc, axis=0) for per_doc in zip(*found)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("senters", nargs="+", type=Path)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--output", type=Path,
                        default=Path("metrics/tokenizers/senter-ensemble.json"))
    args = parser.parse_args(argv)
    scorer = load_scorer(SCRIPT)
    gold = Path(CONLLU.format(split=args.split))
    pipelines = [spacy.load(path) for path in args.senters]
    tokenizer = pipelines[0].tokenizer  # each senter's is the same, learned from EWT train
    result: Dict[str, Any] = {"split": args.split, "rows": []}

    def score(name: str, senter) -> None:
        row = {"senters": name, **{
            f"Sentences_{form}": measure(lambda text: senter(tokenizer(text)), gold, scorer,
                                         form)["Sentences"] for form in FORMS}}
        print(json.dumps(row), flush=True)
        result["rows"].append(row)

    senters = [p.get_pipe("elstm_senter") for p in pipelines]
    for path, senter in zip(args.senters, senters):
        score(path.as_posix(), senter)
    mean = ELSTMSenter("elstm_senter", MeanSegmenter([s.segmenter for s in senters]),
                       senters[0].max_sentence_words, MeanWords([s.words for s in senters]))
    score(" + ".join(p.as_posix() for p in args.senters), mean)
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
