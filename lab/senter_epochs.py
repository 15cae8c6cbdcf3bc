"""elstm_senter's Sentences on a treebank's dev split after each epoch: the
tokenizer, the character model and the word-level model trained as
`configs/raw/best_elstm.cfg` trains them (12 and 8 epochs, each at least
12,000 sentences' worth, seed 0); after each epoch of the character model
(reading alone, no word-level model yet), then of the word-level model beside
the last character model, Sentences F1 by the CoNLL 2018 script on the split's
raw text in UD's form, with the model's weights and with their running
average over the updates (`lab.senter_average`'s, the same updates give
both). On a small treebank an epoch passes over its text several times, and
the training loss nears 0: this says whether the senter's sentences on
held-out text fall as it does or swing from epoch to epoch, so whether an
epoch chosen on held-out text (the senter's `dev`) or averaged weights are
worth a study.

    python -m lab.senter_epochs --treebank assets/UD_Uyghur-UDT --output metrics/treebanks/UD_Uyghur-UDT/senter-epochs-dev.json [--seed 0] [--word-epochs 16]

`--word-epochs`: the word-level model's epochs, where not the config's (8), to
see whether it still gains after them.
"""
import copy
import json
import time
from pathlib import Path
from typing import Any, Dict, List

import spacy
import torch

import spacy_elstm.text.segmenter as segmenter_module
import spacy_elstm.text.word_sentences as word_sentences_module
from spacy_elstm.files import write_json
from spacy_elstm.text.learning import epoch_repeats, passes
from spacy_elstm.text.treebank_tokenizer import NAME
from spacy_elstm.text.wrapping import unwrapped
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer
from spacy_elstm.treebanks.ud_folder import find_treebank

from .senter_average import DECAY, observed
from .senter_suffixes import CONFIG, measure
from .tokenizer_alone import parse_treebank_args, treebank_parser


def every_epoch(repeats: int, score_now, curve: List[Dict[str, Any]]):
    """A `score` for `learning.fit` that measures after every `repeats` passes
    (one epoch) and keeps the last weights (it only rises)."""
    calls = [0]

    def score() -> float:
        calls[0] += 1
        if calls[0] % repeats == 0:
            row = {"epoch": calls[0] // repeats, **score_now()}
            print(json.dumps(row, ensure_ascii=False), flush=True)
            curve.append(row)
        return float(calls[0])
    return score


def main(argv=None) -> int:
    parser = treebank_parser(__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--word-epochs", type=int, default=None,
                        help="the word-level model's epochs (default: the config's)")
    args = parse_treebank_args(parser, argv, "the senter")
    torch.set_num_threads(1)
    treebank = find_treebank(args.treebank)
    corpus = Path("corpus") / treebank.name / f"{treebank.stem}-ud-train.spacy"
    config = spacy.util.load_config(CONFIG, interpolate=False)
    shipped = {k: v for k, v in config["components"]["elstm_senter"].items() if k != "factory"}
    training = dict(config["initialize"]["components"]["elstm_senter"])
    if args.word_epochs is not None:
        training["word_epochs"] = args.word_epochs
    nlp = spacy.blank(treebank.lang, config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    nlp.tokenizer.initialize(lambda: [], nlp=nlp, min_count=1, treebank=str(corpus),
                             seed=args.seed)  # as [initialize.tokenizer] has it
    senter = nlp.add_pipe("elstm_senter", config=shipped)
    senter.unpunctuated = None  # the dev text has punctuation: the first pair splits it
    gold = treebank.files[args.split]
    documents = raw_documents(gold, "ud", treebank.code)
    scorer = load_scorer(args.scorer)

    averages: List = []  # the running average of each model's weights, as it trains

    def sentences_of() -> Dict[str, Any]:
        found = measure(nlp, gold, documents, scorer)
        ends = found["ends_by_mark"]
        return {"Sentences": found["Sentences"],
                "ends_found": sum(m["found"] for m in ends.values()),
                "extra_ends": sum(m["extra"] for m in ends.values())}

    def sentences(model_of):
        def now() -> Dict[str, Any]:
            model = model_of()
            row = sentences_of()
            own = copy.deepcopy(model.state_dict())
            model.load_state_dict(averages[-1].weights)
            row["average"] = sentences_of()
            model.load_state_dict(own)
            return row
        return now

    sentence_starts = sum(1 for doc in spacy.tokens.DocBin().from_disk(corpus).get_docs(nlp.vocab)
                          for t in doc if t.is_sent_start)
    # passes an epoch, at least one (a treebank above MAX_EPOCH_SENTENCES is measured per pass)
    repeats = max(1, round(epoch_repeats(sentence_starts, training["min_epoch_sentences"])))
    result: Dict[str, Any] = {"treebank": treebank.name, "split": args.split, "text_form": "ud",
                              "seed": args.seed, "config": CONFIG.as_posix(), "decay": DECAY,
                              "epoch_repeats": repeats, "word_epochs": training["word_epochs"],
                              "characters": [], "words": []}
    senter.words.model = None  # the characters alone while they learn
    observed(segmenter_module, averages)
    observed(word_sentences_module, averages)
    start = time.perf_counter()
    layouts = senter.segmenter.learn(None, str(corpus), nlp.vocab, epochs=training["epochs"],
                                     batch_size=32, learn_rate=0.002, seed=args.seed,
                                     training_text="varied",
                                     min_epoch_sentences=training["min_epoch_sentences"],
                                     read_as=unwrapped,
                                     score=every_epoch(repeats, sentences(lambda: senter.segmenter.model),
                                                       result["characters"]))
    senter.segmenter.learned["wraps"] = "as spaces"
    result["epoch_repeats_learned"] = senter.segmenter.learned.get("epoch_repeats", 1)
    senter.words.train(layouts, epochs=passes(training["word_epochs"], repeats), batch_size=32,
                       learn_rate=0.002, seed=args.seed, read_as=unwrapped,
                       score=every_epoch(repeats, sentences(lambda: senter.words.model),
                                         result["words"]))
    result["seconds"] = round(time.perf_counter() - start, 1)
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
