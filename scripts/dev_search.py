"""The dev-only searches: every setting trains one config with a few overrides
and is scored on dev only (spacy evaluate, gold tokenisation), by
scripts/train_and_score.py; the test split is never read. Each setting writes
its training log and dev scores into one folder, which the report tabulates.

UD English-EWT (issue 8's search; after `spacy project run convert`): every
setting trains --steps steps on the full train split, into
metrics/search-<steps>steps/ (--out), as NAME, or NAME-seedN for a seed other
than 0 (the configs' own).

The Penn Treebank sample (--treebank ptb-sample, after `spacy project run
ptb-sample-convert`), for the best ELSTM tagger: each setting its own steps, on
the sample's trees (train files 1-159, dev 160-179), into
metrics/ptb-sample-search/ as trees-NAME, with a run record. `--final NAME`,
once the search is done, scores the model NAME trained on dev and test into
metrics/ptb-sample-final/: the one reading of the test files, for the setting
picked on dev.

Usage (from the project root):
    python scripts/dev_search.py [NAME ...] [--steps 2000] [--out DIR] [--threads 1] [--seed 0]
    python scripts/dev_search.py --treebank ptb-sample [NAME ...] [--out DIR]
    python scripts/dev_search.py --treebank ptb-sample --final NAME
Without names it lists the settings.
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "train_and_score", Path(__file__).resolve().parent / "train_and_score.py")
tas = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tas)

V2 = "configs/experiments/encoders/elstm_brnn_v2.cfg"
ENC = "components.tok2vec.model.encode"
LR = "training.optimizer.learn_rate.initial_rate"
AVG = "training.optimizer.use_averages"
DROP = "training.dropout"
SP_ENC = "components.parser.encoding"
SP_DEPTH = "components.parser.model.depth"
B2 = "training.optimizer.beta2"
CLIP = "training.optimizer.grad_clip"
BIA = "components.parser.model"
# name: (config, overrides); every name is the config's own settings unless it says otherwise
SETTINGS = {
    "cnn": ("configs/cnn.cfg", {}),
    "cnn-lr2": ("configs/cnn.cfg", {LR: 0.002}),
    "cnn-lr3": ("configs/cnn.cfg", {LR: 0.003}),
    "v1": ("configs/elstm_brnn.cfg", {}),
    "v2": (V2, {}),
    "v2-lr2": (V2, {LR: 0.002}),
    "v2-lr2-ln": (V2, {LR: 0.002, f"{ENC}.layer_norm": True}),
    "v2-lr2-proj": (V2, {LR: 0.002, f"{ENC}.projection": True}),
    "v2-lr2-d2": (V2, {LR: 0.002, f"{ENC}.depth": 2}),
    "v2-lr2-w256": (V2, {LR: 0.002, f"{ENC}.width": 256}),
    "v2-lr2-wd": (V2, {LR: 0.002, f"{ENC}.word_dropout": 0.1}),
    "v2-lr2-id": (V2, {LR: 0.002, f"{ENC}.input_dropout": 0.1}),
    "v2-lr2-ts1": (V2, {LR: 0.002, f"{ENC}.period": 1}),
    "v2-lr3": (V2, {LR: 0.003}),
    "v2-lr2-input": (V2, {LR: 0.002, f"{ENC}.gates": "input"}),
    "v2-lr2-w256-ln": (V2, {LR: 0.002, f"{ENC}.width": 256, f"{ENC}.layer_norm": True}),
    "v2-lr2-w256-ln-d2": (V2, {LR: 0.002, f"{ENC}.width": 256, f"{ENC}.layer_norm": True,
                               f"{ENC}.depth": 2}),
    "v2-lr3-w256-ln": (V2, {LR: 0.003, f"{ENC}.width": 256, f"{ENC}.layer_norm": True}),
    "v2-lr3-w256-ln-d2": (V2, {LR: 0.003, f"{ENC}.width": 256, f"{ENC}.layer_norm": True,
                               f"{ENC}.depth": 2}),
    "v2-lr2-w256-ln-wd": (V2, {LR: 0.002, f"{ENC}.width": 256, f"{ENC}.layer_norm": True,
                               f"{ENC}.word_dropout": 0.1}),
    # from best_elstm (= v2-lr3-w256-ln-d2): character-level input, a wider parser,
    # word dropout; and spaCy's CNN with character-level input
    "best-chars": ("configs/experiments/chars/best_elstm.cfg", {}),
    "best-parser128": ("configs/best_elstm.cfg", {"components.parser.model.hidden_width": 128}),
    "best-wd": ("configs/best_elstm.cfg", {f"{ENC}.word_dropout": 0.1}),
    "cnn-chars": ("configs/experiments/chars/cnn.cfg", {}),
    "cnn-parser128": ("configs/cnn.cfg", {"components.parser.model.hidden_width": 128}),
    # best_elstm as it was then (now configs/shared_elstm.cfg), for a longer budget (--steps 10000)
    "best": ("configs/shared_elstm.cfg", {}),
    # from best_elstm, for longer budgets (--steps 5000): parameter averaging,
    # more dropout (the optimiser's and the encoder's), a wider encoder
    "best-avg": ("configs/best_elstm.cfg", {AVG: True}),
    "best-drop2": ("configs/best_elstm.cfg", {DROP: 0.2, f"{ENC}.dropout": 0.2}),
    "best-w384": ("configs/best_elstm.cfg", {f"{ENC}.width": 384}),
    "best-avg-drop2": ("configs/best_elstm.cfg", {AVG: True, DROP: 0.2, f"{ENC}.dropout": 0.2}),
    "best-avg-w384": ("configs/best_elstm.cfg", {AVG: True, f"{ENC}.width": 384}),
    "best-avg-drop3": ("configs/best_elstm.cfg", {AVG: True, DROP: 0.3, f"{ENC}.dropout": 0.3}),
    "best-avg-drop2-w384": ("configs/best_elstm.cfg", {AVG: True, DROP: 0.2, f"{ENC}.dropout": 0.2,
                                                       f"{ENC}.width": 384}),
    # from best_elstm as it was then (configs/shared_elstm.cfg), for the UPOS target
    # (--steps 10000): larger hash tables for the word features (NORM, PREFIX,
    # SUFFIX, SHAPE), and a character-level recurrent embedding of each word
    # beside them (the search's choice: configs/best_elstm.cfg since, and then
    # without words_dropout)
    "best-rows": ("configs/shared_elstm.cfg",
                  {"components.tok2vec.model.embed.rows": "[20000,2000,5000,2500]"}),
    "best-charrnn": ("configs/best_elstm.cfg",
                     {"components.tok2vec.model.embed.words_dropout": 0.0}),
    # from best_elstm as it was then (best-charrnn), for the UPOS target (--steps
    # 10000): the hashed word features of a fifth of the tokens dropped in
    # training, so that the tagger learns to read words from their characters
    # (the search's choice: configs/best_elstm.cfg since, where it is set already)
    "best-words-drop2": ("configs/best_elstm.cfg",
                         {"components.tok2vec.model.embed.words_dropout": 0.2}),
    # from best_elstm (words_dropout 0.2), for the UPOS target (--steps 10000):
    # a third of the tokens' word features dropped
    "best-words-drop3": ("configs/best_elstm.cfg",
                         {"components.tok2vec.model.embed.words_dropout": 0.3}),
    # each cell's own learning rate (--steps 5000), around the shared setting's 0.003
    # (configs/shared_*.cfg, set by the ELSTM's search): the per-encoder search
    **{f"{cell}-lr{r}": (f"configs/shared_{cell}.cfg", {LR: r / 1000})
       for cell in ("lstm", "gru", "dbrnn") for r in (2, 4)},
    **{f"elstm2-lr{r}": ("configs/experiments/encoders/shared_elstm2.cfg", {LR: r / 1000})
       for r in (2, 4)},
    # the biaffine parser (elstm_biaffine_parser) in place of spaCy's transition parser
    "best-biaffine": ("configs/biaffine/shared_elstm.cfg", {}),
    "cnn-biaffine": ("configs/biaffine/cnn.cfg", {}),
    # the biaffine parser's training (issue 33, --steps 2000 then 5000): Adam's
    # beta2 at Dozat & Manning's 0.9, the learning rate, gradient clipping, the
    # MLPs' dropout and widths, the weight of its gradient in the shared tok2vec;
    # on the tok2vec of configs/shared_elstm.cfg (hashed word features only: the
    # biaffine configs had no character-level embedding until then)
    **{name: ("configs/biaffine/shared_elstm.cfg", overrides) for name, overrides in {
        "bia-b2": {B2: 0.9},
        "bia-b2-lr2": {B2: 0.9, LR: 0.002},
        "bia-b2-clip5": {B2: 0.9, CLIP: 5.0},
        "bia-b2-lr4": {B2: 0.9, LR: 0.004},
        "bia-b2-mlp-drop2": {B2: 0.9, f"{BIA}.dropout": 0.2},
        "bia-b2-arc256": {B2: 0.9, f"{BIA}.arc_width": 256},
        "bia-b2-noavg": {B2: 0.9, AVG: False},
        "bia-b2-lw05": {B2: 0.9, "components.parser.loss_weight": 0.5},
        "bia-b2-lw2": {B2: 0.9, "components.parser.loss_weight": 2.0},
        "bia-lr2": {LR: 0.002},
        "bia-lr1": {LR: 0.001},
        "bia-lw2": {"components.parser.loss_weight": 2.0},
    }.items()},
    # the biaffine parser on the tok2vec of configs/best_elstm.cfg (its
    # character-level embedding), at the search's learning rate 0.002: reading the
    # listener directly, and through a recurrent layer of its own (the search's
    # choice: configs/biaffine/best_elstm.cfg since)
    "bia-char-lr2": ("configs/experiments/biaffine/best_elstm_listener.cfg", {LR: 0.002}),
    "bia-char-lr2-enc": ("configs/biaffine/best_elstm.cfg", {LR: 0.002}),
    # from bia-char-lr2-enc, for the UPOS target (issue 33, item 2; --steps 2000):
    # a UPOS tagger of its own (17 classes) overwriting the morphologizer's POS
    "bia-char-upos": ("configs/experiments/biaffine/best_elstm_upos.cfg", {LR: 0.002}),
    # parsing as sequence labelling (elstm_seq_parser) in place of spaCy's transition parser
    "best-seqparse": ("configs/seqparse/best_elstm.cfg", {}),
    "cnn-seqparse": ("configs/seqparse/cnn.cfg", {}),
    # the search that set its encoding and depth (from the pos encoding and a
    # one-layer BRNN; both pinned, so each name keeps what it measured)
    "best-seqparse-d2": ("configs/seqparse/best_elstm.cfg", {SP_ENC: "pos", SP_DEPTH: 2}),
    "best-seqparse-rel": ("configs/seqparse/best_elstm.cfg", {SP_ENC: "relative", SP_DEPTH: 1}),
    "best-seqparse-rel-d2": ("configs/seqparse/best_elstm.cfg", {SP_ENC: "relative", SP_DEPTH: 2}),
}

EMBED = "components.tok2vec.model.embed"
PTB_BEST = "configs/ptb/best_elstm.cfg"
# The Penn Treebank sample's settings, name: (config, steps, overrides)
PTB_SETTINGS = {
    "best_elstm-3000": (PTB_BEST, 3000, {}),
    "best_elstm-4000": (PTB_BEST, 4000, {}),
    "best_elstm-rows": (PTB_BEST, 2000, {f"{EMBED}.rows": "[20000,2000,5000,5000]"}),
    "best_elstm-wd": (PTB_BEST, 2000, {f"{ENC}.word_dropout": 0.1}),
    "best_elstm-4000-wd": (PTB_BEST, 4000, {f"{ENC}.word_dropout": 0.1}),
}
PTB_CORPUS = "corpus/ptb-sample/trees/{split}.spacy"


def _overrides(overrides):
    return [f"--{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in overrides.items()]


def run(name: str, steps: int, out: Path, threads: int, seed: int = 0) -> None:
    """Train and score one UD setting on dev."""
    config, overrides = SETTINGS[name]
    if seed:
        overrides = {**overrides, "system.seed": seed}
        name = f"{name}-seed{seed}"
    os.environ["OMP_NUM_THREADS"] = str(threads)
    tas.train_and_score(tas.Run(name, Path(config)), tas.Options(
        metrics=out, models=Path("training") / "search", splits=("dev",), conllu=None,
        steps=steps, overrides=_overrides(overrides)))


def run_ptb(name: str, out: Path) -> None:
    """Train and score one Penn Treebank sample setting on dev."""
    config, steps, overrides = PTB_SETTINGS[name]
    tas.train_and_score(tas.Run(f"trees-{name}", Path(config)), tas.Options(
        metrics=out, models=Path("training") / "ptb-sample-search", corpus=PTB_CORPUS,
        splits=("dev",), conllu=None, record=True, steps=steps,
        overrides=["--system.seed=0", *_overrides(overrides)]))


def final(name: str, out: Path) -> None:
    """Score the model of PTB setting ``name`` on dev and test, once, into metrics/ptb-sample-final."""
    model = Path("training") / "ptb-sample-search" / f"trees-{name}" / "model-best"
    if not model.is_dir():
        sys.exit(f"{model}: no such model; run the search for {name} first.")
    folder = Path("metrics") / "ptb-sample-final"
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("dev", "test"):
        subprocess.run([sys.executable, "-m", "spacy", "evaluate", str(model),
                        PTB_CORPUS.format(split=split), "--output",
                        str(folder / f"trees-{name}-{split}.json"), "--gold-preproc"], check=True)
    for record in (f"train-trees-{name}.jsonl", f"run-trees-{name}.json"):
        shutil.copyfile(out / record, folder / record)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--treebank", choices=("ud", "ptb-sample"), default="ud")
    parser.add_argument("--steps", type=int, default=2000, help="UD: the steps of every setting")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0, help="UD: the training seed")
    parser.add_argument("--final", metavar="NAME", choices=sorted(PTB_SETTINGS), default=None,
                        help="PTB sample: score NAME's model on dev and test into "
                             "metrics/ptb-sample-final")
    opts = parser.parse_args()
    ptb = opts.treebank == "ptb-sample"
    settings = PTB_SETTINGS if ptb else SETTINGS
    out = opts.out or Path("metrics") / ("ptb-sample-search" if ptb else f"search-{opts.steps}steps")
    if opts.final:
        final(opts.final, out)
        return
    if not opts.names:
        for name, setting in settings.items():
            print(f"{name:20s}", *setting)
        return
    unknown = [n for n in opts.names if n not in settings]
    if unknown:
        sys.exit(f"unknown setting(s) {unknown}: choose from {list(settings)}")
    for name in opts.names:
        if ptb:
            run_ptb(name, out)
        else:
            run(name, opts.steps, out, opts.threads, opts.seed)


if __name__ == "__main__":
    main()
