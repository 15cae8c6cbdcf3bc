"""The table of this repository's accuracy targets (issues 8, 9 and 33) against what the
metrics files hold: each target names the runs it compares, the official
test score it reads, and the bound. A run's score is the mean over its seeds
(the folder ``name`` is seed 0, ``name-seedN`` seed N); a target whose files
are missing shows ``-``. A target may name several candidate runs (``Best``):
it then judges the one whose mean official *dev* score is highest, so the test
split never picks what it judges."""
import statistics
from pathlib import Path
from typing import NamedTuple, Optional, Tuple, Union

from .bench import configs_run
from .common import read_json, table
from .headline import RAW_ROWS
from .studies import seeds_of


class Run(NamedTuple):
    folder: str  # below metrics/, seed 0's folder
    config: str  # the official file's stem: <config>-test.official.json


class Best(NamedTuple):
    """The candidate with the best mean official dev score (of the target's key)
    among those whose test scores are there."""
    candidates: Tuple[Run, ...]


class Target(NamedTuple):
    text: str
    key: str  # UPOS, UAS, LAS, ... of the official scores
    run: Union[Run, Best]
    bound: float  # run >= bound, or run >= other - bound where other is given
    other: Optional[Run] = None
    kind: str = "official"  # the scores read: <config>-<split>.<kind>.json
    other_kind: Optional[str] = None  # the other's, where not `kind`
    either_side: bool = False  # within bound of other above it too: |run - other| <= bound


BEST = Run("converged-10000steps", "best_elstm")
BIAFFINE = Run("converged-10000steps", "biaffine-best_elstm")
# best_elstm before issue 43, whose word features the biaffine pipeline keeps: the
# transition parser on the same pipeline as the biaffine one
BEST_WIDE_WORDS = Run("converged-10000steps", "best_elstm_wide_words")
# issue 55: configs/raw/best_elstm.cfg, 10,000 steps (the README's first raw row: the runs
# that stand for it), and the same pipeline before its text variants (4 seeds)
RAW_BEST = Run(RAW_ROWS[0][0].study, RAW_ROWS[0][0].config)
RAW_BEFORE_VARIANTS = Run("raw-ud-10000steps", "best_elstm")
# the pipeline the accuracy targets of issue 33 judge: of the converged ones, the best on dev
ACCURATE = Best((BEST, BIAFFINE))
TARGETS = [
    Target("converged best ELSTM pipeline: UPOS ≥ 95.5", "UPOS", BEST, 95.5),
    Target("converged best ELSTM pipeline: UAS ≥ 88.0", "UAS", BEST, 88.0),
    Target("converged best ELSTM pipeline: LAS ≥ 85.0", "LAS", BEST, 85.0),
    Target("converged best ELSTM pipeline: LAS ≥ 86.5 (stretch)", "LAS", BEST, 86.5),
    Target("2,000 steps: best ELSTM pipeline's UAS ≥ the CNN's", "UAS",
           Run("budget-2000steps", "best_elstm"), 0.0, Run("budget-2000steps", "cnn")),
    Target("2,000 steps: best ELSTM pipeline's LAS ≥ the CNN's", "LAS",
           Run("budget-2000steps", "best_elstm"), 0.0, Run("budget-2000steps", "cnn")),
    Target("5,000 steps: sequence-labelling parser within 3 LAS of the transition "
           "parser on the same encoder", "LAS",
           Run("parsers-5000steps", "seqparse-best_elstm"), 3.0,
           Run("converged-5000steps", "shared_elstm")),
    Target("10,000 steps: best tagger macro-model (tuned, picked on dev): UPOS ≥ 95.5", "UPOS",
           Best((Run("tuned-10000steps", "tuned_dbrnn_tagger"),
                 Run("tuned-10000steps", "tuned_brnn_tagger"))), 95.5),
    Target("converged, the best pipeline (picked on dev): LAS ≥ 88.0", "LAS", ACCURATE, 88.0),
    Target("converged, the best pipeline (picked on dev): UAS ≥ 90.5", "UAS", ACCURATE, 90.5),
    Target("converged, the best pipeline (picked on dev): UPOS ≥ 96.0", "UPOS", ACCURATE, 96.0),
    Target("converged: the biaffine parser's LAS ≥ the transition parser's on the same "
           "pipeline", "LAS", BIAFFINE, 0.0, BEST_WIDE_WORDS),
    Target("converged: the biaffine parser's UAS ≥ the transition parser's on the same "
           "pipeline", "UAS", BIAFFINE, 0.0, BEST_WIDE_WORDS),
    Target("raw/best_elstm on gold tokens: LAS within 0.2 of the same pipeline's before its "
           "text variants", "LAS", RAW_BEST, 0.2, RAW_BEFORE_VARIANTS),
]
# issue 55: the raw-text pipeline (configs/raw/best_elstm.cfg) on EWT test's raw text in
# UD's form (`raw`) and joined by spaces (`raw-joined`), 10,000 steps
RAW_TARGETS = [
    Target("raw/best_elstm: Sentences ≥ 89.5 (Stanza 1.5.1: 89.16)", "Sentences", RAW_BEST,
           89.5, kind="raw"),
    Target("raw/best_elstm: Tokens ≥ 99.2 (Stanza: 99.17)", "Tokens", RAW_BEST, 99.2,
           kind="raw"),
    Target("raw/best_elstm: Words ≥ 99.0", "Words", RAW_BEST, 99.0, kind="raw"),
    Target("raw/best_elstm: LAS ≥ 83.0", "LAS", RAW_BEST, 83.0, kind="raw"),
    Target("raw/best_elstm: Sentences in UD's form within 0.3 of the space-joined text's",
           "Sentences", RAW_BEST, 0.3, RAW_BEST, kind="raw", other_kind="raw-joined",
           either_side=True),
]
# `python -m lab.parse_txt training/STUDY/CONFIG/model-best --output
# metrics/STUDY/CONFIG-dev.parse-txt.json` (RAW_BEST's seed 0): `parse` on the split's UD
# .txt against the Python API, dev
PARSE_TXT = f"{RAW_BEST.folder}/{RAW_BEST.config}-dev.parse-txt.json"
PARSE_TXT_BOUND = 0.1
# `spacy-elstm benchmark configs` of the converged pipelines (the encoders study):
# their inference words/s beside the CNN's in one run
SPEED_FILE = "bench-accurate.json"


def run_score(metrics: Path, run: Run, key: str, split: str = "test", kind: str = "official"
              ) -> Optional[Tuple[float, int]]:
    """(mean over seeds, number of seeds) of the run's `key` on `split`, from
    its `kind` scores (official: gold tokens; raw: raw text in UD's form)."""
    values = []
    for folder in seeds_of(metrics, run.folder):
        scores = read_json(folder / f"{run.config}-{split}.{kind}.json")
        if scores is not None and isinstance(scores.get(key), (int, float)):
            values.append(float(scores[key]))
    return (statistics.mean(values), len(values)) if values else None


def pick(metrics: Path, run: Union[Run, Best], key: str) -> Tuple[Optional[Run], int]:
    """The run a target judges (itself, or the candidate with the best mean dev
    `key` among those with dev and test scores; None where there is none) and
    how many runs it was picked from."""
    if isinstance(run, Run):
        return run, 1
    scored = [(dev[0], candidate) for candidate in run.candidates
              if run_score(metrics, candidate, key) is not None
              and (dev := run_score(metrics, candidate, key, "dev")) is not None]
    return (max(scored, key=lambda pair: pair[0])[1] if scored else None), len(scored)


def _describe(run: Run, score: Tuple[float, int], picked_from: int = 1,
              kind: str = "official") -> str:
    seeds = f"{score[1]} seed{'s' if score[1] > 1 else ''}"
    among = f", the best on dev of {picked_from} runs" if picked_from > 1 else ""
    scores = "" if kind == "official" else f"-test.{kind}"
    return f"{score[0]:.2f} (`{run.folder}/{run.config}{scores}`, {seeds}{among})"


def _target_rows(metrics: Path, targets) -> Tuple[list, bool]:
    """Each target's row, and whether any had its files."""
    rows, found = [], False
    for target in targets:
        run, among = pick(metrics, target.run, target.key)
        other_kind = target.other_kind or target.kind
        ours = None if run is None else run_score(metrics, run, target.key, kind=target.kind)
        other = (None if target.other is None
                 else run_score(metrics, target.other, target.key, kind=other_kind))
        if ours is None or (target.other is not None and other is None):
            rows.append([target.text, "-", "-", "-"])
            continue
        found = True
        if other is None:
            reference, margin = f"{target.bound:.2f}", ours[0] - target.bound
        else:
            reference = _describe(target.other, other, kind=other_kind)
            margin = (target.bound - abs(ours[0] - other[0]) if target.either_side
                      else ours[0] - (other[0] - target.bound))
        rows.append([target.text, _describe(run, ours, among, target.kind), reference,
                     f"yes (+{margin:.2f})" if margin >= 0 else f"no ({margin:.2f})"])
    return rows, found


def targets_section(metrics: Path) -> Optional[str]:
    """The targets tables (gold tokens, then raw text); None where no target has its files."""
    rows, found = _target_rows(metrics, TARGETS)
    raw_rows, raw_found = _target_rows(metrics, RAW_TARGETS)
    parse_row = parse_txt_row(metrics)
    if parse_row is not None:
        raw_rows.append(parse_row)
        raw_found = True
    if not found and not raw_found:
        return None
    return "\n\n".join(filter(None, [
        table(["target (EWT test, gold tokenisation, official script)", "ours",
               "bound or reference", "met (margin)"], rows),
        speed_line(metrics),
        table(["target (EWT test, raw text in UD's text form, official script)", "ours",
               "bound or reference", "met (margin)"], raw_rows) if raw_found else None]))


def parse_txt_row(metrics: Path) -> Optional[list]:
    """The target row of `parse` on the .txt against the Python API: the largest
    difference of any score; None before `python -m lab.parse_txt` ran."""
    data = read_json(metrics / PARSE_TXT)
    if data is None:
        return None
    key, gap = max(data["difference"].items(), key=lambda item: abs(item[1]))
    margin = PARSE_TXT_BOUND - abs(gap)
    return [f"raw/best_elstm: `parse` on UD's .txt within {PARSE_TXT_BOUND} of the Python "
            f"API ({data['split']}, every score)",
            f"{abs(gap):.2f} at most ({key}; `{PARSE_TXT}`)", f"{PARSE_TXT_BOUND:.2f}",
            f"yes (+{margin:.2f})" if margin >= 0 else f"no ({margin:.2f})"]


def speed_line(metrics: Path) -> Optional[str]:
    """The converged pipelines' inference words/s, each beside the reference of
    the same run (`metrics/bench-accurate.json`); None where it has not run."""
    bench = read_json(metrics / SPEED_FILE)
    if bench is None:
        return None
    reference = bench["reference"]
    speeds = "; ".join(f"`{r['name']}` {r['words_per_second']:,.0f} "
                       f"(× {r[f'vs_{reference}']:.2f})"
                       for r in bench["rows"] if r["mode"] == "predict")
    folders = any(not str(source).endswith(".cfg") for source in bench.get("configs", {}).values())
    return (f"Words/s of the converged pipelines: {speeds}; {configs_run(bench, SPEED_FILE)}. "
            + ("A trained pipeline's folder is timed as it is (the biaffine parser's tree search "
               "depends on its scores); a config" if folders else "A config")
            + ", untrained, has the trained one's shapes.")
