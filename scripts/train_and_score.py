"""Train configs and score each trained pipeline: the one train-and-score step of every study.

    python scripts/train_and_score.py [NAME=]CONFIG ... --metrics DIR [options] [-- OVERRIDE ...]

For each run, one after another: `spacy train` CONFIG into MODELS/NAME (dev picks
model-best), its training log in METRICS/train-NAME.jsonl; then, for each split,
`spacy evaluate` into METRICS/NAME-SPLIT.json and the official CoNLL 2018 script
(`spacy-elstm score`) into METRICS/NAME-SPLIT.official.json, on gold
tokenisation, as the report reads them; with --raw also on each split's raw text
(`spacy-elstm score --raw`) into METRICS/NAME-SPLIT.raw.json. --no-train scores
pipelines trained before. NAME is the config's file name without
.cfg unless given; a CONFIG that is a folder stands for every .cfg in it.
A run whose score files are all there already is skipped, so a stopped study
resumes by run; --force trains it again (project.yml's single-run commands pass
it: there spaCy's deps and outputs decide what is done).

Defaults are UD English-EWT's (corpus/UD_English-EWT, the CoNLL-U files in
assets/); --treebank assets/UD_<Name> takes any UD treebank's instead (its
files found by their names, its corpus as `spacy-elstm convert` writes the folder
into corpus/UD_<Name>, the pipeline built in the language of its file names, `xx`
where spaCy has none); the Penn Treebank runs set --corpus and --conllu none,
the paper's --model-last --gold-lemmas --no-evaluate.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import List, NamedTuple, Optional, Sequence

UD_CORPUS = "corpus/UD_English-EWT/en_ewt-ud-{split}.spacy"
UD_CONLLU = "assets/UD_English-EWT/en_ewt-ud-{split}.conllu"
SCORER = "assets/conll2018-eval/conll18_ud_eval.py"


class Run(NamedTuple):
    name: str
    config: Path


class Options(NamedTuple):
    metrics: Path
    models: Path = Path("training")
    corpus: str = UD_CORPUS
    conllu: Optional[str] = UD_CONLLU  # None: no official scores
    train_conllu: Optional[str] = UD_CONLLU.format(split="train")  # the unseen-word scores
    splits: Sequence[str] = ("dev", "test")
    evaluate: bool = True
    model_last: bool = False
    gold_lemmas: bool = False
    record: bool = False
    steps: Optional[int] = None
    gpu_id: int = -1
    overrides: Sequence[str] = ()
    force: bool = False
    raw: bool = False
    train: bool = True
    no_lemmas: bool = False  # the training split's words have no lemmas


def runs_of(specs: Sequence[str]) -> List[Run]:
    """The runs that ``[NAME=]CONFIG`` specs name; a folder is each .cfg in it."""
    runs = []
    for spec in specs:
        name, _, path = spec.rpartition("=")
        config = Path(path)
        if config.is_dir() and not name:
            runs.extend(Run(p.stem, p) for p in sorted(config.glob("*.cfg")))
        elif config.is_file():
            runs.append(Run(name or config.stem, config))
        else:
            raise SystemExit(f"no config {config}")
    return runs


def outputs(run: Run, opts: Options) -> List[Path]:
    """The score files a run writes, the last one last."""
    files = []
    for split in opts.splits:
        if opts.evaluate:
            files.append(opts.metrics / f"{run.name}-{split}.json")
        if opts.conllu:
            files.append(opts.metrics / f"{run.name}-{split}.official.json")
        if opts.conllu and opts.raw:
            files.append(opts.metrics / f"{run.name}-{split}.raw.json")
    return files


def _call(args: List[str]) -> None:
    subprocess.run([str(a) for a in args], check=True, env=os.environ)


def run_overrides(run: Run, opts: Options) -> List[str]:
    """The overrides of the run's `spacy train`: opts.overrides, and before them
    (so that the user's win), where the treebank's words have no lemmas (as
    Maltese-MUDT), a pipeline without the components that set lemmas (they
    would have none to learn: spaCy's E143)."""
    if not opts.no_lemmas:
        return list(map(str, opts.overrides))
    from spacy.util import load_config

    from spacy_elstm.treebanks.ud_folder import sets_lemmas

    config = load_config(run.config, interpolate=False)
    components = config.get("components", {})
    kept = [name for name in config["nlp"]["pipeline"]
            if not sets_lemmas(components[name]["factory"])]
    return ["--nlp.pipeline", json.dumps(kept), *map(str, opts.overrides)]


def train_and_score(run: Run, opts: Options) -> bool:
    """Train and score one run; False when its scores were there already."""
    if not opts.force and all(path.is_file() for path in outputs(run, opts)):
        print(f"=== {run.name}: done, skipped")
        return False
    opts.metrics.mkdir(parents=True, exist_ok=True)
    model = opts.models / run.name
    steps = [] if opts.steps is None else ["--training.max_steps", opts.steps]
    print(f"=== {run.name}: {run.config}", *steps, flush=True)
    py = sys.executable
    pipeline = model / ("model-last" if opts.model_last else "model-best")
    if opts.train:
        overrides = run_overrides(run, opts)
        start = time.time()
        _call([py, "-m", "spacy", "train", run.config, "--output", model,
               "--paths.train", opts.corpus.format(split="train"),
               "--paths.dev", opts.corpus.format(split="dev"),
               "--paths.train_log", opts.metrics / f"train-{run.name}.jsonl",
               *steps, "--gpu-id", opts.gpu_id, *overrides])
        from spacy_elstm.files import write_json

        # the whole `spacy train`: initialisation (a raw pipeline's tokenizer and senter
        # learn then) and the training loop, whose own seconds the log holds
        write_json(opts.metrics / f"train-{run.name}.time.json",
                   {"seconds": round(time.time() - start, 1), "config": str(run.config),
                    "overrides": [str(o) for o in overrides], "steps": opts.steps})
    elif not pipeline.is_dir():
        raise SystemExit(f"--no-train: no trained pipeline at {pipeline}")
    for split in opts.splits:
        if opts.evaluate:
            _call([py, "-m", "spacy", "evaluate", pipeline, opts.corpus.format(split=split),
                   "--output", opts.metrics / f"{run.name}-{split}.json", "--gold-preproc",
                   "--gpu-id", opts.gpu_id])
        if opts.conllu:
            conllu = Path(opts.conllu.format(split=split))
            _call([py, "-m", "spacy_elstm", "score", pipeline, conllu,
                   "--output", opts.metrics / f"{run.name}-{split}.official.json",
                   "--predictions", model / "predictions" / conllu.name,
                   "--scorer", SCORER, "--gpu-id", opts.gpu_id,
                   *(["--gold-lemmas"] if opts.gold_lemmas else []),
                   *(["--train", opts.train_conllu] if opts.train_conllu else [])])
        if opts.conllu and opts.raw:
            _call([py, "-m", "spacy_elstm", "score", pipeline, conllu, "--raw",
                   "--output", opts.metrics / f"{run.name}-{split}.raw.json",
                   "--predictions", model / "predictions-raw" / conllu.name,
                   "--scorer", SCORER, "--gpu-id", opts.gpu_id])
    if opts.record:
        _call([py, "scripts/run_record.py", model, opts.metrics / f"run-{run.name}.json",
               "--gpu-id", opts.gpu_id])
    return True


def parse(argv: Sequence[str]):
    argv = list(argv)
    overrides = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="+", metavar="[NAME=]CONFIG")
    parser.add_argument("--metrics", type=Path, required=True, help="the folder of the scores and logs")
    parser.add_argument("--models", type=Path, default=Path("training"),
                        help="the trained pipelines go to MODELS/NAME (default: training)")
    parser.add_argument("--corpus", default=UD_CORPUS,
                        help="the .spacy files, {split} for train, dev or test (default: %(default)s)")
    parser.add_argument("--conllu", default=UD_CONLLU,
                        help="the CoNLL-U files for the official scores, {split} as above, or none")
    parser.add_argument("--train-conllu", default=UD_CONLLU.format(split="train"),
                        help="scores on the words this file does not have (none: no such scores)")
    parser.add_argument("--treebank", type=Path, default=None,
                        help="a UD treebank's folder: its corpus, CoNLL-U files and language "
                             "in place of --corpus, --conllu and --train-conllu")
    parser.add_argument("--splits", nargs="+", default=["dev", "test"])
    parser.add_argument("--no-evaluate", action="store_true", help="no `spacy evaluate` scores")
    parser.add_argument("--model-last", action="store_true", help="score model-last, not model-best")
    parser.add_argument("--gold-lemmas", action="store_true", help="official scores on gold lemma input")
    parser.add_argument("--record", action="store_true",
                        help="write how each run was made into METRICS/run-NAME.json")
    parser.add_argument("--steps", type=int, default=None, help="training.max_steps (default: the config's)")
    parser.add_argument("--seed", type=int, default=0,
                        help="system.seed, and a seed other than 0 writes into METRICS-seedN "
                             "and MODELS-seedN (the studies' folders, so that seeds may run at "
                             "once; `-- --system.seed N` keeps both)")
    parser.add_argument("--gpu-id", type=int, default=-1)
    parser.add_argument("--force", action="store_true", help="train runs whose scores are there too")
    parser.add_argument("--raw", action="store_true",
                        help="also score each split's raw text (`spacy-elstm score --raw`) into "
                             "METRICS/NAME-SPLIT.raw.json")
    parser.add_argument("--no-train", action="store_true",
                        help="score the pipelines already trained in MODELS, train none")
    parser.set_defaults(no_lemmas=False)  # --treebank's treebank decides it
    args = parser.parse_args(argv)
    none = lambda value: None if value in ("", "none") else value  # noqa: E731
    if args.treebank is not None:
        treebank_options(args)
    seeded = (lambda path: path) if args.seed == 0 else (lambda path: Path(f"{path}-seed{args.seed}"))
    opts = Options(metrics=seeded(args.metrics), models=seeded(args.models), corpus=args.corpus,
                   conllu=none(args.conllu), train_conllu=none(args.train_conllu),
                   splits=tuple(args.splits), evaluate=not args.no_evaluate,
                   model_last=args.model_last, gold_lemmas=args.gold_lemmas, record=args.record,
                   steps=args.steps, gpu_id=args.gpu_id, force=args.force, raw=args.raw,
                   train=not args.no_train, no_lemmas=args.no_lemmas,
                   overrides=(["--nlp.lang", args.language] if args.treebank else [])
                   + (["--system.seed", str(args.seed)] if args.seed else []) + overrides)
    return runs_of(args.configs), opts


def treebank_options(args) -> None:
    """--treebank's corpus, CoNLL-U files and language, set on the parsed args."""
    from spacy_elstm.treebanks.ud_folder import (TreebankFolderError, find_treebank,
                                             treebank_notes)

    try:
        treebank = find_treebank(args.treebank)
    except TreebankFolderError as err:
        raise SystemExit(f"train_and_score.py: {err}")
    for note in treebank_notes(treebank):
        print(note, flush=True)
    pattern = f"{treebank.stem}-ud-{{split}}"
    args.corpus = f"corpus/{treebank.name}/{pattern}.spacy"
    args.conllu = treebank.conllu_pattern
    args.train_conllu = str(treebank.files["train"])
    args.language = treebank.lang
    args.no_lemmas = not treebank.has_lemmas()


def main(argv=None) -> int:
    runs, opts = parse(sys.argv[1:] if argv is None else argv)
    # before any training: a missing CuPy or a CPU-only PyTorch is one line here,
    # not spaCy's "Using GPU" and then its error inside the first run
    from spacy_elstm.cli.gpu import gpu_problem

    problem = gpu_problem(opts.gpu_id)
    if problem:
        print(f"train_and_score.py: {problem}", file=sys.stderr)
        return 1
    for run in runs:
        train_and_score(run, opts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
