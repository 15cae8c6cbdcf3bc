"""elstm_senter's models alone and as the mean of several seeds'
(`char_models`, `word_models`), on one treebank's dev split: the tokenizer,
then `--models` character models and as many word-level models of as many
seeds, trained as `configs/raw/best_elstm.cfg` trains its one of each (the
first of each is the one a setting of 1 trains); Sentences F1 by the CoNLL
2018 script on the split's raw text in UD's form with the mean of the first
1, 2, ... character models beside the first or all word models, in the same
run. On a small treebank the senter's seed moves its sentences by a point or
more (`python -m lab.senter_ensemble`); this says how much of that one
pipeline's own models of several seeds win back, and which of the two models
needs them.

    python -m lab.senter_models --treebank assets/UD_Wolof-WTB --output metrics/treebanks/UD_Wolof-WTB/senter-models-own-dev.json [--models 3] [--seeds 0 1 2]
"""
import json
import time
from typing import Any, Dict

from spacy_elstm.files import write_json
from spacy_elstm.text.word_sentences import WordSentences
from spacy_elstm.text.wrapping import unwrapped
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer

from .senter_suffixes import CONFIG, characters_trained, measure
from .tokenizer_alone import parse_treebank_args, treebank_parser


def main(argv=None) -> int:
    parser = treebank_parser(__doc__)
    parser.add_argument("--models", type=int, default=3,
                        help="character and word-level models of each seed (>= 2)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = parse_treebank_args(parser, argv, "the senter")
    if args.models < 2:
        raise SystemExit(f"--models must be at least 2 (one is the first row), got {args.models}.")
    scorer = load_scorer(args.scorer)
    # the other models learn the training text laid out with their own seeds (before, the
    # first one's layouts: files without the key)
    result: Dict[str, Any] = {"split": args.split, "text_form": "ud", "config": CONFIG.as_posix(),
                              "models": args.models, "layouts": "own", "rows": []}
    for seed in args.seeds:
        trained = characters_trained(args.treebank, seed, args.models)
        senter, training = trained.senter, trained.training
        result["treebank"] = trained.treebank.name
        gold = trained.treebank.files[args.split]
        documents = raw_documents(gold, "ud", trained.treebank.code)
        words = WordSentences(senter.words.settings, senter.segmenter.owner, args.models)
        words.train(trained.layouts, epochs=training["word_epochs"] * trained.repeats,
                    batch_size=32, learn_rate=0.002, seed=seed, read_as=unwrapped)
        senter.words = words
        char_others, word_others = list(senter.segmenter.other_seeds), list(words.other_seeds)
        seconds = {"char_seconds": trained.char_seconds,
                   "word_seconds": round(words.learned["seconds"] + sum(
                       o["seconds"] for o in words.learned["other_seeds"]), 1)}
        for word_models in (1, args.models):
            words.other_seeds = word_others[:word_models - 1]
            for char_models in range(1, args.models + 1):
                senter.segmenter.other_seeds = char_others[:char_models - 1]
                start = time.perf_counter()
                found = measure(trained.nlp, gold, documents, scorer)
                row = {"seed": seed, "char_models": char_models, "word_models": word_models,
                       "Sentences": found["Sentences"],
                       "ends_found": sum(m["found"] for m in found["ends_by_mark"].values()),
                       "extra_ends": sum(m["extra"] for m in found["ends_by_mark"].values()),
                       "measured_seconds": round(time.perf_counter() - start, 1), **seconds}
                print(json.dumps(row), flush=True)
                result["rows"].append(row)
        write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
