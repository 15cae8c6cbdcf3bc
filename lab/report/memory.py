"""The memory page: the "A among Bs" sweep of the ELSTM paper (Sec. 3.1), from
``metrics/memory/among-bs.json``, which `spacy-elstm memory among-bs` writes
(the paper's one unit), and from ``metrics/memory/<name>/among-bs.json``, the
sweeps of other settings (e.g. ``hidden8``, written with ``--hidden 8``): one
table each, headed by its hidden width, with its own verdict and plots. First,
from ``metrics/memory/grid/among-bs-grid.json`` (`spacy-elstm memory
among-bs-grid`), the choice of training settings on the LSTM alone."""
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .common import read_json, table

FILE = "among-bs.json"
GRID = Path("grid") / "among-bs-grid.json"
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
    grid = grid_section(folder / GRID)
    if grid is not None:
        texts.append(grid)
    for text, drawn in protocol_sections(folder):
        texts.append(text)
        plots.update(drawn)
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
    return _sweep_text(data, f"`{path.as_posix()}`", prefix)


def _merged(datas: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The sweeps of one setting run a cell at a time, as one sweep of all their cells."""
    from spacy_elstm.memory.among_bs import summarise

    runs = [r for d in datas for r in d["runs"]]
    settings = dict(datas[0]["settings"], cells=[c for d in datas for c in d["settings"]["cells"]])
    return {**datas[0], "settings": settings, "runs": runs, "summary": summarise(runs),
            "responses": [r for d in datas for r in d["responses"]]}


def protocol_sections(folder: Path) -> List[Tuple[str, Dict[str, Any]]]:
    """(Markdown, plots) of each setting of `scripts/among_bs_sweep.sh`:
    ``folder/protocol/<setting>/<cell>/among-bs.json`` merged over the cells."""
    sections = []
    for group in sorted(p for p in (folder / "protocol").glob("*") if p.is_dir()):
        datas = [d for d in (read_json(p) for p in sorted(group.glob(f"*/{FILE}")))
                 if d is not None and "summary" in d]
        if datas:
            source = (f"`{group.as_posix()}/<cell>/{FILE}` (one per cell, by "
                      "`scripts/among_bs_sweep.sh`)")
            sections.append(_sweep_text(_merged(datas), source,
                                        f"memory-protocol-{group.name}-"))
    return sections


def _sweep_text(data: Dict[str, Any], source: str, prefix: str) -> Tuple[str, Dict[str, Any]]:
    """(Markdown, plots) of one sweep read from ``source``."""
    s, rows = data["settings"], data["summary"]
    width = s["hidden_width"]
    units = f"{width} unit{'s' if width != 1 else ''}"
    cells = list(s["cells"])
    lengths = sorted({r["T"] for r in rows if r["T"] in s["lengths"]})
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
        f"### A among Bs (Sec. 3.1, Table 2), hidden width {width}" + _heading(s), "",
        f"From {source}, written by `spacy-elstm memory among-bs"
        + (" --cells <cell>" if "by `scripts/" in source else "")
        + (f" --hidden {width}" if width != 1 else "")
        + (f" --loss-every {s['loss_every']}" if s.get("loss_every", 1) != 1 else "")
        + _training_flags(s) + "`. "
        f"Each T: T + 1 training sequences (one A at each position 1..T, and one of Bs only); "
        f"one layer of {units}, embeddings of size {s['embedding_width']}, "
        f"batches of {s['batch_size']}, binary cross-entropy, "
        f"{OPTIMIZER_NAMES[s.get('optimizer', 'adam')]} at {s['learn_rate']:g}; the "
        f"ELSTMs with one scaling factor per position. {_start_text(s)}"
        f"Each run trains until its training loss "
        f"(over the whole training set, after each epoch) falls below "
        f"{s.get('stop_loss') or s['solved_loss']:g}, "
        f"or has not fallen by {100 * s['min_improvement']:g}% for "
        f"{s['patience']:,} updates (a plateau), or in the epoch that reaches "
        f"{s['max_updates']:,} updates; every cell gets the same budget; it *solved* T if its "
        f"final loss is below {s['solved_loss']:g}. Seeds "
        f"0..{s['seeds'] - 1} per cell and T; "
        f"*loss* is the final training loss, mean ± sd over the seeds [lowest, highest]; "
        f"*constant guess* is the loss of a model that ignores its input. "
        f"{len(data['runs'])} runs, {seconds / 60:.0f} minutes in all on "
        f"{data['threads']} CPU thread(s), torch {data['torch']}.", "",
        table(header, body), "",
        f"With {units}:", "",
        *_verdict([r for r in rows if r["T"] in s["lengths"]], cells), "",
        *_through_lines(data["runs"], cells, s), 
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


OPTIMIZER_NAMES = {"adam": "Adam", "rmsprop": "RMSprop", "sgd": "SGD with momentum 0.9"}


def _heading(s: Dict[str, Any]) -> str:
    """What sets a sweep's training apart from the first sweeps', for its heading."""
    if not (s.get("warm_start") or s.get("step") or s.get("optimizer", "adam") != "adam"):
        return ""
    start = "warm start" if s.get("warm_start") else "each T afresh"
    raised = f", T raised by {s['step']}" if s.get("step") else ""
    return f": {start}{raised}, {s.get('optimizer', 'adam')} at {s['learn_rate']:g}"


def _training_flags(s: Dict[str, Any]) -> str:
    """The `among-bs` options of the training settings that differ from the defaults."""
    flags = []
    if s.get("optimizer", "adam") != "adam":
        flags.append(f" --optimizer {s['optimizer']}")
    if s["learn_rate"] != 0.05:
        flags.append(f" --learn-rate {s['learn_rate']:g}")
    if s.get("warm_start"):
        flags.append(" --warm-start")
    if s.get("step"):
        flags.append(f" --step {s['step']}")
    if s["max_updates"] != 3000:
        flags.append(f" --max-updates {s['max_updates']}")
    if s["patience"] != 1500:
        flags.append(f" --patience {s['patience']}")
    if s.get("stop_loss"):
        flags.append(f" --stop-loss {s['stop_loss']:g}")
    return "".join(flags)


def _start_text(s: Dict[str, Any]) -> str:
    raised = (f"T is raised by {s['step']} at a time from {s['lengths'][0]} to "
              f"{s['lengths'][-1]} (the table shows the listed T); " if s.get("step") else "")
    start = ("each T's model starts from the same cell's and seed's model of the previous T. "
             if s.get("warm_start") else "each T's model starts afresh. ")
    return raised[:1].upper() + raised[1:] + (start if raised else start[:1].upper() + start[1:])


def _through_lines(runs: List[Dict[str, Any]], cells: List[str], s: Dict[str, Any]) -> List[str]:
    """Per cell, the largest T up to which each seed solved every T it trained
    (with T raised one step at a time), or each seed's longest T solved (each
    T afresh)."""
    if not s.get("step"):
        lines = ["The longest T solved, per seed (0, 1, ...; - where it solved none):", ""]
        for cell in cells:
            longest = [max((r["T"] for r in runs if r["cell"] == cell and r.get("seed") == seed
                            and r["solved"]), default=None) for seed in range(s["seeds"])]
            lines.append(f"- `{cell}`: {_through(longest)}")
        return lines + [""]
    from spacy_elstm.memory.among_bs import solved_through

    lines = ["Solved every T up to, per seed (0, 1, ...; - where the first T was not solved), "
             "and the T solved of those trained:", ""]
    for cell in cells:
        through = [solved_through(runs, cell, seed) for seed in range(s["seeds"])]
        lines.append(f"- `{cell}`: " + ", ".join("-" if t is None else str(t) for t in through)
                     + " (" + _solved_counts([r for r in runs if r["cell"] == cell], s["seeds"])
                     + ")")
    return lines + [""]


def _loss(row: Optional[Dict[str, Any]]) -> str:
    if row is None:
        return "-"
    spread = f" ± {row['loss_sd']:.3f}" if row["seeds"] > 1 else ""
    return f"{row['loss_mean']:.3f}{spread} [{row['loss_min']:.3f}, {row['loss_max']:.3f}]"


def _through(values: List[Optional[int]]) -> str:
    return ", ".join("-" if v is None else str(v) for v in values)


def _solved_counts(runs: List[Dict[str, Any]], seeds: int) -> str:
    """Per seed, how many of the T it trained it solved, e.g. "38/39"."""
    counts = []
    for seed in range(seeds):
        mine = [r for r in runs if r.get("seed") == seed]
        counts.append(f"{sum(r['solved'] for r in mine)}/{len(mine)}")
    return ", ".join(counts)


def grid_section(path: Path) -> Optional[str]:
    """Markdown of the settings grid that `memory among-bs-grid` wrote, or None."""
    data = read_json(path)
    if data is None or "grid" not in data:
        return None
    s, rows, chosen = data["settings"], data["grid"], data["chosen"]
    lengths = [str(t) for t in s["lengths"]]
    stop = s.get("stop_loss") or s["solved_loss"]
    header = (["optimiser", "learning rate", "start"] + [f"solved at T = {t}" for t in lengths]
              + ["solved every T up to (per seed)", "T solved of those trained (per seed)",
                 "minutes"])
    body = [[r["optimizer"], f"{r['learn_rate']:g}", r["start"]]
            + [f"{r['solved'][t]}/{r['seeds']}" for t in lengths]
            + [_through(r["solved_through"]), _solved_counts(r["runs"], r["seeds"]),
               f"{r['seconds'] / 60:.1f}"] for r in rows]
    minutes = sum(r["seconds"] for r in rows) / 60
    return "\n".join([
        "### Choosing the training settings on the LSTM alone", "",
        f"From `{path.as_posix()}`, written by `spacy-elstm memory among-bs-grid "
        f"--lengths {','.join(lengths)} --step {s['step']} --seeds {s['seeds']} "
        f"--optimizers {','.join(data['optimizers'])} "
        f"--learn-rates {','.join(f'{v:g}' for v in data['learn_rates'])} "
        f"--starts {','.join(data['starts'])} --max-updates {s['max_updates']} "
        f"--patience {s['patience']}"
        + (f" --stop-loss {s['stop_loss']:g}" if s.get("stop_loss") else "") + "`. "
        "One LSTM unit, whose task is solvable at every T by construction (hand-set "
        "weights solve T = 10, 100 and 1000: `tests/test_memory.py`). *scratch*: each listed "
        f"T trained afresh; *warm*: T raised by {s['step']} at a time from "
        f"T = {lengths[0]}, each T's model starting from the previous T's. A run stops below "
        f"a training loss of {stop:g}, after {s['patience']:,} updates without a "
        f"{100 * s['min_improvement']:g}% improvement, or at {s['max_updates']:,} updates; "
        f"it *solved* T if its final loss is below {s['solved_loss']:g}. "
        "*sgd* is SGD with momentum 0.9. "
        f"{sum(len(r['runs']) for r in rows)} runs, {minutes:.0f} minutes on "
        f"{data['threads']} CPU thread(s), torch {data['torch']}.", "",
        table(header, body), "",
        f"Chosen (most seeds solving T = {lengths[-1]}, then most over all listed T, then "
        f"the fastest): {chosen['optimizer']} at {chosen['learn_rate']:g}, "
        f"{chosen['start']} start: "
        + ", ".join(f"T = {t}: {chosen['solved'][t]}/{chosen['seeds']}" for t in lengths)
        + ". " + _by_start(rows, lengths[-1]), ""])


def _by_start(rows: List[Dict[str, Any]], longest: str) -> str:
    """The most seeds any setting of each start solved the longest T with."""
    parts = []
    for start in dict.fromkeys(r["start"] for r in rows):
        mine = [r for r in rows if r["start"] == start]
        best = max(r["solved"][longest] for r in mine)
        parts.append(f"{start}: at most {best} of {mine[0]['seeds']} seeds "
                     f"(over {len(mine)} settings)")
    return f"At T = {longest}, " + "; ".join(parts) + "."
