"""The tables of the paper's settings (Su & Kuo, Tables 6, 7 and 8), from
``metrics/paper/``, which `scripts/paper_tables.sh` fills: per macro-model and
cell, ``<model>-<cell>-test.official.json`` (the official scores of model-last
on EWT test, gold lemmas in) and ``train-<model>-<cell>.jsonl`` (the training
log); Table 8's parsers without a cell as ``<model>-test.official.json``. Each
of our numbers stands beside the paper's.
"""
from pathlib import Path
from typing import Dict, Optional, Tuple

from .common import number, read_json, read_log, table, warn

CELLS = ["lstm", "gru", "elstm"]
MODELS = [("rnn", "basic RNN"), ("brnn", "BRNN"), ("seq2seq", "seq2seq"),
          ("seq2seq_att", "seq2seq with attention"), ("dbrnn", "DBRNN")]
# The paper's test results (``../shared/papers``: Table 7 UPOS accuracy, Table 6
# UAS/LAS), LSTM / GRU / ELSTM; for comparison only, never produced here.
PAPER_POS = {"rnn": (87.30, 87.51, 87.44), "brnn": (89.55, 89.39, 89.29),
             "seq2seq": (24.43, 35.27, 50.42), "seq2seq_att": (31.34, 34.60, 81.72),
             "dbrnn": (89.86, 89.06, 89.28)}
PAPER_DEP = {"rnn": ((43.24, 25.28), (45.24, 29.92), (58.49, 36.10)),
             "brnn": ((37.88, 25.26), (16.86, 8.95), (55.97, 35.13)),
             "seq2seq": ((29.38, 6.05), (36.47, 13.44), (48.58, 24.05)),
             "seq2seq_att": ((31.82, 16.16), (43.63, 33.98), (64.30, 52.60)),
             "dbrnn": ((51.38, 39.71), (52.23, 37.25), (61.35, 43.32))}
# Table 8 (DP test UAS/LAS against other parsers): our file stem and the paper's
# (UAS, LAS) per column; for comparison only, never produced here.
TABLE8 = [("Seq2seq-E", "dep_seq2seq_att-elstm", (64.30, 52.60)),
          ("DBRNN-E", "dep_dbrnn-elstm", (61.35, 43.32)),
          ("Convseq2seq", "dep_convseq2seq", (52.55, 44.19)),
          ("TDP", "dep_tdp", (62.29, 52.18))]
TABLE8_CELL_FREE = ("dep_convseq2seq", "dep_tdp")
# The TDP stand-in's runs side by side, epoch by epoch (configs/paper/dep_tdp.cfg and
# configs/experiments/paper/): (file stem, what sets it apart)
TDP_RUNS = [("dep_tdp_maxout1", "1 maxout piece, AdaGrad 0.01"),
            ("dep_tdp_adam", "1 maxout piece, Adam"),
            ("dep_tdp", "2 maxout pieces, AdaGrad 0.01 (the column)")]
NOTE = ("Our numbers: UD English-EWT **test**, gold tokenisation and gold sentences, the "
        "**gold lemmas as the only input** (an oracle input, as in the paper), model-last "
        "after 11 epochs of AdaGrad (the convseq2seq: NAG, as the paper), one seed, scored "
        "by the CoNLL 2018 evaluation script "
        "(the `paper-tables` command, `scripts/paper_tables.sh`; configs in `configs/paper/`, "
        "whose headers list where they depart from the paper). Paper: Su & Kuo's Tables 7, 6 and 8 (UD 2.0 "
        "English, the CoNLL 2017 test file). `-`: not run yet. Training words/s include "
        "the dev evaluations, on the machine the log came from.")


def _ours(folder: Path, model: str, cell: str) -> Optional[Dict]:
    return read_json(folder / f"{model}-{cell}-test.official.json")


def _train_speed(folder: Path, model: str, cell: Optional[str] = None
                 ) -> Optional[Tuple[float, float]]:
    """(words/s, hours) of the training log's whole run; None without a log."""
    path = folder / (f"train-{model}-{cell}.jsonl" if cell else f"train-{model}.jsonl")
    if not path.is_file():
        return None
    log = read_log(path)
    if not log or not log[-1].get("seconds"):
        return None
    return log[-1]["words"] / log[-1]["seconds"], log[-1]["seconds"] / 3600


def _pair(uas: Optional[float], las: Optional[float]) -> str:
    return "-" if uas is None or las is None else f"{uas:.2f}/{las:.2f}"


def _cell(value: Optional[float], paper: float) -> str:
    return f"- ({paper:.2f})" if value is None else f"{value:.2f} ({paper:.2f})"


def paper_section(folder: Path, variant: Optional[str] = None) -> Optional[str]:
    """The tables of one paper folder; `variant` says how its runs depart from
    the configs (None for the configs as they are)."""
    rows_pos, rows_dep, rows_speed = [], [], []
    for key, title in MODELS:
        pos = [_ours(folder, f"pos_{key}", cell) for cell in CELLS]
        dep = [_ours(folder, f"dep_{key}", cell) for cell in CELLS]
        if any(pos):
            rows_pos.append([title] + [_cell(number(s, "UPOS"), p)
                                       for s, p in zip(pos, PAPER_POS[key])])
        if any(dep):
            rows_dep.append([title] + [
                "{} ({:.2f}/{:.2f})".format(_pair(number(s, "UAS"), number(s, "LAS")), *p)
                for s, p in zip(dep, PAPER_DEP[key])])
        for task, scores in (("pos", pos), ("dep", dep)):
            for cell, s in zip(CELLS, scores):
                speed = _train_speed(folder, f"{task}_{key}", cell)
                if s is None or speed is None:
                    continue
                rows_speed.append([f"{task}_{key}", cell, f"{speed[0]:,.0f}", f"{speed[1]:.2f}",
                                   "-" if s.get("words_per_second") is None
                                   else f"{s['words_per_second']:,.0f}"])
    for stem in TABLE8_CELL_FREE:
        s, speed = read_json(folder / f"{stem}-test.official.json"), _train_speed(folder, stem)
        if s is not None and speed is not None:
            rows_speed.append([stem, "-", f"{speed[0]:,.0f}", f"{speed[1]:.2f}", _speed(s)])
    if not rows_pos and not rows_dep:
        return None
    table8 = _table8(folder)
    title = "### The paper's settings (Tables 6 to 8" if table8 else "### The paper's settings (Tables 6 and 7"
    title += f", {folder.name}): ours (paper's)" if variant else "): ours (paper's)"
    parts = [title, "", NOTE + (f" {variant}" if variant else ""), ""]
    header = ["macro-model"] + ["LSTM", "GRU", "ELSTM"]
    if rows_pos:
        parts += ["UPOS accuracy (Table 7):", "", table(header, rows_pos), ""]
    if rows_dep:
        parts += ["UAS/LAS (Table 6; ours: `dep_rnn`, `dep_brnn`, `dep_dbrnn` label each "
                  "word with its head's offset, `dep_seq2seq*` decode the paper's "
                  "interleaved target; every parse a tree):", "", table(header, rows_dep), ""]
    if table8:
        parts += ["Against other parsers (Table 8; ours: `dep_seq2seq_att` and `dep_dbrnn` "
                  "with the ELSTM as above, `dep_convseq2seq` a convolutional seq2seq "
                  "model, `dep_tdp` spaCy's transition parser standing in for the paper's "
                  "TDP, trained from scratch: no pretrained vectors are available here, "
                  "where the paper's TDP reads pretrained ones; each config's header "
                  "lists its settings):", "", table8, ""]
    tdp_runs = _tdp_runs(folder)
    if tdp_runs:
        parts += [tdp_runs, ""]
    convseq2seq_run = _convseq2seq_run(folder)
    if convseq2seq_run:
        parts += [convseq2seq_run, ""]
    exposure = _exposure_rows(folder)
    if exposure:
        parts += ["Fed the gold previous labels or its own (`scripts/exposure_bias.py`, "
                  "model-last on EWT **dev**): each seq2seq model's accuracy of its most "
                  "probable label per step when it is fed the gold previous labels "
                  "(teacher forcing, as in training) and when it is fed its own greedy "
                  "predictions (as at inference, what the tables above score):", "",
                  table(["config", "cell", "step", "teacher-forced", "greedy", "gap"],
                         exposure), ""]
    beam = _beam_rows(folder)
    if beam:
        parts += ["Beam search against greedy decoding (`scripts/paper_beam.sh`, model-last "
                  "on EWT **dev**, gold lemmas in, the official script; each token's label "
                  "is the one the final beam most believes in; greedy is width 1, scored by "
                  "the same run; words/s one width after the other on the machine that "
                  "scored them, whatever else it was running):", "",
                  table(["config", "cell", "beam", "metric", "greedy", "beam search",
                          "change", "greedy words/s", "beam words/s"], beam), ""]
    if rows_speed:
        parts += ["Speed:", "", table(["config", "cell", "training words/s", "training hours",
                                        "test words/s"], rows_speed), ""]
    return "\n".join(parts)


def _table8(folder: Path) -> Optional[str]:
    """Table 8's UAS and LAS rows, ours (paper's), once one of its models has
    run in this folder (``-`` for those that have not); None before."""
    scores = [read_json(folder / f"{stem}-test.official.json") for _, stem, _ in TABLE8]
    if not any(scores):
        return None
    rows = [[metric] + [_cell(number(s, metric), paper[i])
                        for s, (_, _, paper) in zip(scores, TABLE8)]
            for i, metric in enumerate(("UAS", "LAS"))]
    return table([""] + [title for title, _, _ in TABLE8], rows)


def _logged_uas_las(record: Optional[Dict]) -> str:
    """UAS/LAS by spaCy's scorer in one record of a training log; ``-`` without them."""
    scores = (record or {}).get("scores") or {}
    uas, las = scores.get("dep_uas"), scores.get("dep_las")
    return "-" if uas is None or las is None else f"{100 * uas:.2f}/{100 * las:.2f}"


def _tdp_runs(folder: Path) -> Optional[str]:
    """The TDP stand-in's runs (``TDP_RUNS``) side by side: EWT dev UAS/LAS by
    spaCy's scorer at each epoch of their training logs, and the official
    scores of their model-last; None while fewer than two have a log."""
    logs = {stem: {r["epoch"]: r for r in read_log(folder / f"train-{stem}.jsonl")}
            for stem, _ in TDP_RUNS}
    if sum(bool(log) for log in logs.values()) < 2:
        return None
    epochs = sorted({e for log in logs.values() for e in log if e > 0})
    rows = [[str(e)] + [_logged_uas_las(logs[stem].get(e)) for stem, _ in TDP_RUNS]
            for e in epochs]
    for split in ("dev", "test"):
        scores = [read_json(folder / f"{stem}-{split}.official.json") for stem, _ in TDP_RUNS]
        if any(scores):
            rows.append([f"model-last, {split}, official"]
                        + [_pair(number(s, "UAS"), number(s, "LAS")) for s in scores])
    return "\n".join([
        "Table 8's TDP stand-in, run by run: `dep_tdp` as first trained, with one maxout "
        "piece in its hidden layer (`configs/experiments/paper/dep_tdp_maxout1.cfg`; spaCy's "
        "parser trains one piece with a ReLU and predicts with none), that with spaCy's default "
        "optimizer in place of AdaGrad (`dep_tdp_adam.cfg` beside it, two epochs, dev only), and "
        "the column's config, with two pieces. UAS/LAS on EWT **dev** by spaCy's scorer after "
        "each epoch (the training logs), then the official scores of each model-last "
        "(`MODELS=dep_tdp bash scripts/paper_tables.sh`; the others: `python "
        "scripts/train_and_score.py NAME=configs/experiments/paper/NAME.cfg --metrics "
        "metrics/paper --models training/paper --model-last --gold-lemmas --no-evaluate "
        "--train-conllu none`, with `--splits dev --steps 1256` for `dep_tdp_adam`):", "",
        table(["epoch"] + [f"{label} (`{stem}`)" for stem, label in TDP_RUNS], rows)])


def _convseq2seq_run(folder: Path) -> Optional[str]:
    """Table 8's convseq2seq epoch by epoch, from its training log: the training
    loss since the previous evaluation and EWT dev UAS/LAS by spaCy's scorer;
    None until the run has its official test scores (a finished run)."""
    official = {split: read_json(folder / f"dep_convseq2seq-{split}.official.json")
                for split in ("dev", "test")}
    if official["test"] is None:
        return None
    rows = [[str(record["epoch"]), f"{record['step']:,}",
             f"{sum((record.get('losses') or {}).values()):,.1f}", _logged_uas_las(record)]
            for record in read_log(folder / "train-dep_convseq2seq.jsonl") if record["epoch"] > 0]
    if not rows:
        return None
    rows += [[f"model-last, {split}, official", "-", "-",
              _pair(number(scores, "UAS"), number(scores, "LAS"))]
             for split, scores in official.items() if scores is not None]
    return "\n".join([
        "Table 8's convseq2seq, epoch by epoch (`train-dep_convseq2seq.jsonl`): its "
        "training loss summed since the previous evaluation, and UAS/LAS on EWT **dev** by "
        "spaCy's scorer, gold lemmas in; then the official scores of model-last, after the "
        "11th epoch (the log has no evaluation after it):", "",
        table(["epoch", "step", "training loss", "UAS/LAS"], rows)])


def _exposure_rows(folder: Path) -> list:
    """Rows of the ``exposure-<model>-<cell>-dev.json`` files of
    `scripts/exposure_bias.py`; a file without the expected keys is skipped."""
    rows = []
    for path in sorted(folder.glob("exposure-*-dev.json")):
        data = read_json(path)
        stem = path.name[len("exposure-"):-len("-dev.json")]
        model, _, cell = stem.rpartition("-")
        try:
            for step, v in data["steps"].items():
                forced, greedy = float(v["teacher_forced"]), float(v["greedy"])
                rows.append([model, cell, step, f"{forced:.2f}", f"{greedy:.2f}",
                             f"{greedy - forced:.2f}"])
        except (KeyError, TypeError, ValueError, AttributeError):
            warn(f"{path}: not an exposure_bias.py result; skipped.")
    return rows


def _beam_rows(folder: Path) -> list:
    """Rows of ``beam-<model>-<cell>-w<width>-dev.official.json`` (scripts/paper_beam.sh),
    width > 1, beside width 1 (greedy decoding, scored by the same run): UPOS for
    the POS models, UAS and LAS for the parsers; a file without them is skipped,
    and without the width-1 file the greedy columns are ``-``."""
    rows = []
    found = []
    for path in folder.glob("beam-*-dev.official.json"):
        stem = path.name[len("beam-"):-len("-dev.official.json")]
        rest, _, width = stem.rpartition("-w")
        model, _, cell = rest.rpartition("-")
        if not (model and cell and width.isdigit()):
            warn(f"{path}: not named beam-<model>-<cell>-w<width>-dev.official.json; skipped.")
            continue
        found.append((model, CELLS.index(cell) if cell in CELLS else len(CELLS), int(width),
                      cell, path))
    for model, _, width, cell, path in sorted(found):
        if width == 1:
            continue
        beam = read_json(path)
        greedy_path = folder / f"beam-{model}-{cell}-w1-dev.official.json"
        greedy = read_json(greedy_path) if greedy_path.is_file() else None
        metrics = ["UPOS"] if model.startswith("pos_") else ["UAS", "LAS"]
        values = [(m, number(greedy, m), number(beam, m)) for m in metrics]
        if any(b is None for _, _, b in values):
            warn(f"{path}: no {'/'.join(metrics)} scores; skipped.")
            continue
        for metric, g, b in values:
            rows.append([model, cell, str(width), metric, "-" if g is None else f"{g:.2f}",
                         f"{b:.2f}", "-" if g is None else f"{b - g:+.2f}",
                         _speed(greedy), _speed(beam)])
    return rows


def _speed(scores: Optional[Dict]) -> str:
    value = number(scores, "words_per_second")
    return "-" if value is None else f"{value:,.0f}"


def paper_bench_section(path: Path) -> Optional[str]:
    """The paper-settings benchmark's table (``spacy-elstm benchmark paper``), if
    the file exists."""
    data = read_json(path)
    if data is None or not data.get("rows"):
        return None
    env = data["environment"]
    rows = [[r["model"], r["cell"], r["mode"], f"{r['words_per_second']:,.0f}",
             f"{r['vs_pos_brnn']:.2f}",
             f"{r['paper_training_hours']:.2f}" if "paper_training_hours" in r else "-"]
            for r in data["rows"]]
    epochs = ("" if not data.get("epoch_words") else
              f"; hours: 11 epochs of {data['epoch_words']:,} training words at that speed")
    return "\n".join([
        f"Training and inference words/s of the paper-settings models (`configs/paper/`, "
        f"batches of 20 sentences, gold lemmas in) on the first "
        f"{data['rows'][0]['words']:,} words of `{data['data']}`, the median of "
        f"{data['rows'][0]['repeats']} interleaved rounds{epochs}. From `{path.as_posix()}` "
        f"(`spacy-elstm benchmark paper`), on {env.get('gpu') or env['cpu']}, "
        f"{env['threads']} thread(s), torch {env['torch']}:", "",
        table(["model", "cell", "mode", "words/s", "x pos_brnn", "hours"], rows)])
