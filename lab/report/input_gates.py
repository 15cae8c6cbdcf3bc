"""The input-gate study (Su & Kuo, Sec. 5.2, Fig. 11), from the folders
``metrics/input-gates*/`` that ``scripts/input_gates.sh`` fills: per run, the
training log ``train-<model>-<cell>-<gates>-seed<N>.jsonl`` (the loss summed
over each logged stretch of steps, the dev score after it) and the official
dev score ``<model>-<cell>-<gates>-seed<N>-dev.official.json`` of model-last,
which is written last: a run without it is still training (or was stopped)
and is left out. The curve is the mean training loss per step of each stretch;
the configs average the loss over each batch's tokens, so exp(loss) is the
training perplexity the paper plots."""
import math
import re
import statistics
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from .common import number, read_json, read_log, table, warn

PAGE = "input-gates"
TITLE = "Results: the input-gate study"
GATES = ("recurrent", "input")
GATE_NAMES = {"recurrent": "gates from [x_t, h_(t-1)] (recurrent)",
              "input": "gates from x_t alone (input)"}
_LOG = re.compile(r"^train-(?P<model>.+)-(?P<cell>[a-z0-9]+)-(?P<gates>recurrent|input)"
                  r"-seed(?P<seed>\d+)\.jsonl$")
_EPOCHS = re.compile(r"^input-gates(?:-(?P<epochs>\d+)epochs)?$")

HOW = ("`bash scripts/input_gates.sh` (`EPOCHS=n` for fewer than the paper's 11 epochs; "
       "see [paper-settings.md](../paper-settings.md#the-input-gate-study)) trains each "
       "setting of `configs/paper/<model>.cfg` with `gates = \"recurrent\"` (the configs': "
       "each gate reads x_t and h_(t-1)) and `gates = \"input\"` (the gates and the cell "
       "input read x_t only, the paper's I_t = X_t: h_(t-1) is read nowhere and the "
       "recurrence runs through the cell state c_t alone), one seed after another, on UD "
       "English-EWT train with gold lemmas as input; dev is EWT dev. The loss is the "
       "training cross-entropy per labelled token, averaged over each logged stretch of "
       "steps (final: the last stretch; exp(loss) is the perplexity Fig. 11 plots); a run "
       "trains on to the end of its last epoch (628 steps an epoch) after its last log, "
       "and LAS is spaCy's dev score at the last log (punctuation left out) and the official "
       "CoNLL 2018 dev score of model-last, after those steps. Two settings *differ* here when "
       "every seed of one ends its training loss above every seed of the other, and are "
       "*alike* when the seeds' ranges overlap.")


class Run(NamedTuple):
    seed: int
    steps: List[int]
    losses: List[float]  # mean loss per step over the stretch ending at steps[i]
    minutes: float
    las: Optional[float]  # official dev LAS of model-last
    logged_las: Optional[float]  # spaCy's dev LAS at the last log, in %


def loss_curve(records: List[Dict[str, Any]]) -> Tuple[List[int], List[float]]:
    """(steps, mean loss per step) of a training log: each record's summed
    losses over the steps since the one before (step 0 holds one update)."""
    steps, losses, last = [], [], None
    for record in records:
        total = sum(v for v in record.get("losses", {}).values() if isinstance(v, (int, float)))
        span = 1 if last is None else record["step"] - last
        if span > 0:
            steps.append(int(record["step"]))
            losses.append(total / span)
        last = record["step"]
    return steps, losses


def read_runs(folder: Path) -> Dict[Tuple[str, str, str], List[Run]]:
    """{(model, cell, gates): finished runs, by seed}; unfinished ones left out with a warning."""
    runs: Dict[Tuple[str, str, str], List[Run]] = {}
    for path in sorted(folder.glob("train-*.jsonl")):
        match = _LOG.match(path.name)
        if match is None:
            continue
        name = path.name[len("train-"):-len(".jsonl")]
        score = read_json(folder / f"{name}-dev.official.json")
        records = read_log(path)
        if score is None or not records:
            warn(f"{path}: no {name}-dev.official.json beside it (still training?); left out.")
            continue
        steps, losses = loss_curve(records)
        runs.setdefault((match["model"], match["cell"], match["gates"]), []).append(
            Run(int(match["seed"]), steps, losses, records[-1]["seconds"] / 60,
                number(score, "LAS"), _percent(number(records[-1].get("scores"), "dep_las"))))
    for found in runs.values():
        found.sort(key=lambda run: run.seed)
    return runs


def _percent(value: Optional[float]) -> Optional[float]:
    return None if value is None else 100 * value


def _mean_sd(values: List[float], digits: int = 2) -> str:
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    return f"{statistics.mean(values):.{digits}f} ± {statistics.stdev(values):.{digits}f}"


def _settings(runs) -> List[Tuple[str, str]]:
    return sorted({(model, cell) for model, cell, _ in runs})


def summary_table(runs) -> str:
    header = ["model", "cell", "gates", "seeds", "last logged step", "minutes to it", "final loss",
              "final perplexity", "min loss", "dev LAS at the last log", "dev LAS, model-last"]
    rows = []
    for model, cell in _settings(runs):
        for gates in GATES:
            found = runs.get((model, cell, gates), [])
            if not found:
                rows.append([model, cell, gates, "0", "-", "-", "no runs", "-", "-", "-", "-"])
                continue
            final = [run.losses[-1] for run in found]
            rows.append([
                model, cell, gates, ", ".join(str(run.seed) for run in found),
                "/".join(sorted({f"{run.steps[-1]:,}" for run in found})),
                _mean_sd([run.minutes for run in found], 0),
                _mean_sd(final, 3), _mean_sd([math.exp(v) for v in final]),
                _mean_sd([min(run.losses) for run in found], 3),
                _mean_sd([run.logged_las for run in found if run.logged_las is not None]),
                _mean_sd([run.las for run in found if run.las is not None])])
    return table(header, rows)


def _side(a: List[float], b: List[float]) -> int:
    """1 when every value of a is above every value of b, -1 when every one is
    below, 0 when their ranges overlap: the page's rule for two settings to differ."""
    return 1 if min(a) > max(b) else -1 if max(a) < min(b) else 0


def verdict(runs, model: str, cell: str) -> Optional[str]:
    """One sentence: how far apart the two gate inputs end, against the seeds' spread."""
    found = {gates: runs.get((model, cell, gates), []) for gates in GATES}
    if not all(found.values()):
        return None
    final = {g: [run.losses[-1] for run in found[g]] for g in GATES}
    las = {g: [run.las for run in found[g] if run.las is not None] for g in GATES}
    gap = statistics.mean(final["input"]) - statistics.mean(final["recurrent"])
    relative = 100 * gap / statistics.mean(final["recurrent"])
    text = (f"{model} {cell}: the final training loss with input gates is {gap:+.3f} from "
            f"the recurrent gates' ({relative:+.1f}%); ")
    if min(len(v) for v in final.values()) < 2:
        text += "one seed of a setting has no spread to judge the gap by: no verdict yet"
    else:
        spread = max(max(v) - min(v) for v in final.values())
        apart = _side(final["input"], final["recurrent"]) != 0
        text += (f"the seeds of one setting end up to {spread:.3f} apart, and "
                 + ("every seed of one ends on the other side of every seed of the other: "
                    "**they differ**" if apart else "the two settings' ranges overlap: "
                    "**alike** at this budget"))
    if all(las.values()):
        text += (f". Dev LAS {statistics.mean(las['input']):.2f} (input) against "
                 f"{statistics.mean(las['recurrent']):.2f} (recurrent)")
    return text + "."


def cells_compared(runs, model: str) -> Optional[str]:
    """One sentence: the ELSTM's final training loss against the LSTM's under each
    gate input, and what input gates cost each; None until every setting of both
    cells has two seeds."""
    final = {(cell, gates): [run.losses[-1] for run in runs.get((model, cell, gates), [])]
             for cell in ("elstm", "lstm") for gates in GATES}
    if min(len(v) for v in final.values()) < 2:
        return None

    def against(gates: str) -> str:
        elstm, lstm = final[("elstm", gates)], final[("lstm", gates)]
        gap = statistics.mean(elstm) - statistics.mean(lstm)
        side = {-1: "every ELSTM seed below every LSTM seed", 0: "the seeds' ranges overlap",
                1: "every ELSTM seed above every LSTM seed"}[_side(elstm, lstm)]
        return f"{gap:+.3f} with {GATE_NAMES[gates][:-1]}; {side})"

    cost = {cell: statistics.mean(final[(cell, "input")]) - statistics.mean(final[(cell, "recurrent")])
            for cell in ("elstm", "lstm")}
    return (f"The ELSTM's final training loss against the LSTM's on {model}: "
            f"{against('recurrent')}, {against('input')}. Input gates cost the ELSTM "
            f"{cost['elstm']:+.3f} and the LSTM {cost['lstm']:+.3f}.")


def claim(runs, model: str) -> Optional[str]:
    """Whether the paper's claim holds here: ELSTM alike under both, LSTM not."""
    texts = {cell: verdict(runs, model, cell) for cell in ("lstm", "elstm")}
    if not all(texts.values()):
        return None
    if any("no verdict" in text for text in texts.values()):
        return None
    elstm_alike = "**alike**" in texts["elstm"]
    lstm_differs = "**they differ**" in texts["lstm"]
    if elstm_alike and lstm_differs:
        return (f"On {model} the paper's claim (Sec. 5.2: the ELSTM behaves alike with I_t = X_t "
                "and with [X_t, h_(t-1)], the LSTM does not) **holds** here.")
    parts = [("the ELSTM is alike under both" if elstm_alike else "the ELSTM differs too"),
             ("the LSTM differs" if lstm_differs else "the LSTM is alike under both as well")]
    return (f"On {model} the paper's claim (Sec. 5.2: the ELSTM behaves alike with I_t = X_t "
            f"and with [X_t, h_(t-1)], the LSTM does not) is **not reproduced** here: "
            f"{parts[0]}, and {parts[1]}.")


def _curves(found: List[Run]) -> Tuple[List[int], List[float], List[float], List[float]]:
    """(steps, mean, min, max) over the seeds that logged each step."""
    by_step: Dict[int, List[float]] = {}
    for run in found:
        for step, loss in zip(run.steps, run.losses):
            by_step.setdefault(step, []).append(loss)
    steps = sorted(by_step)
    return (steps, [statistics.mean(by_step[s]) for s in steps],
            [min(by_step[s]) for s in steps], [max(by_step[s]) for s in steps])


def plot(runs, output: Path) -> Path:
    """One panel per model and cell: the loss against steps, each gate input's
    mean over seeds as a line and the seeds' range as a band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    settings = _settings(runs)
    fig, axes = plt.subplots(1, len(settings), figsize=(4.5 * len(settings), 3.6), squeeze=False,
                             sharey=True)
    for ax, (model, cell) in zip(axes[0], settings):
        for gates in GATES:
            found = runs.get((model, cell, gates), [])
            if not found:
                continue
            steps, mean, low, high = _curves(found)
            # the first point is one batch's loss at step 0, far above the rest
            steps, mean, low, high = (v[1:] if len(steps) > 1 else v
                                      for v in (steps, mean, low, high))
            line, = ax.plot(steps, mean, marker=".",
                            label=f"{GATE_NAMES[gates]}, {len(found)} seed(s)")
            ax.fill_between(steps, low, high, color=line.get_color(), alpha=0.25)
        ax.set_title(f"{model}, {cell}")
        ax.set_xlabel("training step (batches of 20 sentences)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("training loss per token (band: seeds' range)")
    fig.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return output


def folder_section(folder: Path) -> Optional[Tuple[str, Dict[str, Any]]]:
    """(Markdown, {image: drawer}) of one study folder; None if no run finished."""
    runs = read_runs(folder)
    if not runs:
        return None
    match = _EPOCHS.match(folder.name)
    epochs = match["epochs"] if match and match["epochs"] else None
    budget = (f"{epochs} epoch{'' if epochs == '1' else 's'} (the paper trains 11)" if epochs
              else "11 epochs, the paper's schedule")
    image = f"{folder.name}.png"
    lines = [f"### `metrics/{folder.name}/`: {budget}", "",
             f"![training loss against steps]({image})", "", summary_table(runs), ""]
    for model in sorted({model for model, _ in _settings(runs)}):
        for cell in sorted({cell for m, cell in _settings(runs) if m == model}):
            text = verdict(runs, model, cell)
            if text:
                lines += [f"- {text}"]
        for text in (claim(runs, model), cells_compared(runs, model)):
            if text:
                lines += ["", text]
    return "\n".join(lines), {image: lambda path, runs=runs: plot(runs, path)}


def page_section(metrics: Path) -> Optional[Tuple[str, Dict[str, Any]]]:
    """(Markdown of the page's generated block, {image: drawer}) for every
    input-gates folder; None without any results."""
    parts, plots = [], {}
    for folder in sorted(p for p in metrics.glob("input-gates*") if p.is_dir()):
        section = folder_section(folder)
        if section is not None:
            parts += [section[0], ""]
            plots.update(section[1])
    if not parts:
        return None
    return "\n".join([HOW, ""] + parts).strip(), plots
