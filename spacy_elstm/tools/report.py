"""Turn the metrics files that the project's commands write into the README's
results section and plots. Every number shown comes from those files."""
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Optional

START = "<!-- results:start (written by `spacy-elstm report`; do not edit by hand) -->"
END = "<!-- results:end -->"
SCORES = [("tag_acc", "XPOS"), ("pos_acc", "UPOS"), ("morph_acc", "Morph"),
          ("dep_uas", "UAS"), ("dep_las", "LAS")]


def _read_json(path: Path) -> Optional[Dict[str, Any]]:
    return json.loads(path.read_text()) if path.is_file() else None


def _read_log(path: Path) -> List[Dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


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
        scores = _read_json(path) or {}
        log = _read_log(metrics / f"train-{prefix}{match['config']}.jsonl")
        last = log[-1] if log else {}
        best = max(log, key=lambda r: r["score"]) if log else {}
        rows.append([match["config"], match["split"]]
                    + [f"{100 * scores[k]:.2f}" if k in scores else "-" for k, _ in SCORES]
                    + [str(last.get("step", "-")), f"{last['words']:,}" if last else "-",
                       f"{last['seconds'] / 60:.1f}" if last else "-",
                       str(best.get("step", "-"))])
    if not rows:
        return "_No evaluation files yet._"
    header = ["config", "split"] + [name for _, name in SCORES] + [
        "steps", "words seen", "train min", "best step"]
    return _table(header, rows)


def layers_section(path: Path) -> str:
    data = _read_json(path)
    if not data:
        return "_No layer benchmark yet._"
    rows = [[r["device"], f"{r['batch']}×{r['length']}×{r['width']}", r["name"],
             f"{r['tokens_per_second']:,.0f}", f"{r['vs_LSTM']:.2f}", f"{r['vs_GRU']:.2f}",
             "-" if r.get("peak_memory_bytes") is None else f"{r['peak_memory_bytes'] / 2**20:.0f}"]
            for r in data["rows"]]
    env = data["environment"]
    note = (f"Forward+backward, one direction, input = hidden width, median of {data['repeats']} "
            f"interleaved rounds; torch {env['torch']}, {env['threads']} threads; allocator: "
            f"{data.get('allocator', 'default')}. From `{path.as_posix()}`.")
    return note + "\n\n" + _table(["device", "B×T×W", "layer", "tokens/s", "× nn.LSTM",
                                   "× nn.GRU", "peak MiB"], rows)


def pipelines_section(path: Path) -> str:
    data = _read_json(path)
    if not data:
        return "_No pipeline benchmark yet._"
    rows = [[r["name"], r["mode"], f"{r['words']:,}", f"{r['words_per_second']:,.0f}",
             f"{r['vs_spacy-cnn']:.2f}" if "vs_spacy-cnn" in r else "-",
             f"{r['vs_spacy-bilstm']:.2f}" if "vs_spacy-bilstm" in r else "-",
             "-" if r.get("peak_memory_bytes") is None else f"{r['peak_memory_bytes'] / 2**20:.0f}"]
            for r in data["rows"]]
    env = data["environment"]
    repeats = data["rows"][0].get("repeats", 1) if data["rows"] else 1
    note = (f"tok2vec + tagger + parser, width {data['width']}, untrained weights, on "
            f"`{data['data']}`; median of {repeats} interleaved rounds; torch {env['torch']}, "
            f"{env['threads']} threads; allocator: {data.get('allocator', 'default')}. "
            f"From `{path.as_posix()}`.")
    return note + "\n\n" + _table(["encoder", "mode", "words", "words/s", "× spaCy CNN",
                                   "× spaCy BiLSTM", "peak MiB"], rows)


def plot_training(metrics: Path, output: Path, prefix: str = "") -> Optional[Path]:
    """Dev score against training minutes, one line per config."""
    logs = {p.stem[len("train-" + prefix):]: _read_log(p)
            for p in sorted(metrics.glob(f"train-{prefix}*.jsonl"))}
    logs = {k: v for k, v in logs.items() if v}
    if not logs:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for config, log in logs.items():
        ax.plot([r["seconds"] / 60 for r in log], [100 * r["score"] for r in log],
                marker=".", label=config)
    ax.set_xlabel("training time (minutes)")
    ax.set_ylabel("dev score (weighted, %)")
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
    evaluation files (``metrics/`` itself and each folder in it), then the
    benchmarks."""
    parts = []
    folders = [metrics] + sorted(p for p in metrics.iterdir() if p.is_dir())
    for folder in folders:
        if not any(folder.glob("*-dev.json")) and not any(folder.glob("*-test.json")):
            continue
        name = "" if folder == metrics else folder.name
        parts += [f"### Accuracy{f' ({name})' if name else ''}: UD English-EWT, gold "
                  "tokenisation, one seed", "", f"From `{folder.as_posix()}/`.", "",
                  accuracy_section(folder)]
        image = f"training-{name or 'metrics'}.png"
        if plots is not None and plot_training(folder, plots / image):
            parts += ["", f"![dev score against training time, {name}]({plot_link}{image})"]
        parts.append("")
    if not parts:
        parts = ["_No evaluation files yet._", ""]
    parts += ["### Layer speed (CPU)", ""]
    for path in _default_first(metrics, "bench-layers"):
        parts += [layers_section(path), ""]
    parts += ["### Pipeline speed", ""]
    for path in _default_first(metrics, "bench-pipelines"):
        parts += [pipelines_section(path), ""]
    return "\n".join(parts)


def update_readme(readme: Path, section: str) -> None:
    text = readme.read_text()
    if START not in text or END not in text:
        raise ValueError(f"{readme} has no results markers: add the lines\n{START}\n{END}")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(f"{head}{START}\n{section}\n{END}{tail}")
