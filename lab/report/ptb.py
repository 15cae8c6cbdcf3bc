"""The Penn Treebank tables, from a `metrics/ptb*/` folder that the
project's `ptb-sample` and `ptb` workflows fill:

- `<data>-<config>-<split>.json`: `spacy evaluate` scores, where `<data>` is
  `trees` (the sample's trees: tags and head-rule labels), `dp` (the sample's
  `.dp` files: unlabelled, one placeholder relation, so only UAS means
  anything), `parse` (full WSJ, 02-21/22/23) or `tag` (full WSJ, 00-18/19-21/22-24);
- `train-<data>-<config>.jsonl`: the training log; `run-<data>-<config>.json`:
  how the run was made (`scripts/run_record.py`);
- `data-*.json`: the splits' counts; `headrules-agreement.json`: the head rules
  against the `.dp` heads.
"""
import re
from pathlib import Path
from typing import Any, Dict, List, Optional

from .common import percent, read_json, read_log, table, warn

DATA = {"trees": "trees: tags, head-rule labels", "dp": ".dp: unlabelled heads",
        "parse": "WSJ 02-21 / 22 / 23", "tag": "WSJ 00-18 / 19-21 / 22-24"}
UNLABELLED = {"dp"}
_SCORES = re.compile(rf"^(?P<data>{'|'.join(DATA)})-(?P<config>[\w.-]+?)-(?P<split>dev|test)\.json$")


def ptb_section(folder: Path, note: Optional[str] = None) -> Optional[str]:
    """The tables of one PTB metrics folder, after `note` (what sets the folder
    apart); None if it holds no scores."""
    rows, tests = [], {}
    matches = [m for m in map(_SCORES.match, (p.name for p in folder.glob("*.json"))) if m]
    order = list(DATA)
    for match in sorted(matches, key=lambda m: (m["config"], order.index(m["data"]), m["split"])):
        path = folder / match.string
        scores = read_json(path)
        if scores is None:
            continue
        data, config = match["data"], match["config"]
        if match["split"] == "test":
            tests.setdefault(config, {})[data] = scores
        log = read_log(folder / f"train-{data}-{config}.jsonl")
        run = read_json(folder / f"run-{data}-{config}.json") or {}
        last = log[-1] if log else {}
        best = max(log, key=lambda r: r["score"]) if log else {}
        rows.append([config, DATA[data], match["split"], percent(scores, "tag_acc"),
                     percent(scores, "dep_uas"),
                     "-" if data in UNLABELLED else percent(scores, "dep_las"),
                     str(last.get("step", "-")), f"{last['words']:,}" if last else "-",
                     f"{last['seconds'] / 60:.1f}" if last else "-", str(best.get("step", "-")),
                     str(run.get("seed", "-"))])
    if not rows:
        return None
    name = folder.name
    parts = [f"### Penn Treebank ({name}): gold tokenisation, one seed", "",
             f"From `{folder.as_posix()}/`."]
    if note:
        parts += ["", note]
    data = _splits_table(folder)
    if data:
        parts += ["", data]
    agreement = _agreement(folder / "headrules-agreement.json")
    if agreement:
        parts += ["", agreement]
    summary = _test_summary(tests)
    if summary:
        parts += ["", summary]
    header = ["config", "data", "split", "POS", "UAS", "LAS", "steps", "words seen",
              "train min", "best step", "seed"]
    parts += ["", "Every model:", "", table(header, rows)]
    machine = _machines(folder)
    if machine:
        parts += ["", machine]
    return "\n".join(parts) + "\n"


def _test_summary(tests: Dict[str, Dict[str, Dict[str, Any]]]) -> Optional[str]:
    """The sample's test files, one row per config: POS and LAS of the model
    trained on the trees, UAS of both models."""
    rows = [[config, percent(by_data["trees"], "tag_acc"),
             percent(by_data["dp"], "dep_uas") if "dp" in by_data else "-",
             percent(by_data["trees"], "dep_uas"), percent(by_data["trees"], "dep_las")]
            for config, by_data in sorted(tests.items()) if "trees" in by_data]
    if not rows:
        return None
    return ("Test files, per encoder: POS and LAS of the model trained on the trees (head-rule "
            "labels), UAS of the model trained on the `.dp` files (unlabelled) and of the one "
            "trained on the trees (the same gold heads).\n\n"
            + table(["config", "POS", "UAS (.dp model)", "UAS (trees model)", "LAS (trees model)"],
                     rows))


def _splits_table(folder: Path) -> Optional[str]:
    rows = []
    for path in sorted(folder.glob("data-*.json")):
        summary = read_json(path)
        if summary is None:
            continue
        try:
            for split, part in summary["splits"].items():
                rows.append([path.stem[len("data-"):], split, part["selection"],
                             f"{part['first_file']}-{part['last_file']}", f"{part['files']:,}",
                             f"{part['sentences']:,}", f"{part['words']:,}"])
        except (KeyError, TypeError, AttributeError) as err:
            warn(f"{path}: no key {err}; skipped.")
    if not rows:
        return None
    return table(["data", "split", "selection", "files", "n files", "sentences", "words"], rows)


def _agreement(path: Path) -> Optional[str]:
    data = read_json(path)
    if data is None:
        return None
    try:
        overall = data["all"]
        return (f"Head rules (`spacy-elstm ptb agreement`) against the sample's `.dp` "
                f"heads, all {overall['sentences']:,} sentences: **{overall['agreement']:.2f}%** "
                f"of {overall['words']:,} words agree ({overall['agreement_no_punct']:.2f}% "
                f"without punctuation; {overall['whole_sentences']:.2f}% of the sentences "
                f"entirely). From `{path.as_posix()}`.")
    except (KeyError, TypeError, ValueError) as err:
        warn(f"{path}: no key {err}; skipped.")
        return None


def _machines(folder: Path) -> Optional[str]:
    machines: Dict[str, List[str]] = {}
    for path in sorted(folder.glob("run-*.json")):
        run: Dict[str, Any] = read_json(path) or {}
        machine = run.get("machine") or {}
        if machine:
            key = (f"{machine.get('cpu', '?')}, torch {machine.get('torch', '?')}, "
                   f"threads: {machine.get('torch_threads', '?')}"
                   + (f", GPU {machine['gpu']}" if machine.get("gpu") else ""))
            machines.setdefault(key, []).append(path.stem[len("run-"):])
    if not machines:
        return None
    return "Trained on: " + "; ".join(f"{k} ({', '.join(v)})" for k, v in machines.items()) + "."
