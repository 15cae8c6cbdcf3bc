"""What the character model's windows cost and find: a trained pipeline's
`elstm_senter` reads EWT dev's raw text in windows of W characters, K windows
a call (the recurrence takes W steps a call, each over K windows: fewer,
shorter steps or more, longer ones), its own seconds on dev's documents in UD's
form (`pipe` over tokenized Docs, one thread, the best of three rounds) as a
ratio to the shipped W and K in the same run, and Sentences F1 (CoNLL 2018
script) in each text form over the pipeline's tokenizer. The weights stay as
trained (on windows of the saved size).

    python -m lab.senter_windows training/raw-ud-10000steps/best_elstm/model-best [--windows 300:64 150:128 100:192] [--output metrics/tokenizers/senter-windows.json]
"""
import argparse
import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

import torch

from spacy_elstm.components import elstm_senter
from spacy_elstm.files import write_json
from spacy_elstm.text import segmenter
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer

from .senter_depths import senter_seconds
from .senter_words import FORMS
from .tokenizers import CONLLU, SCRIPT, measure, senter_pipeline


def read_as(senter, window: int, per_call: int) -> None:
    """Have the senter read `per_call` windows of `window` characters a call."""
    senter.segmenter.window = window
    segmenter.WINDOWS_PER_CALL = per_call
    elstm_senter.WINDOWS_PER_CALL = per_call


def pair(text: str) -> Tuple[int, int]:
    window, per_call = text.split(":")
    return int(window), int(per_call)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("--windows", type=pair, nargs="+",
                        default=[(300, 64), (200, 96), (150, 128), (100, 192), (150, 64)],
                        help="WINDOW:PER_CALL pairs, the shipped first")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--output", type=Path,
                        default=Path("metrics/tokenizers/senter-windows.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    scorer = load_scorer(SCRIPT)
    gold = Path(CONLLU.format(split=args.split))
    nlp = senter_pipeline(args.pipeline)
    senter = nlp.get_pipe("elstm_senter")
    shipped = (senter.segmenter.window, segmenter.WINDOWS_PER_CALL)
    texts = [d.text for d in raw_documents(gold, "ud")]
    rows: List[Dict[str, Any]] = []
    for window, per_call in args.windows:
        read_as(senter, window, per_call)
        row = {"window": window, "windows_per_call": per_call,
               "senter_seconds": round(senter_seconds(nlp, texts), 3),
               **{f"Sentences_{form}": measure(nlp, gold, scorer, form)["Sentences"]
                  for form in FORMS}}
        row["time_vs_first"] = round(row["senter_seconds"] / rows[0]["senter_seconds"], 3) \
            if rows else 1.0
        print(json.dumps(row), flush=True)
        rows.append(row)
    read_as(senter, *shipped)
    write_json(args.output, {"pipeline": args.pipeline.as_posix(), "split": args.split,
                             "saved_window": shipped[0], "timing": "senter alone, UD's form, "
                             "best of 3, one thread", "rows": rows})
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
