"""Where a sentence should end: trained senter pipelines split EWT dev's raw
text in each text form with each `end_threshold` (a sentence ends after a word
where the mean of the character and word models' probabilities is above it),
Sentences F1 by the CoNLL 2018 script; each pipeline's rows, and the mean
change from the first threshold per text form.

    python -m lab.senter_thresholds training/raw-ud-10000steps/best_elstm/model-best [...] [--thresholds 0.5 0.45 0.4 0.35 0.3] [--split dev] [--output metrics/tokenizers/senter-thresholds.json]
"""
import json
import statistics
from pathlib import Path
from typing import Any, Dict, List

import torch

from spacy_elstm.files import write_json
from spacy_elstm.treebanks.gold_text import FORMS
from spacy_elstm.treebanks.scoring import load_scorer

from .arguments import pipelines_parser
from .tokenizers import CONLLU, SCRIPT, measure, senter_pipeline


def mean_changes(rows: List[Dict[str, Any]], first: float) -> Dict[str, Dict[str, float]]:
    """Per threshold, per text form, the mean over pipelines of its Sentences
    minus the first threshold's."""
    base = {(r["pipeline"], form): r[f"Sentences_{form}"]
            for r in rows if r["end_threshold"] == first for form in FORMS}
    out: Dict[str, Dict[str, float]] = {}
    for threshold in dict.fromkeys(r["end_threshold"] for r in rows):
        found = [r for r in rows if r["end_threshold"] == threshold]
        out[str(threshold)] = {form: round(statistics.mean(
            r[f"Sentences_{form}"] - base[(r["pipeline"], form)] for r in found), 2)
            for form in FORMS}
    return out


def main(argv=None) -> int:
    parser = pipelines_parser(__doc__, "metrics/tokenizers/senter-thresholds.json")
    parser.add_argument("--thresholds", type=float, nargs="+",
                        default=[0.5, 0.45, 0.4, 0.35, 0.3], help="the first the reference")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    scorer = load_scorer(SCRIPT)
    gold = Path(CONLLU.format(split=args.split))
    rows: List[Dict[str, Any]] = []
    for path in args.pipelines:
        nlp = senter_pipeline(path)
        senter = nlp.get_pipe("elstm_senter")
        if not senter.reads_words():
            raise SystemExit(f"{path}: its elstm_senter has no word-level model; "
                             "end_threshold applies to the two models' mean.")
        for threshold in args.thresholds:
            senter.end_threshold = threshold
            row = {"pipeline": path.as_posix(), "end_threshold": threshold,
                   **{f"Sentences_{form}": measure(nlp, gold, scorer, form)["Sentences"]
                      for form in FORMS}}
            print(json.dumps(row), flush=True)
            rows.append(row)
    write_json(args.output, {"split": args.split, "text_forms": list(FORMS), "rows": rows,
                             "mean_change": mean_changes(rows, args.thresholds[0])})
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
