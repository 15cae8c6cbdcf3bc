"""What every part of the report shares: reading metrics files, warning about
the ones it leaves out, Markdown tables and number formats, line plots, and
rewriting a generated block of a Markdown file. Imports nothing of the report."""
import json
import statistics
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

from spacy_elstm.files import write_atomically

LOG_KEYS = ("step", "words", "seconds", "score")


class ReportError(ValueError):
    """A page cannot be written; the message names the file and the problem."""


_warned = set()


def warn(message: str) -> None:
    """Say on stderr (once per render) what the report leaves out, and why."""
    if message not in _warned:
        _warned.add(message)
        print(f"lab.report: warning: {message}", file=sys.stderr)


def forget_warnings() -> None:
    """Start a render: each problem is named again, once."""
    _warned.clear()


def read_json(path: Path) -> Optional[Dict[str, Any]]:
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


def read_log(path: Path) -> List[Dict[str, Any]]:
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


def last_step(folder: Path, config: str) -> Optional[int]:
    """The last step a run logged: in ``train-{config}.jsonl``, or in the
    console table of the same run committed beside it as
    ``train-{config}.console.txt`` where that goes further (a log file lost
    under a running process); None where neither has a step."""
    log = read_log(folder / f"train-{config}.jsonl")
    steps = [log[-1]["step"]] if log else []
    console = folder / f"train-{config}.console.txt"
    if console.is_file():
        for line in console.read_text(encoding="utf8", errors="replace").splitlines():
            fields = line.split()
            if len(fields) > 2 and fields[0].isdigit() and fields[1].isdigit():
                steps.append(int(fields[1]))
    return max(steps) if steps else None


def table(header: List[str], rows: List[List[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def percent(scores: Dict[str, Any], key: str) -> str:
    """A 0-1 score of spaCy's as a percentage to two decimals; ``-`` if absent."""
    value = scores.get(key)
    return f"{100 * value:.2f}" if isinstance(value, (int, float)) else "-"


def number(scores: Optional[Dict[str, Any]], key: str) -> Optional[float]:
    value = None if scores is None else scores.get(key)
    return float(value) if isinstance(value, (int, float)) else None


def mean_sd(values: List[float]) -> str:
    """"mean ± sample sd" to two decimals; the value alone where there is one."""
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{statistics.mean(values):.2f} ± {statistics.stdev(values):.2f}"


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


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
    fig.savefig(output, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return output


START = "<!-- {name}:start (written by `python -m lab.report`; do not edit by hand) -->"
END = "<!-- {name}:end -->"


def markers(name: str):
    return START.format(name=name), END.format(name=name)


def generated_block(text: str, name: str) -> Optional[str]:
    """The text between the `name` markers of `text`; None without them."""
    start, end = markers(name)
    if text.count(start) != 1 or text.count(end) != 1 or text.index(start) > text.index(end):
        return None
    return text.split(start, 1)[1].split(end, 1)[0].strip("\n")


def replace_block(path: Path, name: str, block: str, new_page: Optional[str] = None) -> None:
    """Replace the text between the `name` markers of `path` with `block`,
    keeping what is around them. A missing file is created from `new_page`
    (its intro) if given. The file is written beside itself and renamed over
    it, so an interrupted run leaves the old one whole."""
    start, end = markers(name)
    if not path.is_file():
        if new_page is None:
            raise ReportError(f"{path}: no such file.")
        path.parent.mkdir(parents=True, exist_ok=True)
        text = f"{new_page}\n{start}\n{end}\n"
    else:
        text = path.read_text(encoding="utf8")
    if generated_block(text, name) is None:
        raise ReportError(f"{path} has no {name} markers (or more than one pair): "
                          f"add the lines\n{start}\n{end}")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    write_atomically(path, f"{head}{start}\n{block}\n{end}{tail}".encode("utf8"))


# How `score --raw` built a document's text: "text_form" in its JSON ("ud" or
# "joined"); runs scored before it was recorded used the joined form
TEXT_FORMS = {
    "ud": "in UD's text form (lines wrapped at 80 characters, a blank line between "
          "paragraphs: the `*.txt` files UD releases, as `conllu_to_text.pl` writes them)",
    "joined": "with each paragraph's sentences joined by a space on one line (not UD's text "
              "form, whose line breaks cost sentence ends: see docs/raw-text.md)",
}


def text_form_words(results) -> str:
    """The text form of `score --raw` results (dicts), in words for a table's note."""
    forms = sorted({r.get("text_form", "joined") for r in results if r is not None})
    return " and ".join(TEXT_FORMS[f] for f in forms) if forms else TEXT_FORMS["joined"]
