"""The bounded Dyck-2 page, from ``metrics/dyck/*.json`` as ``spacy-elstm dyck``
writes them: our models' perplexity, WCPA and accuracy beside the second-order
LSTM paper's Table 1, and test LDPA against closing distance, one plot per m."""
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
    "the default run has a tenth of the paper's training strings, strings of at most {max_length} "
    "symbols and at most {epochs} epochs at a learning rate of {learn_rate:g}, against the "
    "paper's 1e-4 and early stopping. The perplexity floor depends on how the strings are "
    "drawn, so perplexities compare between cells here, not with the paper's. WCPA is the "
    "least LDPA over every distance seen, so it follows the rarest long distances; WCPA≥10 "
    "keeps the distances seen at least 10 times.")


def _number(value: Optional[float], digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _runs(folder: Path) -> List[Tuple[Path, Dict[str, Any]]]:
    found = []
    for path in sorted(folder.glob("*.json")):
        data = read_json(path)
        if data is not None and isinstance(data.get("runs"), list) and "settings" in data:
            found.append((path, data))
    return found


def _ours(path: Path, data: Dict[str, Any]) -> List[str]:
    s = data["settings"]
    rows = []
    for r in sorted(data["runs"], key=lambda r: (r["m"], s["cells"].index(r["cell"])
                                                  if r["cell"] in s["cells"] else 99, r["seed"])):
        dev, test = r.get("dev") or {}, r["test"]
        rows.append([str(r["m"]), r["cell"], str(r["seed"]), f"{r['params']:,}",
                     f"{r['best_epoch']} of {r['epochs']}", _number(dev.get("ppl")),
                     _number(test["ppl"]), _number(dev.get("wcpa")), _number(test["wcpa"]),
                     _number(test.get("wcpa_10")), _number(test.get("accuracy")),
                     f"{r['train_seconds']:.0f}"])
    sizes = (f"{s['train']:,} / {s['dev']:,} / {s['test']:,} strings of even length 2 to "
             f"{s['max_length']} (p_open {s['p_open']}), embedding {s['embedding']}, "
             f"{s['hidden_per_m']}m hidden units, batch {s['batch_size']}, Adam at "
             f"{s['learn_rate']:g}, at most {s['epochs']} epochs, the second-order LSTM with "
             f"{s['solstm_cells']} cells and τ × {s['anneal']} per epoch")
    return [f"From `{path.as_posix()}`, written by `spacy-elstm dyck` on the CPU, "
            f"{data.get('threads', '?')} thread(s): {sizes}. One model per row, scored at its "
            "best dev epoch; seconds: training time.", "",
            table(["m", "cell", "seed", "params", "best epoch", "dev ppl", "test ppl",
                   "dev WCPA", "test WCPA", "test WCPA≥10", "test accuracy", "train s"], rows),
            "", COMPARABILITY.format(**s), ""]


def _summary(data: Dict[str, Any]) -> List[str]:
    """Per m, which cell came out best on test accuracy and on WCPA≥10 (seed 0)."""
    lines = []
    for m in sorted({r["m"] for r in data["runs"]}):
        runs = [r for r in data["runs"] if r["m"] == m and r["seed"] == min(
            x["seed"] for x in data["runs"] if x["m"] == m)]
        acc = max(runs, key=lambda r: r["test"].get("accuracy") or 0)
        spread = ", ".join(f"{r['cell']} {_number(r['test'].get('accuracy'))}" for r in runs)
        lines.append(f"- m = {m}: test accuracy over all closing brackets {spread}; the "
                     f"highest, {acc['cell']}.")
    return lines


def ldpa_lines(data: Dict[str, Any], m: int, min_count: int = 10) -> Dict[str, Any]:
    """{cell: (distances, test LDPA)} of the first seed's models, distances seen
    at least ``min_count`` times."""
    lines: Dict[str, Any] = {}
    for r in data["runs"]:
        if r["m"] != m or r["cell"] in lines:
            continue
        points = sorted((int(d), a) for d, (a, n) in r["test"]["ldpa"].items() if n >= min_count)
        lines[r["cell"]] = ([d for d, _ in points], [a for _, a in points])
    return lines


def dyck_section(folder: Path) -> Optional[Tuple[str, Dict[str, Any]]]:
    """(Markdown, {image: (lines, xlabel, ylabel, log_y)}) of ``folder``; None without runs."""
    found = _runs(folder) if folder.is_dir() else []
    if not found:
        return None
    parts = ["Bounded Dyck-2 next-symbol language models ([dyck.md](../dyck.md) says how they "
             "are built and scored).", ""]
    plots: Dict[str, Any] = {}
    for path, data in found:
        parts += ["## Ours", ""] + _ours(path, data)
        parts += ["What the runs show, from the table above:", ""] + _summary(data) + [""]
        for m in sorted({r["m"] for r in data["runs"]}):
            image = f"dyck-ldpa-{path.stem}-m{m}.png"
            plots[image] = (ldpa_lines(data, m), "closing distance",
                            f"test LDPA, m = {m} (distances seen >= 10 times)", False)
            parts += [f"![test LDPA against closing distance, m = {m}]({image})", ""]
    rows = [[str(m), model, params, f"{vp:.3f}", f"{tp:.3f}", f"{vw:g}", f"{tw:g}"]
            for m, models in PAPER_TABLE_1.items() for model, params, vp, tp, vw, tw in models]
    parts += ["## The paper's figures", "", PAPER_NOTE, "",
              table(["m", "model (paper)", "params", "val ppl", "test ppl", "val WCPA",
                     "test WCPA"], rows), ""]
    return "\n".join(parts).strip(), plots
