"""elstm_senter's word-level model alone and as the mean of several seeds'
(`word_models`), on one treebank's dev split: the tokenizer and the character
model trained once per seed as `configs/raw/best_elstm.cfg` trains them, then
`--models` word-level models of as many seeds beside it (the first is the one
`word_models = 1` trains); Sentences F1 by the CoNLL 2018 script on the
split's raw text in UD's form, with the first model alone and with the mean
of the first 2, 3, ... of them, in the same run. On a small treebank the word
model's seed moves its sentences by a point (`python -m lab.senter_ensemble`);
this says how much of that the mean of one pipeline's own models wins back.

    python -m lab.senter_word_models --treebank assets/UD_Wolof-WTB --output metrics/treebanks/UD_Wolof-WTB/senter-word-models-dev.json [--models 3] [--seeds 0 1]
"""
import json
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
    parser.add_argument("--models", type=int, default=3, help="word-level models (>= 2)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = parse_treebank_args(parser, argv, "the senter")
    if args.models < 2:
        raise SystemExit(f"--models must be at least 2 (one is the first row), got {args.models}.")
    scorer = load_scorer(args.scorer)
    result: Dict[str, Any] = {"split": args.split, "text_form": "ud", "config": CONFIG.as_posix(),
                              "models": args.models, "rows": []}
    for seed in args.seeds:
        trained = characters_trained(args.treebank, seed)
        senter, training = trained.senter, trained.training
        result["treebank"] = trained.treebank.name
        gold = trained.treebank.files[args.split]
        documents = raw_documents(gold, "ud", trained.treebank.code)
        words = WordSentences(senter.words.settings, senter.segmenter.owner, args.models)
        words.train(trained.layouts, epochs=training["word_epochs"] * trained.repeats,
                    batch_size=32, learn_rate=0.002, seed=seed, read_as=unwrapped)
        senter.words = words
        others = list(words.other_seeds)
        for used in range(1, args.models + 1):
            words.other_seeds = others[:used - 1]
            found = measure(trained.nlp, gold, documents, scorer)
            row = {"seed": seed, "word_models": used, "Sentences": found["Sentences"],
                   "ends_found": sum(m["found"] for m in found["ends_by_mark"].values()),
                   "extra_ends": sum(m["extra"] for m in found["ends_by_mark"].values()),
                   "char_seconds": trained.char_seconds,
                   "word_seconds": words.learned["seconds"]}
            print(json.dumps(row), flush=True)
            result["rows"].append(row)
        write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
