"""A dev-only search on the Penn Treebank sample, for the best ELSTM tagger:
every setting is one configs/ptb/ config with a few overrides, trained on the
sample's trees (train files 1-159) and scored on its dev files (160-179) only.
Each setting writes its training log and dev scores into one folder, which
`spacy-elstm report` tabulates (`trees-<name>-dev.json`); the test files are
never read here.

Usage (from the project root, after `spacy project run ptb-sample-convert`):
    python scripts/ptb_dev_search.py [NAME ...] [--out metrics/ptb-sample-search]
    python scripts/ptb_dev_search.py --final NAME [--out metrics/ptb-sample-search]
Without names it lists the settings. `--final NAME`, once the search is done,
scores the model that NAME trained on the dev and the test files into
metrics/ptb-sample-final/ (with its training log and run record): the one
reading of the test files, for the setting picked on dev.
"""
import shutil
import argparse
import os
import subprocess
import sys
from pathlib import Path

ENC = "components.tok2vec.model.encode"
EMBED = "components.tok2vec.model.embed"
BEST = "configs/ptb/best_elstm.cfg"
# name: (config, steps, overrides)
SETTINGS = {
    "best_elstm-3000": (BEST, 3000, {}),
    "best_elstm-4000": (BEST, 4000, {}),
    "best_elstm-rows": (BEST, 2000, {f"{EMBED}.rows": "[20000,2000,5000,5000]"}),
    "best_elstm-wd": (BEST, 2000, {f"{ENC}.word_dropout": 0.1}),
    "best_elstm-4000-wd": (BEST, 4000, {f"{ENC}.word_dropout": 0.1}),
}
DATA = Path("corpus/ptb-sample/trees")


def run(name: str, out: Path) -> None:
    config, steps, overrides = SETTINGS[name]
    model = Path("training") / "ptb-sample-search" / name
    args = [f"--{k}={v}" for k, v in overrides.items()]
    subprocess.run([sys.executable, "-m", "spacy", "train", config, "--output", str(model),
                    "--paths.train", str(DATA / "train.spacy"), "--paths.dev", str(DATA / "dev.spacy"),
                    "--paths.train_log", str(out / f"train-trees-{name}.jsonl"),
                    f"--training.max_steps={steps}", "--system.seed=0", *args],
                   check=True, env=os.environ)
    subprocess.run([sys.executable, "-m", "spacy", "evaluate", str(model / "model-best"),
                    str(DATA / "dev.spacy"), "--output", str(out / f"trees-{name}-dev.json"),
                    "--gold-preproc"], check=True, env=os.environ)
    subprocess.run([sys.executable, "scripts/run_record.py", str(model),
                    str(out / f"run-trees-{name}.json")], check=True, env=os.environ)


def final(name: str, out: Path) -> None:
    model = Path("training") / "ptb-sample-search" / name / "model-best"
    if not model.is_dir():
        sys.exit(f"{model}: no such model; run the search for {name} first.")
    folder = Path("metrics") / "ptb-sample-final"
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("dev", "test"):
        subprocess.run([sys.executable, "-m", "spacy", "evaluate", str(model),
                        str(DATA / f"{split}.spacy"), "--output",
                        str(folder / f"trees-{name}-{split}.json"), "--gold-preproc"],
                       check=True, env=os.environ)
    for record in (f"train-trees-{name}.jsonl", f"run-trees-{name}.json"):
        shutil.copyfile(out / record, folder / record)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--out", type=Path, default=Path("metrics") / "ptb-sample-search")
    parser.add_argument("--final", metavar="NAME", choices=sorted(SETTINGS), default=None,
                        help="score NAME's model on dev and test into metrics/ptb-sample-final")
    opts = parser.parse_args()
    if opts.final:
        final(opts.final, opts.out)
        return
    if not opts.names:
        for name, (config, steps, overrides) in SETTINGS.items():
            print(f"{name:20s} {config} {steps} steps {overrides}")
        return
    unknown = [n for n in opts.names if n not in SETTINGS]
    if unknown:
        sys.exit(f"unknown setting(s) {unknown}: choose from {list(SETTINGS)}")
    opts.out.mkdir(parents=True, exist_ok=True)
    for name in opts.names:
        run(name, opts.out)


if __name__ == "__main__":
    main()
