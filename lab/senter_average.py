"""The senter's models with their weights as they are after training against
the running average of their weights over the updates (spaCy's schedule: after
update t the average moves towards the weights by 1 - min(DECAY, (1 + t) /
(10 + t))), on EWT dev. Trained as `configs/raw/` train them (EWT train in the
varied layouts, seeds as asked): after each epoch from the sixth, the character
model alone splitting dev's raw text (UD's form), once with its weights and once
with their average (the same updates give both); with `--with-words`, then the
whole senter, its word-level model trained beside each (the weights beside the
weights, the average beside the average), in both text forms. Sentences F1 by
the CoNLL 2018 script over the pipeline's own tokenizer.

    python -m lab.senter_average [--seeds 0 1] [--epochs 14] [--with-words] [--output metrics/tokenizers/senter-average.json]
"""
import argparse
import copy
import json
from pathlib import Path
from typing import Any, Callable, Dict

import torch

import spacy_elstm.text.segmenter as segmenter
import spacy_elstm.text.word_sentences as word_sentences
from spacy_elstm.files import write_json
from spacy_elstm.text.learning import fit
from spacy_elstm.treebanks.scoring import load_scorer

from .senter_words import CORPUS, FORMS, tokenizer_pipeline
from .tokenizers import CONLLU, SCRIPT, measure

DECAY = 0.995
FIRST_SCORED_EPOCH = 6


class Average:
    """The running average of a model's weights, updated after each update."""

    def __init__(self, model: torch.nn.Module):
        self.model = model
        self.weights = copy.deepcopy(model.state_dict())
        self.updates = 0

    @torch.no_grad()
    def update(self) -> None:
        decay = min(DECAY, (1 + self.updates) / (10 + self.updates))
        for name, value in self.model.state_dict().items():
            if value.dtype.is_floating_point:
                self.weights[name].lerp_(value, 1 - decay)
        self.updates += 1


def observed(module, averages: list, after_epoch: Callable[[int], None] = lambda epoch: None):
    """`module`'s training loop with the running average kept (into `averages`)."""
    def watching_fit(model, *args, **kwargs):
        average = Average(model)
        averages.append(average)

        def after_update(epoch: int, last: bool) -> None:
            average.update()
            if last:
                after_epoch(epoch)
        return fit(model, *args, after_update=after_update, **kwargs)
    module.fit = watching_fit


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--epochs", type=int, default=14)
    parser.add_argument("--with-words", action="store_true")
    parser.add_argument("--output", type=Path,
                        default=Path("metrics/tokenizers/senter-average.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    scorer = load_scorer(SCRIPT)
    dev = Path(CONLLU.format(split="dev"))
    result: Dict[str, Any] = {"split": "dev", "text_form": "ud", "decay": DECAY,
                              "shipped_epochs": 12, "epochs": args.epochs, "rows": [],
                              "senter_rows": []}
    try:
        for seed in args.seeds:
            nlp = tokenizer_pipeline()
            senter = nlp.add_pipe("elstm_senter")  # the word model untrained: characters alone
            averages: list = []

            def after_epoch(epoch: int) -> None:
                if epoch < FIRST_SCORED_EPOCH:
                    return
                model = senter.segmenter.model
                row: Dict[str, Any] = {"seed": seed, "epoch": epoch,
                                       "weights": measure(nlp, dev, scorer, "ud")["Sentences"]}
                own = copy.deepcopy(model.state_dict())
                model.load_state_dict(averages[-1].weights)
                row["average"] = measure(nlp, dev, scorer, "ud")["Sentences"]
                model.load_state_dict(own)
                print(json.dumps(row), flush=True)
                result["rows"].append(row)

            observed(segmenter, averages, after_epoch)
            training = senter.segmenter.learn(None, CORPUS, nlp.vocab, epochs=args.epochs,
                                              batch_size=32, learn_rate=0.002, seed=seed,
                                              training_text="varied")
            if not args.with_words:
                continue
            char_own = copy.deepcopy(senter.segmenter.model.state_dict())
            char_average = averages[-1].weights
            observed(word_sentences, averages)
            senter.words.train(training, epochs=8, batch_size=32, learn_rate=0.002, seed=seed)
            word_own = copy.deepcopy(senter.words.model.state_dict())
            word_average = averages[-1].weights
            for averaged, (chars, words) in ((False, (char_own, word_own)),
                                             (True, (char_average, word_average))):
                senter.segmenter.model.load_state_dict(chars)
                senter.words.model.load_state_dict(words)
                row = {"seed": seed, "epochs": args.epochs, "averaged": averaged,
                       **{f"Sentences_{form}": measure(nlp, dev, scorer, form)["Sentences"]
                          for form in FORMS}}
                print(json.dumps(row), flush=True)
                result["senter_rows"].append(row)
    finally:
        segmenter.fit = word_sentences.fit = fit
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
