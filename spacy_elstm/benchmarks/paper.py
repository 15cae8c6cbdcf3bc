"""Paper-settings benchmark: training and inference words/second of the
macro-models of configs/paper/ (gold lemmas in, batches of 20 sentences,
AdaGrad as the configs say), each with the cell asked for, in the same run, and
the ratio against the BRNN tagger (pos_brnn); from which the hours that one of
the paper's 11-epoch trainings takes on the machine follow."""
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

import spacy
import torch
from spacy.language import Language
from spacy.util import minibatch
from thinc.api import fix_random_seed

from ..training.readers import copy_gold_lemmas
from .pipelines import load_examples
from .timing import interleaved_median_seconds

REFERENCE = "pos_brnn"
BATCH_SENTENCES = 20  # the paper's batches (Table 4)


def component_of(model: str) -> str:
    """The component a configs/paper/ model trains: the parsers' or the tagger's."""
    return "elstm_seq_parser" if model.startswith("dep_") else "elstm_tagger"


def build(configs: Path, model: str, cell: str) -> Language:
    path = configs / f"{model}.cfg"
    if not path.is_file():
        known = sorted(p.stem for p in configs.glob("*.cfg"))
        raise ValueError(f"No paper config {path}: choose from {known}.")
    fix_random_seed(0)
    config = spacy.util.load_config(
        path, overrides={f"components.{component_of(model)}.model.cell": cell})
    return spacy.util.load_model_from_config(config, auto_fill=True, validate=True)


def make_run(configs: Path, model: str, cell: str, mode: str, path: Path,
             max_words: int) -> Callable[[], int]:
    """A closure doing one pass of ``mode`` ("train" or "predict") over the first
    sentences of ``path`` (up to ``max_words`` words), gold lemmas on the docs
    the model reads; it returns the number of words."""
    nlp = build(configs, model, cell)
    examples = [copy_gold_lemmas(e) for e in load_examples(path, nlp.vocab, max_words)]
    words = sum(len(e.reference) for e in examples)
    optimizer = nlp.initialize(lambda: examples)
    if mode == "train":
        def run() -> int:
            for batch in minibatch(examples, size=BATCH_SENTENCES):
                nlp.update(batch, sgd=optimizer)
            return words
    else:
        def run() -> int:
            docs = [e.predicted.copy() for e in examples]
            for _ in nlp.pipe(docs, batch_size=256):
                pass
            return words
    return run


def run_paper_benchmark(*, path: Path, configs: Path, models: Sequence[str],
                        cells: Sequence[str], max_words: int = 2000, repeats: int = 3,
                        epoch_words: Optional[int] = None, epochs: int = 11,
                        device: str = "cpu", progress: Callable[[str], None] = print) -> List[Dict[str, Any]]:
    models = list(dict.fromkeys([REFERENCE, *models]))
    runs, words = {}, {}
    for model in models:
        for cell in cells:
            for mode in ("train", "predict"):
                progress(f"  {model} {cell} {mode}: building")
                runs[model, cell, mode] = make_run(configs, model, cell, mode, path, max_words)
                words[model, cell, mode] = runs[model, cell, mode]()  # warm-up
    progress(f"  timing {len(runs)} runs in {repeats} interleaved rounds")
    seconds = interleaved_median_seconds(runs, device=torch.device(device), repeats=repeats,
                                         warmup=0)
    rows = [{"model": model, "cell": cell, "mode": mode, "words": words[model, cell, mode],
             "repeats": repeats, "seconds": s, "words_per_second": words[model, cell, mode] / s}
            for (model, cell, mode), s in seconds.items()]
    by_key = {(r["model"], r["cell"], r["mode"]): r for r in rows}
    for row in rows:
        ref = by_key[REFERENCE, row["cell"], row["mode"]]
        row[f"vs_{REFERENCE}"] = row["words_per_second"] / ref["words_per_second"]
        if row["mode"] == "train" and epoch_words:
            row["paper_training_hours"] = epochs * epoch_words / row["words_per_second"] / 3600
    return rows

