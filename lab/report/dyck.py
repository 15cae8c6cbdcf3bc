"""The bounded Dyck-2 page, from ``metrics/dyck/*.json`` as ``spacy-elstm dyck``
writes them: our models' perplexity, WCPA and accuracy beside the second-order
LSTM paper's Table 1, and test LDPA against closing distance, one plot per m."""
import json
import statistics
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .common import read_json, table

PAGE = "dyck"
TITLE = "Results: bounded Dyck-2"

# The paper's Table 1 ("Modeling Long-Distance Dependencies with Second-Order LSTMs"),
# as printed: m -> [(model, params, val ppl, test ppl, val WCPA, test WCPA)]
PAPER_TABLE_1 = {
    4: [("Baseline LSTM", "2.1M", 2.391, 2.393, 1, 1),
        ("Attention LSTM", "4.1M", 2.386, 2.387, 0.994, 0.999)],
    6: [("Baseline LSTM", "3.5M", 2.534, 2.533, 0.98, 0.857),
        ("Attention LSTM", "7M", 2.530, 2.530, 0.929, 0.875)],
    8: [("Baseline LSTM", "5.3M", 2.618, 2.617, 0, 0),
        ("Attention LSTM", "8.6M", 2.612, 2.611, 0, 0.667)],
}
PAPER_NOTE = (
    "The paper's own figures (its Table 1, quoted as printed; \"Attention LSTM\" is its "
    "second-order LSTM with two cells; the parameter counts are the paper's). The paper "
    "reports that the LDPA of its m = 8 baseline falls to zero near distance 300, hence its "
    "WCPA of 0, and that its second-order model learns WCPA faster and more steadily, in "
    "fewer epochs, while reaching a perplexity and WCPA close to the baseline's.")
COMPARABILITY = (
    "Not the same experiment: the paper's strings came from Hewitt et al. (lengths not "
    "given; its closing distances reach about 300), ours are drawn by `spacy_elstm/dyck/data.py`; "
    "this run has {train:,} training strings (the paper's: 10,000), strings of at most "
    "{max_length} symbols and at most {epochs} epochs at a learning rate of {learn_rate:g} "
    "(the paper's: 1e-4 and early stopping). The perplexity floor depends on how the strings are "
    "drawn, so perplexities compare between cells here, not with the paper's. WCPA is the "
    "least LDPA over every distance seen, so it follows the rarest long distances; WCPA≥10 "
    "keeps the distances seen at least 10 times.")


def _number(value: Optional[float], digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _mean_sd(values: List[Optional[float]]) -> str:
    """"mean ± sample sd" to three decimals; the value alone where there is one."""
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return _number(values[0] if values else None)
    return f"{statistics.mean(values):.3f} ± {statistics.stdev(values):.3f}"


def _mean(values: List[Optional[float]]) -> Optional[float]:
    values = [v for v in values if v is not None]
    return statistics.mean(values) if values else None


# the settings that say which models a file holds, not how they were trained
WHICH_MODELS = ("seeds", "ms", "cells")
CELL_ORDER = ("lstm", "elstm", "solstm")


def _groups(folder: Path) -> List[Tuple[List[Path], Dict[str, Any], List[Dict[str, Any]]]]:
    """The files of ``folder`` grouped by their settings but which models they
    hold (seeds, bounds and cells): (paths, settings, every model of them), so
    that files of other seeds, or one file per model, add up."""
    groups: Dict[str, Tuple[List[Path], Dict[str, Any], List[Dict[str, Any]]]] = {}
    for path in sorted(folder.glob("*.json")):
        data = read_json(path)
        if data is None or not isinstance(data.get("runs"), list) or "settings" not in data:
            continue
        settings = {k: v for k, v in data["settings"].items() if k not in WHICH_MODELS}
        key = json.dumps(settings, sort_keys=True)
        paths, merged, runs = groups.setdefault(
            key, ([], {**settings, "cells": [], "threads": data.get("threads")}, []))
        paths.append(path)
        runs += data["runs"]
        merged["cells"] = sorted(set(merged["cells"]) | set(data["settings"].get("cells", [])),
                                 key=lambda c: (CELL_ORDER.index(c) if c in CELL_ORDER
                                                else len(CELL_ORDER), c))
    return list(groups.values())


def _by_model(settings: Dict[str, Any], runs: List[Dict[str, Any]]):
    """{(m, cell): [its runs, by seed]}, in order of m and of the settings' cells."""
    cells = list(settings["cells"])
    out: Dict[Tuple[int, str], List[Dict[str, Any]]] = {}
    for r in sorted(runs, key=lambda r: (r["m"], cells.index(r["cell"]) if r["cell"] in cells
                                         else len(cells), r["seed"])):
        out.setdefault((r["m"], r["cell"]), []).append(r)
    return out


def _ours(paths: List[Path], s: Dict[str, Any], runs: List[Dict[str, Any]]) -> List[str]:
    rows = []
    for (m, cell), models in _by_model(s, runs).items():
        def of(split: str, key: str) -> str:
            return _mean_sd([(r.get(split) or {}).get(key) for r in models])

        rows.append([str(m), cell, ", ".join(str(r["seed"]) for r in models),
                     f"{models[0]['params']:,}",
                     ", ".join(f"{r['best_epoch']}/{r['epochs']}" for r in models),
                     of("dev", "ppl"), of("test", "ppl"), of("dev", "wcpa"), of("test", "wcpa"),
                     of("test", "wcpa_10"), of("test", "accuracy"),
                     f"{statistics.mean(r['train_seconds'] for r in models):.0f}"])
    sizes = (f"{s['train']:,} / {s['dev']:,} / {s['test']:,} strings of even length 2 to "
             f"{s['max_length']} (p_open {s['p_open']}), embedding {s['embedding']}, "
             f"{s['hidden_per_m']}m hidden units, batch {s['batch_size']}, Adam at "
             f"{s['learn_rate']:g}, at most {s['epochs']} epochs, the second-order LSTM with "
             f"{s['solstm_cells']} cells and τ × {s['anneal']} per epoch")
    files = ", ".join(f"`{p.as_posix()}`" for p in paths)
    return [f"From {files}, written by `spacy-elstm dyck` on the CPU, {s.get('threads') or '?'} "
            f"thread(s): {sizes}. Each seed draws its own strings and initial weights; mean ± "
            "sd over the seeds listed, each model scored at its best dev epoch (best/epochs "
            "run); train s: training seconds, the mean over seeds.", "",
            table(["m", "cell", "seeds", "params", "best epoch", "dev ppl", "test ppl",
                   "dev WCPA", "test WCPA", "test WCPA≥10", "test accuracy", "train s"], rows),
            "", COMPARABILITY.format(**s), ""]


def _summary(settings: Dict[str, Any], runs: List[Dict[str, Any]]) -> List[str]:
    """Per m, the second-order LSTM against the LSTM (means over seeds), set beside
    the paper's attention model against its baseline: test WCPA and perplexity."""
    lines = []
    models = _by_model(settings, runs)
    for m in sorted({m for m, _ in models}):
        ours = {cell: {key: [r["test"].get(key) for r in rs if r["test"].get(key) is not None]
                       for key in ("wcpa", "ppl", "accuracy")}
                for (m_, cell), rs in models.items() if m_ == m}
        spread = ", ".join(f"{cell} {_number(_mean(t['accuracy']))}" for cell, t in ours.items())
        line = f"- m = {m}: test accuracy over all closing brackets: {spread}."
        paper = {model: row for model, *row in PAPER_TABLE_1.get(m, [])}
        if "lstm" in ours and "solstm" in ours and paper:
            base, attn = paper["Baseline LSTM"], paper["Attention LSTM"]
            for name, key, col, better in (("test WCPA", "wcpa", 4, max),
                                           ("test perplexity", "ppl", 2, min)):
                a, b = ours["solstm"][key], ours["lstm"][key]
                if not a or not b:
                    continue
                theirs = _verdict(attn[col], base[col], better)
                line += (f" On {name} the paper's second-order model is {theirs} its baseline "
                         f"({attn[col]:g} against {base[col]:g}), ")
                if min(len(a), len(b)) < 2:  # no spread over seeds to tell a difference by
                    line += (f"ours {_number(_mean(a))} against the LSTM's {_number(_mean(b))}"
                             f": one seed, too few to call either way.")
                    continue
                # a difference within the larger sd over seeds is no difference
                spread = max(statistics.stdev(v) for v in (a, b))
                mine = _verdict(_mean(a), _mean(b), better, spread)
                line += (f"ours is {mine} the LSTM ({_number(_mean(a))} against "
                         f"{_number(_mean(b))}): {'the same' if theirs == mine else 'not the same'}"
                         f" way.")
        lines.append(line)
    return lines


def _verdict(a: float, b: float, better, spread: float = 0.0) -> str:
    if abs(a - b) <= spread:
        return "level with"
    return "better than" if better(a, b) == a else "worse than"


def ldpa_lines(settings: Dict[str, Any], runs: List[Dict[str, Any]], m: int,
               min_count: int = 10) -> Dict[str, Any]:
    """{cell: (distances, test LDPA)} of each cell's first seed for ``m``,
    distances seen at least ``min_count`` times."""
    lines: Dict[str, Any] = {}
    for (m_, cell), models in _by_model(settings, runs).items():
        if m_ == m:
            points = sorted((int(d), a) for d, (a, n) in models[0]["test"]["ldpa"].items()
                            if n >= min_count)
            lines[cell] = ([d for d, _ in points], [a for _, a in points])
    return lines


def page_section(metrics: Path) -> Optional[Tuple[str, Dict[str, Any]]]:
    """The Dyck page: the runs of ``metrics/dyck``; None without any."""
    return dyck_section(metrics / "dyck")


def dyck_section(folder: Path) -> Optional[Tuple[str, Dict[str, Any]]]:
    """(Markdown, {image: (lines, xlabel, ylabel, log_y)}) of ``folder``; None without runs."""
    groups = _groups(folder) if folder.is_dir() else []
    if not groups:
        return None
    parts = ["Bounded Dyck-2 next-symbol language models ([dyck.md](../dyck.md) says how they "
             "are built and scored).", ""]
    plots: Dict[str, Any] = {}
    for number, (paths, settings, runs) in enumerate(groups):
        parts += [f"## Ours ({number + 1}): {settings['train']:,} training strings up to "
                  f"{settings['max_length']} symbols, Adam at {settings['learn_rate']:g}"
                  if len(groups) > 1 else "## Ours", ""]
        parts += _ours(paths, settings, runs)
        parts += ["The second-order LSTM against the LSTM, ours (means over seeds; level "
                  "where they differ by no more than the larger sd over seeds; not called "
                  "with one seed) and the paper's (its Table 1, below):", ""]
        parts += _summary(settings, runs) + [""]
        for m in sorted({r["m"] for r in runs}):
            image = f"dyck-ldpa-m{m}.png" if number == 0 else f"dyck-ldpa-{number + 1}-m{m}.png"
            plots[image] = (ldpa_lines(settings, runs, m), "closing distance",
                            f"test LDPA, m = {m} (distances seen >= 10 times)", False)
            parts += [f"![test LDPA against closing distance, m = {m}, first seed]({image})", ""]
    rows = [[str(m), model, params, f"{vp:.3f}", f"{tp:.3f}", f"{vw:g}", f"{tw:g}"]
            for m, models in PAPER_TABLE_1.items() for model, params, vp, tp, vw, tw in models]
    parts += ["## The paper's figures", "", PAPER_NOTE, "",
              table(["m", "model (paper)", "params", "val ppl", "test ppl", "val WCPA",
                     "test WCPA"], rows), ""]
    return "\n".join(parts).strip(), plots
