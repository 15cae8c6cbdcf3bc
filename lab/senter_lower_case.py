"""Lower-case text: how often each of the senter's pairs of models should see
its training text in lower case. The first pair splits text with punctuation
(`text/training_text.LOWER_CASE`), the second text without it, as speech
recognisers without a punctuation model write it in lower case
(`UNPUNCTUATED_LOWER_CASE`). For each share and seed it trains a senter
(`scripts/train_senter.py`, the pair's share set to it), puts it into the
seed's trained raw pipeline in place of its own and scores EWT dev's raw text
in UD's form as written and in the pair's lower-case variant (`score --raw
--text-variant`), Sentences and LAS by the CoNLL 2018 script. The package's
share is scored on the pipeline as it is (its senter was trained with it).

    python -m lab.senter_lower_case --pair unpunctuated --shares 0.05 0.5 --seeds 0 [--pipeline training/raw-ud-10000steps{seed}/best_elstm/model-best] [--work training/senter-lower-case] [--output metrics/tokenizers/senter-lower-case-PAIR.json]
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

# per pair: the training_text constant it reads, and the variants it is judged on
PAIRS = {"first": ("LOWER_CASE", ("as-written", "lowercase")),
         "unpunctuated": ("UNPUNCTUATED_LOWER_CASE",
                          ("as-written", "unpunctuated", "lowercase-unpunctuated"))}
CORPUS = Path("corpus/UD_English-EWT/en_ewt-ud-train.spacy")
PIPELINE = "training/raw-ud-10000steps{seed}/best_elstm/model-best"  # {seed}: "" or -seedN


def train_senter_script():
    path = Path(__file__).resolve().parent.parent / "scripts" / "train_senter.py"
    spec = importlib.util.spec_from_file_location("train_senter", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pipeline_of(pair: str, share: float, seed: int, pattern: str, work: Path) -> Path:
    constant = PAIRS[pair][0]
    shipped = Path(pattern.format(seed=f"-seed{seed}" if seed else ""))
    package_share = getattr(training_text, constant)
    if share == package_share:
        return shipped
    name = f"{pair}-lower{share}-seed{seed}"
    senter, pipeline = work / f"senter-{name}", work / f"pipeline-{name}"
    script = train_senter_script()
    setattr(training_text, constant, share)
    try:
        if not senter.is_dir():
            script.main([str(CORPUS), str(senter), "--seed", str(seed)])
    finally:
        setattr(training_text, constant, package_share)
    if not pipeline.is_dir():
        script.main(["--into", str(shipped), str(senter), str(pipeline), "--replace"])
    return pipeline


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", choices=sorted(PAIRS), required=True)
    parser.add_argument("--shares", type=float, nargs="+", required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--pipeline", default=PIPELINE)
    parser.add_argument("--work", type=Path, default=Path("training/senter-lower-case"))
    parser.add_argument("--split", default="dev")
    parser.add_argument("--output", type=Path, default=None,
                        help="default: metrics/tokenizers/senter-lower-case-PAIR.json")
    args = parser.parse_args(argv)
    output = args.output or Path(f"metrics/tokenizers/senter-lower-case-{args.pair}.json")
    torch.set_num_threads(1)
    gold = Path(CONLLU.format(split=args.split))
    rows = []
    for share in args.shares:
        for seed in args.seeds:
            path = pipeline_of(args.pair, share, seed, args.pipeline, args.work)
            row = {"pair": args.pair, "lower_case_share": share, "seed": seed,
                   "pipeline": path.as_posix(), **variant_scores(path, gold, PAIRS[args.pair][1])}
            print(json.dumps(row), flush=True)
            rows.append(row)
            write_json(output, {"split": args.split, "text_form": "ud", "rows": rows})
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
