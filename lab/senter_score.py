"""Sentences F1 of trained senter pipelines (`scripts/train_senter.py`: the
raw pipelines' tokenizer and an `elstm_senter`) on a split's raw text in each
text form, by the CoNLL 2018 script; each pipeline a row, with the settings it
was trained with, appended to the output.

    python -m lab.senter_score training/senter-dropout03-seed0 [...] [--split dev] [--as-written] [--output metrics/tokenizers/senter-scores.json]
"""
import argparse
import json
from pathlib import Path
from typing import Any, Dict

import spacy

import srsly

from spacy_elstm.files import write_json
from spacy_elstm.treebanks.scoring import load_scorer

from spacy_elstm.components import elstm_senter

from .senter_words import FORMS
from .senter_wrapping import READINGS
from .tokenizers import CONLLU, SCRIPT, measure


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipelines", nargs="+", type=Path)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--as-written", action="store_true",
                        help="the senter reads every line break as written (as it did before "
                             "it read hard-wrapped lines as running text)")
    parser.add_argument("--output", type=Path,
                        default=Path("metrics/tokenizers/senter-scores.json"))
    args = parser.parse_args(argv)
    scorer = load_scorer(SCRIPT)
    gold = Path(CONLLU.format(split=args.split))
    result: Dict[str, Any] = srsly.read_json(args.output) if args.output.exists() else {"rows": []}
    if args.as_written:
        elstm_senter.unwrapped = READINGS["as written"]
    for path in args.pipelines:
        nlp = spacy.load(path)
        row = {"pipeline": path.as_posix(), "split": args.split,
               "settings": {k: v for k, v in nlp.config["components"]["elstm_senter"].items()
                            if k != "factory"},
               "training": dict(nlp.config["initialize"]["components"]["elstm_senter"]),
               "reading": "as written" if args.as_written else "wraps as spaces",
               **{f"Sentences_{form}": measure(nlp, gold, scorer, form)["Sentences"]
                  for form in FORMS}}
        print(json.dumps(row), flush=True)
        result["rows"] = [r for r in result["rows"]
                          if (r["pipeline"], r["split"]) != (row["pipeline"], args.split)] + [row]
        write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
