"""elstm_senter with and without its word-level model, on EWT dev: the
character model trained once as `configs/raw/` train it (12 epochs on EWT
train in the varied layouts, seed 0), then word-level models on the same text,
each beside it: the shipped settings over seeds, and the settings it was chosen
over (the character model's skip connections and layer norm, its dropout; a
narrower or a shallower model, which would cost less time);
Tokens, Words and Sentences F1 from the CoNLL 2018 script on dev's raw text in
each text form, over the pipeline's own tokenizer (spacy-elstm.TreebankTokenizer.v1).

    python -m lab.senter_words [--seeds 0 1] [--output metrics/tokenizers/senter-words.json]
"""
import argparse
import json
import time
from pathlib import Path
from typing import Any, Dict, List

import spacy
from spacy.training import Example

from spacy_elstm.components.elstm_senter import WORD_DROPOUT, WORD_WIDTH
from spacy_elstm.files import write_json
from spacy_elstm.text.treebank_tokenizer import NAME
from spacy_elstm.text.word_sentences import WordSentences
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs
from spacy_elstm.treebanks.scoring import load_scorer

from .tokenizers import CONLLU, SCRIPT, measure

CORPUS = "corpus/UD_English-EWT/en_ewt-ud-train.spacy"
FORMS = ("ud", "joined")


def variants(seeds: List[int]) -> List[Dict[str, Any]]:
    """The word-level models measured: name, seed, settings beyond the senter's."""
    shipped = [{"name": "words", "seed": seed, "settings": {}} for seed in seeds]
    return shipped + [
        {"name": "words, skip connections and layer norm", "seed": seeds[0],
         "settings": {"skip": True}},
        {"name": "words, dropout 0.1", "seed": seeds[0], "settings": {"dropout": 0.1}},
        {"name": "words, skip connections, layer norm, dropout 0.1", "seed": seeds[0],
         "settings": {"skip": True, "dropout": 0.1}},
        {"name": "words, width 64", "seed": seeds[0], "settings": {"width": 64}},
        {"name": "words, one layer", "seed": seeds[0], "settings": {"depth": 1}},
    ]


def tokenizer_pipeline():
    """A blank English pipeline with the raw pipelines' tokenizer, learned from EWT train."""
    nlp = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    docs = conllu_to_docs(Path(CONLLU.format(split="train")), 10, nlp.vocab)
    nlp.tokenizer.initialize(lambda: (Example(nlp.make_doc(d.text), d) for d in docs), nlp=nlp)
    return nlp


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1],
                        help="the word-level model's seeds (the first for the variants)")
    parser.add_argument("--output", type=Path,
                        default=Path("metrics/tokenizers/senter-words.json"))
    args = parser.parse_args(argv)
    scorer = load_scorer(SCRIPT)
    dev = Path(CONLLU.format(split="dev"))
    nlp = tokenizer_pipeline()
    senter = nlp.add_pipe("elstm_senter", config={"word_width": 0})
    start = time.perf_counter()
    training = senter.segmenter.learn(None, CORPUS, nlp.vocab, epochs=12, batch_size=32,
                                      learn_rate=0.002, seed=0, training_text="varied")
    result: Dict[str, Any] = {"split": "dev", "char_epochs": 12, "char_seed": 0,
                              "char_seconds": round(time.perf_counter() - start, 1),
                              "word_width": WORD_WIDTH, "word_epochs": 8, "rows": []}

    def score(name: str, **extra) -> None:
        for form in FORMS:
            row = {"senter": name, "text_form": form, **extra, **measure(nlp, dev, scorer, form)}
            print(json.dumps(row), flush=True)
            result["rows"].append(row)

    score("characters", seed=None)
    # the word-level model as this study measured it: as deep as the character
    # model (two layers; `lab.senter_depths` then chose one)
    base = {"width": WORD_WIDTH, "depth": senter.segmenter.settings["depth"],
            "cell": senter.segmenter.settings["cell"],
            "period": senter.segmenter.settings["period"], "dropout": WORD_DROPOUT}
    for variant in variants(args.seeds):
        words = WordSentences({**base, **variant["settings"]}, "elstm_senter")
        words.train(training, epochs=8, batch_size=32, learn_rate=0.002, seed=variant["seed"])
        senter.words = words
        score(f"characters + {variant['name']}", seed=variant["seed"],
              word_seconds=words.learned["seconds"])
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
