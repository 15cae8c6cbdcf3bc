"""Text without punctuation, and what it costs the text with it: trained raw
pipelines whose `elstm_senter` differs (its first models alone; models that
learned both texts together; a second pair for the text without punctuation)
on EWT dev's raw text in UD's form as written and without punctuation
(`score --raw --text-variant unpunctuated`), Sentences and LAS by the CoNLL
2018 script.

    python -m lab.senter_unpunctuated LABEL=PIPELINE [...] [--split dev] [--output metrics/tokenizers/senter-unpunctuated.json]
"""
import json
from pathlib import Path

import torch

from spacy_elstm.files import write_json
from spacy_elstm.treebanks.scoring import score

from .arguments import pipelines_parser
from .tokenizers import CONLLU, SCRIPT

VARIANTS = ("as-written", "unpunctuated")
METRICS = ("Sentences", "LAS")


def variant_scores(path, gold: Path, variants) -> dict:
    """METRIC_VARIANT of the pipeline on each variant of the gold's raw text, and
    whether its senter routes text without punctuation to a second pair."""
    row = {}
    for variant in variants:
        found = score(path, gold, scorer=SCRIPT, raw=True, text_variant=variant)
        row.update({f"{m}_{variant}": found[m] for m in METRICS})
        row.setdefault("routes_unpunctuated", bool(found["senter"].get("unpunctuated")))
    return row


def main(argv=None) -> int:
    parser = pipelines_parser(__doc__, "metrics/tokenizers/senter-unpunctuated.json", labelled=True)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    gold = Path(CONLLU.format(split=args.split))
    rows = []
    for item in args.pipelines:
        label, _, path = item.partition("=")
        if not path:
            parser.error(f"{item!r}: expected LABEL=PIPELINE")
        row = {"senter": label, "pipeline": path, **variant_scores(path, gold, VARIANTS)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    write_json(args.output, {"split": args.split, "text_form": "ud", "rows": rows})
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
