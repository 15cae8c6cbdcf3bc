"""The README's "which config" table: the recommended configs of `configs/`,
each with its EWT test accuracy over the seeds run (official CoNLL 2018
scores), the steps it trained and its speed (`spacy-elstm benchmark configs`,
every config in one run)."""
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional

from spacy_elstm.architectures.tok2vec import SENTENCE_TOK2VEC

from .bench import configs_run
from .common import last_step, mean_sd, number, read_json, table, text_form_words
from .studies import seeds_of, study_of


class Row(NamedTuple):
    config: str  # configs/<config>.cfg, and the runs' file stem
    study: str  # the metrics folder of seed 0; seeds 1, 2, ... are <study>-seedN
    budget: int  # the steps the study allowed each run
    use: str  # what it is for


ROWS = [
    Row("best_elstm", "converged-10000steps", 10_000,
        "the most accurate: ELSTM BRNN, 2 × 256, character-level and hashed word embedding "
        "(the word features 128 wide)"),
    Row("shared_elstm", "converged-10000steps", 10_000,
        "the fast ELSTM: `best_elstm` without the character-level embedding"),
    Row("shared_dbrnn", "converged-5000steps", 5_000,
        "the paper's DBRNN as the encoder, wired as `shared_elstm`"),
    Row("shared_lstm", "converged-5000steps", 5_000, "`shared_elstm` with LSTM cells"),
    Row("shared_gru", "converged-5000steps", 5_000, "`shared_elstm` with GRU cells"),
    Row("biaffine-best_elstm", "converged-10000steps", 10_000,
        "`best_elstm` with the graph-based biaffine parser (`configs/biaffine/best_elstm.cfg`), "
        "its word features 256 wide as `best_elstm`'s were before issue 43"),
    Row("cnn", "converged-10000steps", 10_000, "spaCy's CNN tok2vec, the baseline"),
]
KEYS = ["UPOS", "UAS", "LAS"]
# The pipelines for raw text (configs/raw/): what a user's text gets, and the same runs on
# gold tokens and sentences beside it
# (the runs' file stem in `study`; the config they stand for is configs/raw/<shown>.cfg;
# the first is the one the raw-text targets judge)
RAW_ROWS = [
    (Row("best_elstm_text_variants", "raw-text-variants-10000steps", 10_000,
         "`best_elstm` for raw text: sentences from the characters and the words, the "
         "treebank's tokens, lemmas; its tagger and parser also trained on lower case and "
         "on text without punctuation"), "best_elstm"),
    (Row("cnn_text_variants", "raw-text-variants-10000steps", 10_000,
         "spaCy's CNN tok2vec, the same treatment"), "cnn"),
]
RAW_KEYS = ["Tokens", "Sentences", "Words", "UPOS", "Lemmas", "UAS", "LAS"]
SPEED_FILE = "bench-configs.json"  # `spacy-elstm benchmark configs`, the `speed` command


def config_speeds(metrics: Path) -> Optional[Dict]:
    """The inference rows of the configs benchmark by config name, and the
    benchmark itself; None where it has not run."""
    bench = read_json(metrics / SPEED_FILE)
    if bench is None:
        return None
    rows = {r["name"]: r for r in bench["rows"] if r["mode"] == "predict"}
    return {"bench": bench, "rows": rows}


def row_scores(metrics: Path, row: Row, kind: str = "official",
               keys: List[str] = KEYS) -> Optional[Dict]:
    """What the table shows of one config, from its seed folders: per key the
    test scores of `kind` (official: gold tokens and sentences; raw: raw text),
    the budget and the steps each run trained; None without such scores."""
    found: Dict = {key: [] for key in keys}
    found.update(folders=[], steps=[], gold=set(), results=[])
    for folder in seeds_of(metrics, row.study):
        official = read_json(folder / f"{row.config}-test.{kind}.json")
        if official is None:
            continue
        found["folders"].append(folder)
        found["results"].append(official)
        found["gold"].add(official.get("gold", "?"))
        for key in keys:
            value = number(official, key)
            if value is not None:
                found[key].append(value)
        step = last_step(folder, row.config)
        if step is not None:
            found["steps"].append(step)
    return found if found["folders"] else None


def _steps(budget: int, steps: List[int]) -> str:
    """The budget, and the last step the runs logged."""
    if not steps:
        return f"{budget:,}"
    low, high = min(steps), max(steps)
    ran = f"{low:,}" if low == high else f"{low:,}-{high:,}"
    return f"{budget:,} (ran {ran})"


def raw_headline(metrics: Path) -> str:
    """The raw-text table (the raw-text scores, then the same runs' gold ones)
    and the line saying what its numbers are."""
    rows, gold, seeds, results, swapped = [], set(), set(), [], []
    for row, shown in RAW_ROWS:
        raw = row_scores(metrics, row, "raw", RAW_KEYS)
        official = row_scores(metrics, row)
        if raw is None:
            rows.append([f"`raw/{shown}`", row.use] + ["-"] * (len(RAW_KEYS) + len(KEYS) + 2))
            continue
        gold |= raw["gold"]
        results += raw["results"]
        swapped += [path for path in (Path(f) / f"{row.config}-senter.json"
                                      for f in raw["folders"]) if path.exists()]
        seeds.add(len(raw["folders"]))
        steps = (last_step(f, row.config) for f in raw["folders"])
        raw["steps"] = [s for s in steps if s is not None]
        rows.append([f"`raw/{shown}`", row.use]
                    + [mean_sd(raw[key]) if raw[key] else "-" for key in RAW_KEYS]
                    + [mean_sd(official[key]) if official and official[key] else "-"
                       for key in KEYS]
                    + [str(len(raw["folders"])), _steps(row.budget, raw["steps"])])
    header = (["config", "for"] + RAW_KEYS + [f"gold-token {key}" for key in KEYS]
              + ["seeds", "steps"])
    sources = "; ".join(
        f"`raw/{shown}` from `metrics/{row.study}[-seedN]/{row.config}-test.{{raw,official}}"
        f".json`, trained as [{study_of(row.study)[0].title}](docs/results/ud.md#"
        f"{heading_anchor(study_of(row.study)[0].title)})" for row, shown in RAW_ROWS)
    line = (
        f"UD English-EWT test (`{'`, `'.join(sorted(gold)) or '-'}`) as a user meets it: the raw "
        f"text of each test document {text_form_words(results)} (`spacy-elstm score --raw`), "
        "tokenised, split into sentences, "
        "tagged, lemmatised and parsed by the pipeline, scored by the CoNLL 2018 evaluation "
        "script, which aligns the pipeline's words to the gold ones by their characters "
        "(Tokens, Sentences and Words are F1 of those units; every other score counts their "
        "errors too). `gold-token`: the same pipelines given the gold words and sentences "
        "(`spacy-elstm score`). Mean ± sd over the seeds run (`seeds`); no pretrained "
        f"vectors. {sources}." + senters_line(swapped) + tok2vec_line(results)
        + routing_line(results))
    return table(header, rows) + "\n\n" + line


def heading_anchor(title: str) -> str:
    """The anchor GitHub gives a heading: lower case, spaces as hyphens, the
    characters other than letters, digits, "-" and "_" left out."""
    return "".join("-" if c == " " else c for c in title.lower()
                   if c.isalnum() or c in " -_")


def senters_line(records: List[Path]) -> str:
    """What the records of senters trained apart and put into trained pipelines
    (`scripts/train_senter.py --into ... --record`) say, if there are any."""
    found = [read_json(path) for path in records]
    found = [r for r in found if r]
    if not found:
        return ""
    wraps = sorted({r["wraps"] for r in found})
    bare = sum(bool(r.get("unpunctuated")) for r in found)
    second = (f"; {bare} of them with the second pair of models for text without "
              "punctuation" if bare else "")
    return (f" The senters of {len(found)} of these runs were trained again apart from them, "
            "by the package as it is now (its other components are trained on gold "
            "sentences and do not read the senter), and put in place of their own "
            f"(`scripts/train_senter.py --into PIPELINE SENTER OUTPUT --replace --record`; "
            f"reading wraps {', '.join(wraps)}{second}): "
            + ", ".join(f"`metrics/{p.parent.name}/{p.name}`" for p in records) + ".")


def tok2vec_line(results: List[Dict]) -> str:
    """How many of the raw scores had the tok2vec read sentence by sentence
    (`score --raw` records the tok2vec's architecture), if any did."""
    by_sentence = [r for r in results if r.get("tok2vec") == SENTENCE_TOK2VEC]
    if not by_sentence:
        return ""
    return (f" In {len(by_sentence)} of these {len(results)} runs the tok2vec read each "
            f"sentence the senter set as its own sequence (`{SENTENCE_TOK2VEC}`, as "
            "`configs/raw/` have it; a run trained with `spacy.Tok2Vec.v2`, which trains "
            "the same on one sentence per Doc, loaded with it): [a paragraph read whole or "
            "sentence by sentence](docs/results/ud.md#a-paragraph-read-whole-or-sentence-"
            "by-sentence).")


ROUTING_ANCHOR = "#which-docs-the-senter-reads-as-text-without-punctuation"


def routing_line(results: List[Dict], page: str = "docs/results/ud.md") -> str:
    """How many of the raw scores were made before the senter sent only Docs
    without sentence marks to its models of text without punctuation (`score
    --raw` records `punctuated_by` since), if any were."""
    before = [r for r in results if r.get("senter", {}).get("unpunctuated")
              and "punctuated_by" not in r["senter"]]
    if not before:
        return ""
    return (f" {len(before)} of these {len(results)} runs were scored while the senter sent "
            "a Doc with any word of punctuation to its models of punctuated text (a hyphen "
            "or a slash was enough); what routing by the marks that end or divide a sentence "
            "changes in trained pipelines: [which Docs the senter reads as text without "
            f"punctuation]({page}{ROUTING_ANCHOR}).")


def headline(metrics: Path) -> str:
    """The raw-text table, then the gold-token table, each with the line
    saying what its numbers are."""
    return raw_headline(metrics) + "\n\n" + gold_headline(metrics)


def gold_headline(metrics: Path) -> str:
    """The table and the line saying what its numbers are."""
    rows, gold, seeds = [], set(), set()
    speeds = config_speeds(metrics)
    for row in ROWS:
        speed = ["-", "-"]
        if speeds is not None and row.config in speeds["rows"]:
            bench_row, ref = speeds["rows"][row.config], speeds["bench"]["reference"]
            speed = [f"{bench_row['words_per_second']:,.0f}", f"{bench_row[f'vs_{ref}']:.2f}"]
        found = row_scores(metrics, row)
        if found is None:
            rows.append([f"`{row.config}`", row.use] + ["-"] * (len(KEYS) + 2) + speed)
            continue
        gold |= found["gold"]
        seeds.add(len(found["folders"]))
        rows.append([f"`{row.config}`", row.use]
                     + [mean_sd(found[key]) if found[key] else "-" for key in KEYS]
                     + [str(len(found["folders"])), _steps(row.budget, found["steps"])] + speed)
    reference = speeds["bench"]["reference"] if speeds else "cnn"
    header = ["config", "for", "UPOS", "UAS", "LAS", "seeds", "steps", "words/s",
              f"× {reference}"]
    studies = sorted({row.study for row in ROWS})
    line = (
        f"UD English-EWT test (`{'`, `'.join(sorted(gold)) or '-'}`), gold tokenisation and "
        "sentences; UPOS/UAS/LAS from the CoNLL 2018 evaluation script (punctuation included), "
        "mean ± sd over seeds 0, 1, 2 (`seeds` says where fewer ran), read from "
        f"`metrics/{{{', '.join(studies)}}}[-seed1,-seed2]/<config>-test.official.json`. "
        "`steps`: the training budget and the last step each run logged (spaCy's patience "
        "stops a run early; the best dev checkpoint is kept). " + _speed_line(speeds))
    return table(header, rows) + "\n\n" + line


def _speed_line(speeds: Optional[Dict]) -> str:
    if speeds is None:
        return f"`words/s`: not measured yet (`metrics/{SPEED_FILE}` is missing)."
    return f"`words/s`: {configs_run(speeds['bench'], SPEED_FILE)}."
