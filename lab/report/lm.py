"""The language-modelling tables and plot, from ``metrics/lm/``, which
the project's `lm` workflow fills: one ``<run>-seed<N>.json`` per finished run,
the ``metrics.json`` that ``spacy-elstm lm train`` writes. Runs whose model
reads the segment backwards too (``bidirectional``) go into a table of their
own (named ``leak-*``, with the next-word run trained beside them on the same
budget): they demonstrate the leak and are not language models.
"""
import re
import statistics
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .common import mean_sd, read_json, table

LEAK = "leak-"  # runs named leak-*: the leak demonstration, a table of their own
_RUN = re.compile(r"^(?P<name>.+?)(?:-seed(?P<seed>\d+))?\.json$")

# Published numbers, for comparison only (never produced here)
LITERATURE = ("Published next-word test perplexities on the same data: Zaremba et al. "
              "(2014), LSTM 2 x 200, no dropout (the `small` setting here): 114.5; their "
              "medium, regularised LSTM (2 x 650): 82.1; AWD-LSTM (Merity et al. 2018): 57.3.")
PAPER = ("The paper's Table 5 (Su & Kuo; one layer, AdaGrad, 11 epochs) gives the basic RNN "
         "267.47 / 262.39 / 248.60 (LSTM / GRU / ELSTM) and, for its bidirectional models, "
         "BRNN 78.56 / 82.83 / 71.65 and DBRNN 9.80 / 24.10 / 6.18. A backward RNN over "
         "the sentence has already read the word it is asked to predict, so those "
         "bidirectional numbers are not next-word perplexities; the leak table below "
         "shows the same effect with our code.")


def _runs(folder: Path) -> Dict[str, List[Dict[str, Any]]]:
    groups: Dict[str, List[Dict[str, Any]]] = {}
    for path in sorted(folder.glob("*.json")):
        match = _RUN.match(path.name)
        data = read_json(path)
        if match is None or data is None or "history" not in data or "test_ppl" not in data:
            continue
        groups.setdefault(match["name"], []).append(data)
    return groups


def _setting(run: Dict[str, Any]) -> str:
    model, training = run["settings"]["model"], run["settings"]["training"]
    period = f", Ts = {model['period']}" if model["cell"] in ("elstm", "elstm2") else ""
    rate = f" at {training['learn_rate']:g}" if "learn_rate" in training else ""
    return (f"{model['cell']}{period}, {model['depth']} x {model['width']}, "
            f"{training['optimizer']}{rate}")


def _epochs(run: Dict[str, Any]) -> str:
    history = run["history"]
    if history and not history[-1].get("complete", True):
        return f"{len(history) - 1} + {history[-1]['words']:,} words"
    return str(len(history))


def _words_per_second(run: Dict[str, Any]) -> float:
    """Training words/s over the whole run: the mean of its epochs' rates."""
    return statistics.mean(row["words_per_second"] for row in run["history"])


def lm_section(folder: Path) -> Optional[Tuple[str, Dict[str, Any]]]:
    """The tables of ``metrics/lm/`` and the plot they link ({image: lines});
    None without runs."""
    groups = _runs(folder)
    if not groups:
        return None
    plots = {}
    leaks = {k: v for k, v in groups.items() if k.startswith(LEAK)}
    models = {k: v for k, v in groups.items() if not k.startswith(LEAK)}
    parts = ["### Language modelling: Penn Treebank (Mikolov's 10k-word version)", "",
             f"From `{folder.as_posix()}/`, written by `spacy-elstm lm train` (the project's "
             "`lm` workflow: `lm-ptb` and `lm-paper`). Perplexity: exp of the mean "
             "cross-entropy per word over the whole file, `<eos>` counted, the state carried through it; test perplexity of the epoch "
             "with the best validation perplexity (best epoch: which one, per seed). Mean ± sd "
             "over the seeds listed; words/s is training throughput (the mean over epochs) on "
             "the machine named.", ""]
    if models:
        rows = []
        for name, runs in sorted(models.items()):
            first = runs[0]
            rows.append([
                name, _setting(first), str(len(runs)), _epochs(first),
                ", ".join(str(r.get("best_epoch", "-")) for r in runs),
                mean_sd([r["valid_ppl"] for r in runs]), mean_sd([r["test_ppl"] for r in runs]),
                f"{statistics.mean(_words_per_second(r) for r in runs):,.0f}",
                f"{statistics.mean(r['train_seconds'] for r in runs) / 60:,.0f}",
                f"{first['machine']}, {first['device']}, {first['threads']} thread(s)"])
        parts += [table(["run", "model", "seeds", "epochs", "best epoch", "valid ppl",
                          "test ppl", "words/s", "train min", "machine"], rows), ""]
        parts += [LITERATURE, ""]
        lines = lm_lines(models)
        if lines:
            plots["lm-valid.png"] = (lines, "epoch", "validation perplexity (seed 0)", True)
            parts += ["![validation perplexity by epoch](lm-valid.png)", ""]
    parts += [PAPER, ""]
    if leaks:
        rows = []
        for name, runs in sorted(leaks.items()):
            first = runs[0]
            kind = "reads both ways" if first["settings"]["model"].get("bidirectional") else "next word only"
            rows.append([name, kind, _setting(first), _epochs(first),
                         mean_sd([r["valid_ppl"] for r in runs]),
                         mean_sd([r["test_ppl"] for r in runs])])
        parts += ["#### The bidirectional leak", "",
                  "The same budget for a next-word model and for one whose layers also run "
                  "backwards over the segment: the second predicts word t + 1 from a state "
                  "that has read it.", "",
                  table(["run", "model reads", "model", "epochs", "valid ppl", "test ppl"],
                         rows), ""]
    return "\n".join(parts), plots


def lm_lines(models: Dict[str, List[Dict[str, Any]]]) -> Dict[str, Any]:
    """Validation perplexity by epoch of each run's first seed (whole epochs only)."""
    lines = {}
    for name, runs in sorted(models.items()):
        history = [r for r in runs[0]["history"] if r.get("complete", True)]
        if history:
            lines[name] = ([r["epoch"] for r in history], [r["valid_ppl"] for r in history])
    return lines


def lm_bench_section(path: Path) -> Optional[str]:
    """The LM benchmark's table (``spacy-elstm benchmark lm``), if the file exists."""
    data = read_json(path)
    if data is None or not data.get("rows"):
        return None
    env, first = data["environment"], data["rows"][0]
    ref = next(k for k in first if k.startswith("vs_"))
    rows = [[r["name"], f"{r['words_per_second']:,.0f}", f"{r[ref]:.2f}"] for r in data["rows"]]
    return "\n".join([
        f"Training words/s of the language model ({first['depth']} x {first['width']}, "
        f"{first['batch']} rows x {first['bptt']} steps, {first['vocab_size']:,} words; the "
        f"median of {data['repeats']} rounds of {first['updates']} updates), from "
        f"`{path.as_posix()}` (`spacy-elstm benchmark lm`), on {env.get('gpu') or env['cpu']}, "
        f"{env['threads']} thread(s), torch {env['torch']}:", "",
        table(["model", "words/s", f"x {ref[3:]}"], rows)])
