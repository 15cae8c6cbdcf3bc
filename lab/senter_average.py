"""The senter's character model with its weights as they are after each epoch
against their running average (`text/learning.py`, AVERAGE_DECAY), on EWT dev:
trained as `configs/raw/` train it (EWT train in the varied layouts, seeds as
asked), and after each epoch from the sixth, the character model alone splitting
dev's raw text (UD's form) over the pipeline's own tokenizer, scored by the
CoNLL 2018 script, once with the weights as they are and once with their
average. The same updates give both, so the rows differ by the averaging alone.

    python -m lab.senter_average [--seeds 0 1] [--epochs 14] [--output metrics/tokenizers/senter-average.json]
"""
import argparse
import copy
import functools
import json
from pathlib import Path
from typing import Any, Dict

import torch

import spacy_elstm.text.segmenter as segmenter
from spacy_elstm.files import write_json
from spacy_elstm.text.learning import AVERAGE_DECAY, fit
from spacy_elstm.treebanks.scoring import load_scorer

from .senter_words import CORPUS, tokenizer_pipeline
from .tokenizers import CONLLU, SCRIPT, measure

FIRST_SCORED_EPOCH = 6


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--epochs", type=int, default=14)
    parser.add_argument("--output", type=Path,
                        default=Path("metrics/tokenizers/senter-average.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    scorer = load_scorer(SCRIPT)
    dev = Path(CONLLU.format(split="dev"))
    result: Dict[str, Any] = {"split": "dev", "text_form": "ud", "decay": AVERAGE_DECAY,
                              "shipped_epochs": 12, "rows": []}
    for seed in args.seeds:
        nlp = tokenizer_pipeline()
        senter = nlp.add_pipe("elstm_senter", config={"word_width": 0})

        def after_epoch(epoch: int, average: Dict[str, torch.Tensor]) -> None:
            if epoch < FIRST_SCORED_EPOCH:
                return
            model = senter.segmenter.model
            row: Dict[str, Any] = {"seed": seed, "epoch": epoch,
                                   "weights": measure(nlp, dev, scorer, "ud")["Sentences"]}
            own = copy.deepcopy(model.state_dict())
            model.load_state_dict(average)
            row["average"] = measure(nlp, dev, scorer, "ud")["Sentences"]
            model.load_state_dict(own)
            print(json.dumps(row), flush=True)
            result["rows"].append(row)

        # the character model's training, with the study's look after each epoch
        segmenter.fit = functools.partial(fit, after_epoch=after_epoch)
        try:
            senter.segmenter.learn(None, CORPUS, nlp.vocab, epochs=args.epochs, batch_size=32,
                                   learn_rate=0.002, seed=seed, training_text="varied")
        finally:
            segmenter.fit = fit
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
