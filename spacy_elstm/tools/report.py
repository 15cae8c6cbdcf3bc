"""Turn the metrics files that the project's commands write into the README's
results section and plots. Every number shown comes from those files.

A file that cannot be read (not JSON, a line cut short by a killed training,
a missing key) is named in a warning on stderr and left out; the README is
rewritten whole or not at all."""
import json
import re
import statistics
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from .files import write_atomically

START = "<!-- results:start (written by `spacy-elstm report`; do not edit by hand) -->"
END = "<!-- results:end -->"
SCORES = [("tag_acc", "XPOS"), ("pos_acc", "UPOS"), ("morph_acc", "Morph"),
          ("dep_uas", "UAS"), ("dep_las", "LAS")]


LOG_KEYS = ("step", "words", "seconds", "score")


class ReportError(ValueError):
    """The README cannot be updated; the message names the file and the problem."""


_warned = set()


def warn(message: str) -> None:
    """Say on stderr (once per render) what the report leaves out, and why."""
    if message not in _warned:
        _warned.add(message)
        print(f"spacy-elstm report: warning: {message}", file=sys.stderr)


def _read_json(path: Path) -> Optional[Dict[str, Any]]:
    """The JSON object in `path`; None, with a warning, if it is not one."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        warn(f"{path}: not JSON ({err}); skipped.")
        return None
    if not isinstance(data, dict):
        warn(f"{path}: expected a JSON object, got {type(data).__name__}; skipped.")
        return None
    return data


def _read_log(path: Path) -> List[Dict[str, Any]]:
    """The records of a training log (JSON lines). A line that is not JSON (the
    last one is cut short when a training run is killed) or lacks one of
    LOG_KEYS is skipped with a warning naming the file and line."""
    if not path.is_file():
        return []
    records = []
    lines = path.read_text(encoding="utf8", errors="replace").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            cut = " (cut short, as a killed training run leaves it)" if number == len(lines) else ""
            warn(f"{path}, line {number}: not JSON{cut}: {err}; skipped.")
            continue
        missing = [k for k in LOG_KEYS if not isinstance(record, dict)
                   or not isinstance(record.get(k), (int, float))]
        if missing:
            warn(f"{path}, line {number}: no number for {', '.join(map(repr, missing))}; skipped.")
            continue
        records.append(record)
    return records


def _section(path: Path, build: Callable[[Path, Dict[str, Any]], str], absent: str) -> Optional[str]:
    """`build(path, data)`, `absent` if there is no file, None (with a warning)
    if the file lacks what `build` needs."""
    data = _read_json(path)
    if data is None:
        return None if path.is_file() else absent
    try:
        return build(path, data)
    except (KeyError, TypeError, ValueError, IndexError) as err:
        problem = f"no key {err}" if isinstance(err, KeyError) else str(err)
        warn(f"{path}: {problem}; skipped.")
        return None


def _percent(scores: Dict[str, Any], key: str) -> str:
    value = scores.get(key)
    return f"{100 * value:.2f}" if isinstance(value, (int, float)) else "-"


def _table(header: List[str], rows: List[List[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def accuracy_section(metrics: Path, prefix: str = "") -> str:
    """One row per (config, split) with an evaluation file ``{prefix}{config}-{split}.json``
    and, where present, its training log ``train-{prefix}{config}.jsonl``."""
    rows = []
    pattern = re.compile(rf"^{re.escape(prefix)}(?P<config>[\w.-]+?)-(?P<split>dev|test)\.json$")
    for path in sorted(metrics.glob(f"{prefix}*.json")):
        match = pattern.match(path.name)
        if not match:
            continue
        scores = _read_json(path)
        if scores is None:
            continue
        log = _read_log(metrics / f"train-{prefix}{match['config']}.jsonl")
        last = log[-1] if log else {}
        best = max(log, key=lambda r: r["score"]) if log else {}
        rows.append([match["config"], match["split"]]
                    + [_percent(scores, k) for k, _ in SCORES]
                    + [str(last.get("step", "-")), f"{last['words']:,}" if last else "-",
                       f"{last['seconds'] / 60:.1f}" if last else "-",
                       str(best.get("step", "-"))])
    if not rows:
        return "_No evaluation files yet._"
    header = ["config", "split"] + [name for _, name in SCORES] + [
        "steps", "words seen", "train min", "best step"]
    return _table(header, rows)


TIMING_NOTE = (
    "`train min` and `words/s` are wall-clock figures of the machine and the moment each run "
    "had (up to two trainings at once on two CPU cores, one thread each), so they compare "
    "runs of one session; the Benchmarks section compares speeds within one process.")
OFFICIAL = ["UPOS", "XPOS", "UFeats", "UAS", "LAS", "CLAS"]
OFFICIAL_SOURCE = (
    "The CoNLL 2018 shared task's evaluation script (`conll18_ud_eval.py`, written by "
    "`spacy-elstm score`) on the same gold words and sentences")
OFFICIAL_NOTE = (
    OFFICIAL_SOURCE + ": F1 (here equal to accuracy), "
    "punctuation included, relation subtypes and features outside the universal set ignored, so "
    "these differ from spaCy's numbers above (whose UAS/LAS leave punctuation out and whose "
    "Morph compares all features). `-`: not predicted by the pipeline.")
UNSEEN_NOTE = (
    " `UPOS unseen`: UPOS accuracy on the words whose lowercased form EWT train does not "
    "have (`spacy-elstm score --train`, computed by spacy-elstm, not by the script; `-` "
    "where the run was scored without it).")


def official_files(metrics: Path, prefix: str = "") -> List[Path]:
    """The official-score files ``{prefix}{config}-{split}.official.json`` of a folder."""
    return [p for p in sorted(metrics.glob(f"{prefix}*.official.json")) if _OFFICIAL.match(p.name)]


_OFFICIAL = re.compile(r"^(?P<config>[\w.-]+?)-(?P<split>dev|test)\.official\.json$")


def official_section(metrics: Path, prefix: str = "") -> Optional[str]:
    """One row per (config, split) with an official-score file; None if there are none."""
    rows, unseen = [], False  # rows: (columns before UPOS unseen, it, the columns after)
    for path in official_files(metrics, prefix):
        match = _OFFICIAL.match(path.name)
        scores = _read_json(path)
        if scores is None:
            continue
        try:
            rows.append(([match["config"][len(prefix):], match["split"]]
                         + [_official(scores, k) for k in OFFICIAL],
                         [_official(scores.get("unseen", {}), "UPOS")],
                         [f"{scores['words']:,}", str(scores["repaired_roots"]),
                          "-" if scores.get("words_per_second") is None
                          else f"{scores['words_per_second']:,.0f}"]))
            unseen = unseen or "unseen" in scores
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            problem = f"no key {err}" if isinstance(err, KeyError) else str(err)
            warn(f"{path}: {problem}; skipped.")
    if not rows:
        return None
    # the UPOS-unseen column only where some file of the folder has the breakdown
    middle = ["UPOS unseen"] if unseen else []
    header = ["config", "split"] + OFFICIAL + middle + ["words", "roots repaired", "words/s"]
    rows = [head + (cell if unseen else []) + tail for head, cell, tail in rows]
    return OFFICIAL_NOTE + (UNSEEN_NOTE if unseen else "") + "\n\n" + _table(header, rows)


def _official(scores: Dict[str, Any], key: str) -> str:
    value = scores.get(key)
    if value is None:
        return "-"
    if not isinstance(value, (int, float)):
        raise ValueError(f"{key} is {value!r}, not a number")
    return f"{value:.2f}"


_SEED = re.compile(r"^(?P<base>.+?)-seed(?P<seed>\d+)$")


def seed_groups(metrics: Path) -> Dict[str, List[Path]]:
    """Folders of one setting run with several seeds: ``name`` (seed 0) and
    ``name-seedN``; only settings with two or more seeds."""
    groups: Dict[str, List[Path]] = {}
    for folder in sorted(p for p in metrics.iterdir() if p.is_dir()):
        match = _SEED.match(folder.name)
        groups.setdefault(match["base"] if match else folder.name, []).append(folder)
    return {base: folders for base, folders in groups.items() if len(folders) > 1}


def seeds_section(folders: List[Path]) -> Optional[str]:
    """Mean ± sample standard deviation of the official scores of each
    (config, split) over the seeds in ``folders``; None where no (config,
    split) has scores from two or more seeds."""
    values: Dict[tuple, Dict[str, List[float]]] = {}
    for folder in folders:
        for path in official_files(folder):
            match = _OFFICIAL.match(path.name)
            scores = _read_json(path)
            if scores is None:
                continue
            entry = values.setdefault((match["config"], match["split"]), {})
            for key in OFFICIAL:
                if isinstance(scores.get(key), (int, float)):
                    entry.setdefault(key, []).append(float(scores[key]))
    rows = []
    for (config, split), entry in sorted(values.items()):
        seeds = max((len(v) for v in entry.values()), default=0)
        if seeds < 2:
            continue
        rows.append([config, split, str(seeds)]
                    + [_mean_sd(entry[k]) if len(entry.get(k, [])) == seeds else "-"
                       for k in OFFICIAL])
    if not rows:
        return None
    return _table(["config", "split", "seeds"] + OFFICIAL, rows)


def _mean_sd(values: List[float]) -> str:
    """"mean ± sample sd" to two decimals; the value alone where there is one."""
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{statistics.mean(values):.2f} ± {statistics.stdev(values):.2f}"


def layers_section(path: Path) -> Optional[str]:
    """The layer benchmark table of `path`; None (with a warning) if unreadable."""
    return _section(path, _layers_table, "_No layer benchmark yet._")


def _layers_table(path: Path, data: Dict[str, Any]) -> str:
    rows = [[r["device"], f"{r['batch']}×{r['length']}×{r['width']}", r["name"],
             r.get("kernel", "-"), f"{r['tokens_per_second']:,.0f}", f"{r['vs_LSTM']:.2f}",
             f"{r['vs_GRU']:.2f}",
             "-" if r.get("peak_memory_bytes") is None else f"{r['peak_memory_bytes'] / 2**20:.0f}"]
            for r in data["rows"]]
    env = data["environment"]
    rounds = sorted({r.get("repeats", data["repeats"]) for r in data["rows"]}, reverse=True)
    note = (f"Forward+backward, one direction, input = hidden width, median of "
            f"{' or '.join(map(str, rounds))} interleaved rounds (the long sequences fewer); "
            f"kernel: the one the registry picked (`Recurrence.kernel_for`); "
            f"{_hardware(env)}; torch {env['torch']}, {env['threads']} threads; allocator: "
            f"{data.get('allocator', 'default')}. From `{path.as_posix()}`.")
    return note + "\n\n" + _table(["device", "B×T×W", "layer", "kernel", "tokens/s",
                                   "× nn.LSTM", "× nn.GRU", "peak MiB"], rows)


def _hardware(env: Dict[str, Any]) -> str:
    """Where a benchmark ran: the GPU's name, or the CPU's."""
    if env.get("gpu"):
        return f"GPU: {env['gpu']}"
    return f"CPU: {env.get('cpu') or env.get('processor') or 'unknown'}"


def pipelines_section(path: Path) -> Optional[str]:
    """The pipeline benchmark table of `path`; None (with a warning) if unreadable."""
    return _section(path, _pipelines_table, "_No pipeline benchmark yet._")


def _pipelines_table(path: Path, data: Dict[str, Any]) -> str:
    rows = [[r["name"], r["mode"], f"{r['words']:,}", f"{r['words_per_second']:,.0f}",
             f"{r['vs_spacy-cnn']:.2f}" if "vs_spacy-cnn" in r else "-",
             f"{r['vs_spacy-bilstm']:.2f}" if "vs_spacy-bilstm" in r else "-",
             "-" if r.get("peak_memory_bytes") is None else f"{r['peak_memory_bytes'] / 2**20:.0f}"]
            for r in data["rows"]]
    env = data["environment"]
    repeats = data["rows"][0].get("repeats", 1) if data["rows"] else 1
    note = (f"tok2vec + tagger + parser, width {data['width']}, untrained weights, on "
            f"`{data['data']}`; median of {repeats} interleaved rounds; {_hardware(env)}; "
            f"torch {env['torch']}, "
            f"{env['threads']} threads; allocator: {data.get('allocator', 'default')}. "
            f"From `{path.as_posix()}`.")
    return note + "\n\n" + _table(["encoder", "mode", "words", "words/s", "× spaCy CNN",
                                   "× spaCy BiLSTM", "peak MiB"], rows)


def plot_training(metrics: Path, output: Path, prefix: str = "") -> Optional[Path]:
    """Dev score against training minutes, one line per config."""
    logs = {p.stem[len("train-" + prefix):]: _read_log(p)
            for p in sorted(metrics.glob(f"train-{prefix}*.jsonl"))}
    lines = {config: ([r["seconds"] / 60 for r in log], [100 * r["score"] for r in log])
             for config, log in logs.items() if log}
    if not lines:
        return None
    return line_plot(lines, output, "training time (minutes)", "dev score (weighted, %)")


def line_plot(lines: Dict[str, Any], output: Path, xlabel: str, ylabel: str,
              log_y: bool = False) -> Path:
    """A PNG with one marked line per name: {name: (xs, ys)}."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for name, (xs, ys) in lines.items():
        ax.plot(xs, ys, marker=".", label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if log_y:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=110)
    plt.close(fig)
    return output


def _default_first(metrics: Path, stem: str) -> List[Path]:
    """``stem.json`` (the default settings), then its variants ``stem-*.json``."""
    variants = sorted(metrics.glob(f"{stem}-*.json"))
    return [metrics / f"{stem}.json"] + variants


def render(metrics: Path, plots: Optional[Path] = None, plot_link: str = "") -> str:
    """The results section: one accuracy table (and plot) per folder of
    evaluation files (``metrics/`` itself and each folder in it; the Penn
    Treebank's ``ptb*`` folders by `report_ptb`, ``lm`` by `report_lm`, ``paper``
    by `report_paper`), then the benchmarks."""
    from .report_ptb import is_ptb_folder, ptb_section
    from .report_lm import is_lm_folder, lm_bench_section, lm_section
    from .report_paper import is_paper_folder, paper_bench_section, paper_section
    from .report_targets import targets_section

    _warned.clear()
    if not metrics.is_dir():
        raise ReportError(f"{metrics}: no such metrics folder.")
    if plots is not None and not _have_matplotlib():
        warn('matplotlib is not installed: plots skipped (pip install "spacy-elstm[project]").')
        plots = None
    parts = []
    targets = targets_section(metrics)
    if targets is not None:
        parts += ["### Targets: where the accuracy issues' goals stand", "",
                  "Each row reads the official test scores of the runs it names (the mean "
                  "over the seeds run, in `metrics/<folder>[-seedN]/`), computed by "
                  "`spacy-elstm report`. A row that says *picked on dev* judges, of the "
                  "runs it lists in `spacy_elstm/tools/report_targets.py`, the one with "
                  "the best official dev score, so the test split never picks the run "
                  "it judges.", "", targets, ""]
    folders = [metrics] + sorted(p for p in metrics.iterdir() if p.is_dir())
    for folder in folders:
        if is_ptb_folder(folder):
            section = ptb_section(folder)
            parts += [section] if section else []
            continue
        if is_lm_folder(folder):
            section = lm_section(folder, plots, plot_link)
            parts += [section] if section else []
            continue
        if is_paper_folder(folder):
            section = paper_section(folder)
            parts += [section] if section else []
            continue
        if (not any(folder.glob("*-dev.json")) and not any(folder.glob("*-test.json"))
                and not official_files(folder)):
            continue
        name = "" if folder == metrics else folder.name
        parts += [f"### Accuracy{f' ({name})' if name else ''}: UD English-EWT, gold "
                  "tokenisation, one seed", "", f"From `{folder.as_posix()}/`. {TIMING_NOTE}", "",
                  accuracy_section(folder)]
        official = official_section(folder)
        if official is not None:
            parts += ["", f"#### Official scores{f' ({name})' if name else ''}: CoNLL 2018 "
                      "evaluation script", "", official]
        image = f"training-{name or 'metrics'}.png"
        if plots is not None and plot_training(folder, plots / image):
            parts += ["", f"![dev score against training time, {name}]({plot_link}{image})"]
        parts.append("")
    if not parts:
        parts = ["_No evaluation files yet._", ""]
    for base, group in seed_groups(metrics).items():
        table = seeds_section(group)
        if table is not None:
            parts += [f"### Across seeds ({base}): official scores, mean ± standard deviation",
                      "", f"Over `{'/`, `'.join(p.as_posix() for p in group)}/`: one seed per "
                      "folder, each the same training run but for `--system.seed`. "
                      + OFFICIAL_SOURCE + ".", "", table, ""]
    parts += ["### Layer speed", ""]
    for path in _default_first(metrics, "bench-layers"):
        parts += [text for text in [layers_section(path)] if text is not None] + [""]
    parts += ["### Pipeline speed", ""]
    for path in _default_first(metrics, "bench-pipelines"):
        parts += [text for text in [pipelines_section(path)] if text is not None] + [""]
    lm_bench = [t for t in map(lm_bench_section, _default_first(metrics, "bench-lm")) if t]
    if lm_bench:
        parts += ["### Language-model training speed", ""] + [p for t in lm_bench for p in (t, "")]
    paper_bench = [t for t in map(paper_bench_section, _default_first(metrics, "bench-paper")) if t]
    if paper_bench:
        parts += ["### Paper-settings speed", ""] + [p for t in paper_bench for p in (t, "")]
    return "\n".join(parts)


def _have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def update_readme(readme: Path, section: str) -> None:
    """Replace the text between the results markers of `readme` with `section`.
    The new README is written to a temporary file beside it and renamed over
    it, so an interrupted run leaves the old one whole."""
    if not readme.is_file():
        raise ReportError(f"{readme}: no such README.")
    text = readme.read_text(encoding="utf8")
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        raise ReportError(f"{readme} has no results markers (or more than one pair): "
                          f"add the lines\n{START}\n{END}")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    write_atomically(readme, f"{head}{START}\n{section}\n{END}{tail}".encode("utf8"))
