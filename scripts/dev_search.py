"""The dev-only search of issue 8: every setting trains the same number of steps
on the full EWT train split from one config with a few overrides, and is scored
on dev (spacy evaluate, gold tokenisation). Each setting writes its training log
and dev scores into one folder, which `spacy-elstm report` tabulates.

Usage (from the project root, after `spacy project run convert`):
    python scripts/dev_search.py [NAME ...] [--steps 2000] [--out metrics/search-2000steps]
         [--threads 1] [--seed 0]
Without names it lists the settings. A seed other than 0 (the configs' own) runs
as NAME-seedN, beside seed 0's NAME. The test split is never read here.
"""
import argparse
import os
import subprocess
import sys
from pathlib import Path

V2 = "configs/elstm_brnn_v2.cfg"
ENC = "components.tok2vec.model.encode"
LR = "training.optimizer.learn_rate.initial_rate"
AVG = "training.optimizer.use_averages"
DROP = "training.dropout"
SP_ENC = "components.parser.encoding"
SP_DEPTH = "components.parser.model.depth"
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
    "best-chars": ("configs/chars/best_elstm.cfg", {}),
    "best-parser128": ("configs/best_elstm.cfg", {"components.parser.model.hidden_width": 128}),
    "best-wd": ("configs/best_elstm.cfg", {f"{ENC}.word_dropout": 0.1}),
    "cnn-chars": ("configs/chars/cnn.cfg", {}),
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
       for cell in ("lstm", "gru", "elstm2", "dbrnn") for r in (2, 4)},
    # the biaffine parser (elstm_biaffine_parser) in place of spaCy's transition parser
    "best-biaffine": ("configs/biaffine/best_elstm.cfg", {}),
    "cnn-biaffine": ("configs/biaffine/cnn.cfg", {}),
    # parsing as sequence labelling (elstm_seq_parser) in place of spaCy's transition parser
    "best-seqparse": ("configs/seqparse/best_elstm.cfg", {}),
    "cnn-seqparse": ("configs/seqparse/cnn.cfg", {}),
    # the search that set its encoding and depth (from the pos encoding and a
    # one-layer BRNN; both pinned, so each name keeps what it measured)
    "best-seqparse-d2": ("configs/seqparse/best_elstm.cfg", {SP_ENC: "pos", SP_DEPTH: 2}),
    "best-seqparse-rel": ("configs/seqparse/best_elstm.cfg", {SP_ENC: "relative", SP_DEPTH: 1}),
    "best-seqparse-rel-d2": ("configs/seqparse/best_elstm.cfg", {SP_ENC: "relative", SP_DEPTH: 2}),
}


def run(name: str, steps: int, out: Path, threads: int, seed: int = 0) -> None:
    config, overrides = SETTINGS[name]
    if seed:
        overrides = {**overrides, "system.seed": seed}
        name = f"{name}-seed{seed}"
    model = Path("training") / "search" / name
    args = [f"--{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in overrides.items()]
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    subprocess.run([sys.executable, "-m", "spacy", "train", config, "--output", str(model),
                    "--paths.train", "corpus/ud/en_ewt-ud-train.spacy",
                    "--paths.dev", "corpus/ud/en_ewt-ud-dev.spacy",
                    "--paths.train_log", str(out / f"train-{name}.jsonl"),
                    f"--training.max_steps={steps}", *args], check=True, env=env)
    subprocess.run([sys.executable, "-m", "spacy", "evaluate", str(model / "model-best"),
                    "corpus/ud/en_ewt-ud-dev.spacy", "--output", str(out / f"{name}-dev.json"),
                    "--gold-preproc"], check=True, env=env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args()
    if not opts.names:
        for name, (config, overrides) in SETTINGS.items():
            print(f"{name:14s} {config} {overrides}")
        return
    unknown = [n for n in opts.names if n not in SETTINGS]
    if unknown:
        sys.exit(f"unknown setting(s) {unknown}: choose from {list(SETTINGS)}")
    out = opts.out or Path("metrics") / f"search-{opts.steps}steps"
    out.mkdir(parents=True, exist_ok=True)
    for name in opts.names:
        run(name, opts.steps, out, opts.threads, opts.seed)


if __name__ == "__main__":
    main()
