"""Several trained senters as one (a probe of how much of the senter's seed
lottery averaging removes): each word's probability that a sentence ends
after it is the mean over the senters' character and word models, and the
senter decides as one does; Sentences F1 on a split's raw text by the CoNLL
2018 script over the first pipeline's tokenizer, each senter alone and the
ensemble, in the same run. EWT dev in its three text forms by default; with
--treebank, that treebank's split in UD's form (the pipelines trained on it,
one per seed: `scripts/treebank_study.sh`).

    python -m lab.senter_ensemble training/senter-once-seed2 training/senter-once-seed3 [...] [--output metrics/tokenizers/senter-ensemble.json]
    python -m lab.senter_ensemble training/treebanks/UD_Uyghur-UDT/best_elstm/model-best training/treebanks/UD_Uyghur-UDT-seed1/best_elstm/model-best [...] --treebank assets/UD_Uyghur-UDT --output metrics/treebanks/UD_Uyghur-UDT/senter-ensemble-dev.json
"""
import argparse
import json
import statistics
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy
import spacy

from spacy_elstm.components.elstm_senter import ELSTMSenter
from spacy_elstm.files import write_json
from spacy_elstm.treebanks.scoring import load_scorer
from spacy_elstm.treebanks.ud_folder import find_treebank

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

    def reads_chars(self) -> bool:
        return any(m.reads_chars() for m in self.models)

    def end_probabilities(self, docs, char_ends=None, texts=None):
        found = [m.end_probabilities(docs, char_ends, texts) for m in self.models]
        return [numpy.mean(per_doc, axis=0) for per_doc in zip(*found)]


def mean_senter(senters: List[ELSTMSenter]) -> ELSTMSenter:
    """One senter whose every model is the mean of the senters' (their models
    of text without punctuation too, where each has them); the first one's
    settings."""
    first = senters[0]
    words = (MeanWords([s.words for s in senters])
             if all(s.reads_words() for s in senters) else None)
    mean = ELSTMSenter(first.name, MeanSegmenter([s.segmenter for s in senters]),
                       first.max_sentence_words, words, first.end_threshold)
    if all(s.reads_unpunctuated() for s in senters):
        mean.unpunctuated = mean_senter([s.unpunctuated for s in senters])
        mean.unpunctuated_learned = True
    return mean


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("senters", nargs="+", type=Path)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--treebank", type=Path, default=None,
                        help="a UD treebank's folder (default: EWT, in its three text forms)")
    parser.add_argument("--scorer", type=Path, default=Path(SCRIPT))
    parser.add_argument("--output", type=Path,
                        default=Path("metrics/tokenizers/senter-ensemble.json"))
    args = parser.parse_args(argv)
    if args.split == "train":
        raise SystemExit("--split train: the senters learned from it; measure dev.")
    scorer = load_scorer(args.scorer)
    language: Optional[str] = None
    if args.treebank is None:
        gold, forms = Path(CONLLU.format(split=args.split)), FORMS
    else:
        treebank = find_treebank(args.treebank)
        gold, forms, language = treebank.files[args.split], ("ud",), treebank.code
    pipelines = [spacy.load(path) for path in args.senters]
    tokenizer = pipelines[0].tokenizer  # each pipeline's learned from the same train split
    result: Dict[str, Any] = {"split": args.split, "rows": []}
    if args.treebank is not None:
        result["treebank"] = find_treebank(args.treebank).name

    def score(name: str, senter) -> None:
        row: Dict[str, Any] = {"senters": name}
        for form in forms:
            found = measure(lambda text: senter(tokenizer(text)), gold, scorer, form, language)
            row[f"Sentences_{form}"] = found["Sentences"]
            row[f"words_per_second_{form}"] = found["words_per_second"]  # tokenizer and senter
        print(json.dumps(row), flush=True)
        result["rows"].append(row)

    senters = [p.get_pipe("elstm_senter") for p in pipelines]
    for path, senter in zip(args.senters, senters):
        score(path.as_posix(), senter)
    score(" + ".join(p.as_posix() for p in args.senters), mean_senter(senters))
    for form in forms:
        alone = [row[f"Sentences_{form}"] for row in result["rows"][:-1]]
        result[f"mean_alone_{form}"] = round(statistics.mean(alone), 2)
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
