"""Text without punctuation in lower case, as speech recognisers without a
punctuation model write it: how often the senter's second pair of models
(the one that splits Docs without punctuation) should see its training text in
lower case. For each share and seed it trains a senter
(`scripts/train_senter.py`, `text/training_text.UNPUNCTUATED_LOWER_CASE` set to
the share), puts it into the seed's trained raw pipeline in place of its own
and scores EWT dev's raw text in UD's form as written, without punctuation,
and in lower case without punctuation (`score --raw --text-variant`),
Sentences and LAS by the CoNLL 2018 script. The package's share is scored on
the pipeline as it is (its senter was trained with it).

    python -m lab.senter_transcripts --shares 0.05 0.5 --seeds 0 1 [--pipeline training/raw-ud-10000steps{seed}/best_elstm/model-best] [--work training/senter-transcripts] [--output metrics/tokenizers/senter-transcripts.json]
"""
import argparse
import importlib.util
import json
from pathlib import Path

import torch

from spacy_elstm.files import write_json
from spacy_elstm.text import training_text

from .senter_unpunctuated import variant_scores
from .tokenizers import CONLLU

VARIANTS = ("as-written", "unpunctuated", "lowercase-unpunctuated")
CORPUS = Path("corpus/ud/en_ewt-ud-train.spacy")
PIPELINE = "training/raw-ud-10000steps{seed}/best_elstm/model-best"  # {seed}: "" or -seedN


def train_senter_script():
    path = Path(__file__).resolve().parent.parent / "scripts" / "train_senter.py"
    spec = importlib.util.spec_from_file_location("train_senter", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pipeline_of(share: float, seed: int, pattern: str, work: Path) -> Path:
    shipped = Path(pattern.format(seed=f"-seed{seed}" if seed else ""))
    if share == training_text.LOWER_CASE:
        return shipped
    senter = work / f"senter-lower{share}-seed{seed}"
    pipeline = work / f"pipeline-lower{share}-seed{seed}"
    script = train_senter_script()
    training_text.UNPUNCTUATED_LOWER_CASE = share
    try:
        if not senter.is_dir():
            script.main([str(CORPUS), str(senter), "--seed", str(seed)])
    finally:
        training_text.UNPUNCTUATED_LOWER_CASE = training_text.LOWER_CASE
    if not pipeline.is_dir():
        script.main(["--into", str(shipped), str(senter), str(pipeline), "--replace"])
    return pipeline


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shares", type=float, nargs="+", default=[0.05, 0.5])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--pipeline", default=PIPELINE)
    parser.add_argument("--work", type=Path, default=Path("training/senter-transcripts"))
    parser.add_argument("--split", default="dev")
    parser.add_argument("--output", type=Path,
                        default=Path("metrics/tokenizers/senter-transcripts.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    gold = Path(CONLLU.format(split=args.split))
    rows = []
    for share in args.shares:
        for seed in args.seeds:
            path = pipeline_of(share, seed, args.pipeline, args.work)
            row = {"lower_case_share": share, "seed": seed, "pipeline": path.as_posix(),
                   **variant_scores(path, gold, VARIANTS)}
            print(json.dumps(row), flush=True)
            rows.append(row)
            write_json(args.output, {"split": args.split, "text_form": "ud", "rows": rows})
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
