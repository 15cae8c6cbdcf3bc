"""What reading hard-wrapped lines as running text does (`text/wrapping.py`):
trained senter pipelines (`scripts/train_senter.py`, or whole raw pipelines)
split a split's raw text in each text form (UD's, wrapped at 80 characters;
each paragraph on one line; one sentence per line), with the senter reading
wraps as spaces (as it does) and reading every line break as written (as it
did), in the same run; Sentences F1 by the CoNLL 2018 script over the
pipeline's own tokenizer.

    python -m lab.senter_wrapping training/senter-seed1 [...] [--split dev] [--output metrics/tokenizers/senter-wrapping.json]
"""
import json
from pathlib import Path
from typing import Any, Dict

import srsly

from spacy_elstm.components import elstm_senter
from spacy_elstm.files import write_json
from spacy_elstm.treebanks.gold_text import FORMS
from spacy_elstm.treebanks.scoring import load_scorer

from .arguments import pipelines_parser
from .tokenizers import CONLLU, SCRIPT, measure, senter_pipeline

READINGS = {"wraps as spaces": elstm_senter.unwrapped, "as written": lambda text: text}


def main(argv=None) -> int:
    parser = pipelines_parser(__doc__, "metrics/tokenizers/senter-wrapping.json")
    args = parser.parse_args(argv)
    scorer = load_scorer(SCRIPT)
    gold = Path(CONLLU.format(split=args.split))
    result: Dict[str, Any] = srsly.read_json(args.output) if args.output.exists() else {"rows": []}
    try:
        for path in args.pipelines:
            nlp = senter_pipeline(path)
            config = nlp.config.interpolate()
            seed = config["initialize"]["components"].get("elstm_senter", {}).get(
                "seed", config["system"]["seed"])
            # how its senter learned: trained before it read wraps as spaces, as written
            trained = nlp.get_pipe("elstm_senter").segmenter.learned.get("wraps", "as written")
            for reading, view in READINGS.items():
                elstm_senter.unwrapped = view
                row = {"pipeline": path.as_posix(), "split": args.split, "seed": seed,
                       "trained": trained,
                       "reading": reading,
                       **{f"Sentences_{form}": measure(nlp, gold, scorer, form)["Sentences"]
                          for form in FORMS}}
                print(json.dumps(row), flush=True)
                result["rows"] = [r for r in result["rows"]
                                  if (r["pipeline"], r["split"], r["reading"])
                                  != (row["pipeline"], args.split, reading)] + [row]
                write_json(args.output, result)
    finally:
        elstm_senter.unwrapped = READINGS["wraps as spaces"]
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
