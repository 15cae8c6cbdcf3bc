"""Write how a training run was made, beside its scores: the config, seed,
step budget, learning rate, data, tokenisation and wall time, and the machine.

Read from the run's own files (model-best/config.cfg and the training log the
config names), never typed in, so the README's report can show them.

Usage:
    python scripts/run_record.py training/ptb-sample/trees-elstm_brnn \
        metrics/ptb-sample/run-trees-elstm_brnn.json [--gpu-id 0]
"""
import argparse
import json
import os
import platform
import sys
from pathlib import Path


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def last_record(log: Path) -> dict:
    records = []
    for line in log.read_text(encoding="utf8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pass  # a line cut short by a killed run
    if not records:
        raise SystemExit(f"{log}: no training records.")
    return {"last": records[-1], "best": max(records, key=lambda r: r.get("score") or 0)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="the training output folder (holds model-best)")
    parser.add_argument("output", type=Path, help="the JSON file to write")
    parser.add_argument("--gpu-id", type=int, default=-1, help="the GPU it was trained on, or -1")
    args = parser.parse_args(argv)

    import spacy
    import torch

    config = spacy.util.load_config(args.run / "model-best" / "config.cfg", interpolate=True)
    training, paths = config["training"], config["paths"]
    log = Path(paths["train_log"]) if paths.get("train_log") else None
    records = last_record(log) if log is not None and log.is_file() else {}
    encode = config["components"]["tok2vec"]["model"]["encode"]
    record = {
        "config": encode.get("@architectures"),
        "encoder": {k: v for k, v in encode.items() if not k.startswith("@")},
        "pipeline": config["nlp"]["pipeline"],
        "train": paths["train"], "dev": paths["dev"],
        "tokenisation": "gold" if config["corpora"]["train"]["gold_preproc"] else "tokenizer",
        "seed": training["seed"], "max_steps": training["max_steps"],
        "learn_rate": training["optimizer"]["learn_rate"]["initial_rate"],
        "steps": records.get("last", {}).get("step"),
        "words_seen": records.get("last", {}).get("words"),
        "train_seconds": records.get("last", {}).get("seconds"),
        "best_step": records.get("best", {}).get("step"),
        "machine": {"cpu": cpu_name(), "cores": os.cpu_count(), "torch": torch.__version__,
                    "torch_threads": torch.get_num_threads(),
                    "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
                    "gpu": (torch.cuda.get_device_name(args.gpu_id) if args.gpu_id >= 0 else None),
                    "python": platform.python_version()},
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(record, indent=2) + "\n", encoding="utf8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
