"""The memory page: the "A among Bs" sweep of the ELSTM paper (Sec. 3.1), from
``metrics/memory/among-bs.json``, which `spacy-elstm memory among-bs` writes
(the paper's one unit), and from ``metrics/memory/<name>/among-bs.json``, the
sweeps of other settings (e.g. ``hidden8``, written with ``--hidden 8``): one
table each, headed by its hidden width, with its own verdict and plots."""
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .common import read_json, table

FILE = "among-bs.json"
PAPER = ("The paper (Su & Kuo, Sec. 3.1) raises T one step at a time and reports that from "
         "T = 60 the LSTM's training loss plateaus while the ELSTM's goes on down to zero; "
         "Fig. 5 shows the trained LSTM's and ELSTM's responses to the A at T = 10 (A at 9) and "
         "T = 60 (A at 30). It gives no loss, optimiser, learning rate or number of seeds.")


def _solved_up_to(rows: List[Dict[str, Any]], cell: str) -> Tuple[Optional[int], Optional[int]]:
    """(the largest T up to which every seed of ``cell`` solved every T, the
    smallest T at which no seed solved)."""
    mine = sorted((r for r in rows if r["cell"] == cell), key=lambda r: r["T"])
    all_up_to = None
    for row in mine:
        if row["solved"] < row["seeds"]:
            break
        all_up_to = row["T"]
    none_from = next((r["T"] for r in mine if r["solved"] == 0), None)
    return all_up_to, none_from


def _longest_solved(rows: List[Dict[str, Any]], cell: str) -> Optional[int]:
    """The longest T that some seed of ``cell`` solved; None if none."""
    return max((r["T"] for r in rows if r["cell"] == cell and r["solved"]), default=None)


def _verdict(rows: List[Dict[str, Any]], cells: List[str]) -> List[str]:
    lines = []
    for cell in cells:
        all_up_to, none_from = _solved_up_to(rows, cell)
        first = (f"every seed solved every T up to {all_up_to}" if all_up_to is not None
                 else "not every seed solved even the shortest T")
        last = (f"; the shortest T that no seed solved: {none_from}"
                if none_from is not None else "; every T was solved by some seed")
        lines.append(f"- `{cell}`: {first}{last}.")
    by = {(r["cell"], r["T"]): r for r in rows}
    if ("lstm", 60) in by and ("elstm", 60) in by:
        lstm, elstm = by[("lstm", 60)], by[("elstm", 60)]
        lines += ["", f"At T = 60, the paper's threshold: the LSTM solved {lstm['solved']} of "
                      f"{lstm['seeds']} seeds, the ELSTM {elstm['solved']} of {elstm['seeds']}."]
    if "lstm" in cells and "elstm" in cells:
        lstm, elstm = _longest_solved(rows, "lstm"), _longest_solved(rows, "elstm")
        said = {None: "no T"}
        if (elstm or 0) > (lstm or 0):
            word = ("agrees with the paper in direction: the longest T that some seed solved "
                    f"is {said.get(elstm, elstm)} for the ELSTM and {said.get(lstm, lstm)} "
                    "for the LSTM")
        elif elstm == lstm:
            word = ("does not reproduce the paper's gap: the longest T that some seed solved "
                    f"is the same for the ELSTM and the LSTM ({said.get(lstm, lstm)})")
        else:
            word = ("disagrees with the paper: the longest T that some seed solved is "
                    f"{said.get(lstm, lstm)} for the LSTM and {said.get(elstm, elstm)} "
                    "for the ELSTM")
        lines += ["", f"Against the paper, this sweep {word}."]
    return lines


def memory_section(folder: Path) -> Optional[Tuple[str, Dict[str, Any]]]:
    """(Markdown, plots) of the sweeps in ``folder``: its own ``among-bs.json``
    first, then those of its subfolders by name; None without any."""
    found = [(folder / FILE, "memory-")] + [
        (path, f"memory-{path.parent.name}-") for path in sorted(folder.glob(f"*/{FILE}"))]
    texts: List[str] = []
    plots: Dict[str, Any] = {}
    for path, prefix in found:
        section = _sweep_section(path, prefix)
        if section is not None:
            texts.append(section[0])
            plots.update(section[1])
    if not texts:
        return None
    return "\n".join(texts), plots


def page_section(metrics: Path) -> Optional[Tuple[str, Dict[str, Any]]]:
    """(Markdown, plots) of the memory page: the sweeps of ``metrics/memory``."""
    section = memory_section(metrics / "memory")
    return None if section is None else ("## The memory experiments\n\n" + section[0], section[1])


def _width(r: Dict[str, Any]) -> int:
    return r.get("hidden_width", len(r["response"][0]))


def _sweep_section(path: Path, prefix: str) -> Optional[Tuple[str, Dict[str, Any]]]:
    """(Markdown, plots) of one sweep's JSON; its plots' names start with ``prefix``."""
    data = read_json(path)
    if data is None or "summary" not in data:
        return None
    s, rows = data["settings"], data["summary"]
    width = s["hidden_width"]
    units = f"{width} unit{'s' if width != 1 else ''}"
    cells = list(s["cells"])
    lengths = sorted({r["T"] for r in rows})
    by = {(r["cell"], r["T"]): r for r in rows}
    seconds = sum(r["seconds"] for r in data["runs"])
    header = ["T", "constant guess"] + [f"`{c}` solved" for c in cells] + \
             [f"`{c}` loss" for c in cells]
    body = []
    for length in lengths:
        found = [by.get((c, length)) for c in cells]
        body.append([str(length), f"{found[0]['constant_loss']:.4f}"]
                    + [f"{r['solved']}/{r['seeds']}" if r else "-" for r in found]
                    + [_loss(r) for r in found])
    parts = [
        f"### A among Bs (Sec. 3.1, Table 2), hidden width {width}", "",
        f"From `{path.as_posix()}`, written by `spacy-elstm memory among-bs"
        + (f" --hidden {width}" if width != 1 else "")
        + (f" --loss-every {s['loss_every']}" if s.get("loss_every", 1) != 1 else "") + "`. "
        f"Each T: T + 1 training sequences (one A at each position 1..T, and one of Bs only); "
        f"one layer of {units}, embeddings of size {s['embedding_width']}, "
        f"batches of {s['batch_size']}, binary cross-entropy, Adam at {s['learn_rate']:g}; the "
        f"ELSTMs with one scaling factor per position. Each run trains until its training loss "
        f"(over the whole training set, after each epoch) falls below {s['solved_loss']:g} "
        f"(*solved*), or has not fallen by {100 * s['min_improvement']:g}% for "
        f"{s['patience']:,} updates (a plateau), or in the epoch that reaches "
        f"{s['max_updates']:,} updates; every cell gets the same budget. Seeds "
        f"0..{s['seeds'] - 1} per cell and T; "
        f"*loss* is the final training loss, mean ± sd over the seeds [lowest, highest]; "
        f"*constant guess* is the loss of a model that ignores its input. "
        f"{len(data['runs'])} runs, {seconds / 60:.0f} minutes in all on "
        f"{data['threads']} CPU thread(s), torch {data['torch']}.", "",
        table(header, body), "",
        f"With {units}:", "",
        *_verdict(rows, cells), "",
        PAPER, "",
        f"![final training loss against T, {units}]({prefix}loss.png)", ""]
    plots: Dict[str, Any] = {f"{prefix}loss.png": (
        {**{c: ([r["T"] for r in rows if r["cell"] == c],
                [r["loss_mean"] for r in rows if r["cell"] == c]) for c in cells},
         "constant guess": (lengths, [by[(cells[0], t)]["constant_loss"] for t in lengths])},
        "sequence length T", "final training loss (mean over seeds)", True)}
    for length, position in (tuple(p) for p in s["samples"]):
        found = [r for r in data["responses"] if r["T"] == length and r["position"] == position]
        if not found:
            continue
        xs = list(range(1, length + 1))
        one_unit = all(_width(r) == 1 for r in found)
        name = f"{prefix}response-T{length}.png"
        plots[name] = ({f"{r['cell']} (P(A) = {r['probability']:.2f})":
                        (xs, [v[0] for v in r["response"]] if one_unit else r["response_norm"])
                        for r in found},
                       f"position k (the A at {position})",
                       "memory response mr_k" if one_unit else "|mr_k| (norm over the units)",
                       False)
        parts += [f"Memory responses of seed 0's models ({units}) to the sequence of T = "
                  f"{length} with its A at position {position} (Eqs. 26-27 and their GRU and "
                  "ELSTM-II forms"
                  + ("" if one_unit else "; the norm of mr_k over the units") +
                  "; P(A) is the model's probability that an A is present):", "",
                  f"![memory responses, T = {length}, {units}]({name})", ""]
        scaled = [r for r in found if "scale" in r]
        if scaled:
            name = f"{prefix}scale-T{length}.png"
            plots[name] = ({r["cell"]: (xs, [sum(v) / len(v) for v in r["scale"]])
                            for r in scaled}, "position k",
                           "learned scaling factor s_k" if one_unit
                           else "learned s_k (mean over the units)", False)
            parts += [f"The ELSTMs' learned scaling factors at T = {length} ({units}; "
                      + ("" if one_unit else "the mean over the units; ")
                      + "initialised to 1):", "",
                      f"![scaling factors, T = {length}, {units}]({name})", ""]
    return "\n".join(parts), plots


def _loss(row: Optional[Dict[str, Any]]) -> str:
    if row is None:
        return "-"
    spread = f" ± {row['loss_sd']:.3f}" if row["seeds"] > 1 else ""
    return f"{row['loss_mean']:.3f}{spread} [{row['loss_min']:.3f}, {row['loss_max']:.3f}]"
