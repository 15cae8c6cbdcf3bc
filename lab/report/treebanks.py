"""The page of every UD treebank beside English (docs/results/treebanks.md) and
the README's short table: our raw-text pipelines and UDPipe 1 trained beside
them, on each treebank's test text in UD's form, scored by the official script;
the published scores of Stanza, UDPipe 1 and UDPipe 2 quoted with their UD
versions; non-projective trees; and where the issue's targets stand.

Reads ``metrics/treebanks/<UD_Name>[-seedN]/``: ``<config>-test.raw.json`` and
``<config>-test.official.json`` (scripts/train_and_score.py --treebank),
``train-<config>.jsonl`` (training time), ``udpipe1-test.json`` and
``udpipe1-test.gold.json`` (lab.udpipe_peer run / gold-tokens),
``speed-test.json`` and ``speed-per-text-test.json`` (lab.treebank_speed), ``nonprojective-test.json``
(lab.nonprojective), ``sentence-ends-test.json`` (lab.sentence_ends),
``multiword-test.json`` (lab.multiword_tokens), ``tokenizer-dev.json``
(lab.words_with_spaces), ``tokenizer-cores-dev.json`` (lab.core_special_cases)
and ``tokenizer-marks-dev.json`` (lab.punctuation_marks; EWT's of both in
``metrics/tokenizers/``), ``senter-epochs*-dev.json`` (lab.senter_epochs)
and ``joined-words-dev.json`` (lab.joined_words)."""
import functools
import statistics
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import spacy

from spacy_elstm.treebanks.ud_folder import sets_lemmas

from ..published import published_scores
from .common import read_json, read_log, table
from .studies import seed_groups, seeds_of, split_seed

FOLDER = "treebanks"
PAGE = "treebanks"
TITLE = "Results: UD treebanks of other languages and scripts"
COLUMNS = ["Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS",
           "LAS", "CLAS", "MLAS", "BLEX"]
CONFIGS = {"best_elstm": "raw/best_elstm", "cnn": "raw/cnn"}
PEER = "udpipe1"
PEER_LABEL = "UDPipe 1 (here)"  # its rows' name in every table
# the targets, on every treebank: LAS at least UDPipe 1's + 2 (and + 4 on their mean),
# Words at least its - 0.5, Sentences its - 1, UPOS, UFeats and Lemmas at least its;
# words/s at least 1.5 times its
MEAN_LAS_MARGIN = 4.0
MARGINS = {"LAS": 2.0, "Words": -0.5, "Sentences": -1.0, "UPOS": 0.0, "UFeats": 0.0,
           "Lemmas": 0.0}
SPEED_RATIO = 1.5
# the shipped raw configs: a row whose pipelines' components were not set as its
# config sets them now was trained by an earlier version of it, and says so
RAW_CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "raw"
EARLIER_MARK = " (an earlier config)"


@functools.lru_cache(maxsize=None)
def shipped_components(config: str) -> Dict[str, Any]:
    """The [components] of configs/raw/CONFIG.cfg as it is now, interpolated
    (read once per report: every treebank's rows compare against it; not to be
    changed by callers)."""
    return dict(spacy.util.load_config(RAW_CONFIGS / f"{config}.cfg",
                                       interpolate=True)["components"])


def expected_components(config: str, raw: Dict[str, Any]) -> Dict[str, Any]:
    """The shipped config's components that a run of it has: all of them, but
    where the treebank has no lemmas (its scores have none), those whose
    factories set lemmas, which train_and_score.py leaves out."""
    shipped = shipped_components(config)
    if "Lemmas" not in raw.get("not_predicted", []):
        return shipped
    return {name: component for name, component in shipped.items()
            if not sets_lemmas(component["factory"])}


def set_as(wanted: Any, found: Any) -> bool:
    """Whether `found` (a pipeline's settings, every default filled in) has
    every setting of `wanted` (a config's), with the same value."""
    if isinstance(wanted, dict):
        return isinstance(found, dict) and all(k in found and set_as(v, found[k])
                                               for k, v in wanted.items())
    return wanted == found


def treebank_runs(metrics: Path) -> Dict[str, List[Path]]:
    """{UD_Name: [its seed folders, seed 0 first]}."""
    root = metrics / FOLDER
    return seed_groups(root) if root.is_dir() else {}


def _mean(values: List[float]) -> Optional[float]:
    return statistics.fmean(values) if values else None


def system_scores(folders: List[Path], config: str) -> Optional[Dict[str, Any]]:
    """The mean raw-text test scores of a config over its seeds, with its
    gold-token LAS, training time and seeds; None where no seed has them."""
    scored = [(f, r) for f, r in ((f, read_json(f / f"{config}-test.raw.json")) for f in folders)
              if r]
    if not scored:
        return None
    # a pipeline scored before scores recorded its settings, or set otherwise than
    # the config sets it now, was trained by an earlier version of the config: where
    # some seeds are of the config as it is, the others are left out
    current = [(f, r) for f, r in scored
               if set_as(expected_components(config, r), r.get("components_config"))]
    earlier = not current
    folders, raws = [f for f, _ in current or scored], [r for _, r in current or scored]
    golds = [g for g in (read_json(f / f"{config}-test.official.json") for f in folders) if g]
    logs = [read_log(f / f"train-{config}.jsonl") for f in folders]
    # the whole `spacy train` where train_and_score.py timed it, else the log's own
    # seconds (the training loop, after the tokenizer and senter learned)
    timed = [read_json(f / f"train-{config}.time.json") for f in folders]
    seconds = [t["seconds"] if t else log[-1]["seconds"] for t, log in zip(timed, logs) if t or log]
    steps = [log[-1]["step"] for log in logs if log]
    gold_f1 = [g["f1"] for g in golds if "f1" in g]  # every column, 0-1
    return {"scores": {c: _mean([r[c] for r in raws if r.get(c) is not None]) for c in COLUMNS},
            "earlier_config": earlier,
            "sd_LAS": statistics.stdev([r["LAS"] for r in raws]) if len(raws) > 1 else None,
            "gold_LAS": _mean([g["LAS"] for g in golds]),
            "gold": {c: _mean([100 * f[c] for f in gold_f1 if f.get(c) is not None])
                     for c in GOLD_WORD_TARGETS},
            "seeds": len(raws),
            "train_seconds": _mean(seconds), "steps": max(steps) if steps else None}


def peer_scores(folder: Path) -> Optional[Dict[str, Any]]:
    raw = read_json(folder / f"{PEER}-test.json")
    if raw is None:
        return None
    gold = read_json(folder / f"{PEER}-test.gold.json")
    return {"scores": raw["scores_f1"], "gold_LAS": gold["scores_f1"]["LAS"] if gold else None,
            "gold": {c: gold["scores_f1"].get(c) for c in GOLD_WORD_TARGETS} if gold else {},
            "seeds": 1, "train_seconds": raw.get("train_seconds"), "steps": None}


def _f(value: Optional[float], digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _minutes(seconds: Optional[float]) -> str:
    return "-" if seconds is None else f"{seconds / 60:.0f} min"


def speeds(folder: Path, name: str = "speed-test.json") -> Dict[str, float]:
    speed = read_json(folder / name)
    if not speed:
        return {}
    return {name: row["words_per_second"] for name, row in speed["systems"].items()}


PER_TEXT = "/per-text"  # lab.treebank_speed --per-text: a pipeline's tokenizer called per text
PER_TEXT_SPEED = "speed-per-text-test.json"  # its run, apart from the words/s of the table


def per_text_table(metrics: Path) -> Optional[str]:
    """Per treebank with a speed-per-text-test.json (lab.treebank_speed
    --per-text): each pipeline's words/s with the tokenizer called once per
    paragraph's text and reading a batch of them at a time, and UDPipe 1's in
    the same run."""
    rows = []
    for treebank, folders in treebank_runs(metrics).items():
        rates = speeds(folders[0], PER_TEXT_SPEED)
        for name, per_text in rates.items():
            if name.endswith(PER_TEXT) and name[:-len(PER_TEXT)] in rates:
                batched = rates[name[:-len(PER_TEXT)]]
                peer = rates.get(PEER)
                rows.append([treebank.replace("UD_", ""), f"`{name[:-len(PER_TEXT)]}`",
                             f"{per_text:,.0f}", f"{batched:,.0f}", f"{batched / per_text:.2f}x",
                             "-" if peer is None else f"{peer:,.0f}",
                             "-" if peer is None else f"{batched / peer:.2f}x"])
    if not rows:
        return None
    return table(["treebank", "pipeline", "words/s, a text at a time", "words/s, a batch",
                  "batch / text", "UDPipe 1 words/s", "batch / UDPipe 1"], rows)


SMALLER_FOLDER = "smaller"  # metrics/smaller/<UD_Name>/: the accurate pipeline beside a smaller one
SMALLER_RUNS = {"best_elstm": "`raw/best_elstm`", "elstm_brnn": "`raw/elstm_brnn`"}
SMALLER_SPEED = "speed-dev.json"  # lab.treebank_speed on the dev text, all three in one run


def smaller_pipeline_table(metrics: Path) -> Optional[str]:
    """Per treebank with runs in metrics/smaller/: each pipeline's dev scores
    on raw text in UD's form and on gold words (LAS), UDPipe 1's on the same
    raw text, and the words/s of all of them in one run, as a ratio to UDPipe 1's."""
    root = metrics / SMALLER_FOLDER
    rows = []
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        rates = speeds(folder, SMALLER_SPEED)
        peer_rate = rates.get(PEER)
        systems = [(label, read_json(folder / f"{name}-dev.raw.json"),
                    read_json(folder / f"{name}-dev.official.json"), rates.get(name),
                    (read_json(folder / f"train-{name}.time.json") or {}).get("seconds"))
                   for name, label in SMALLER_RUNS.items()]
        peer = read_json(folder / f"{PEER}-dev.json")
        if peer:
            systems.append((PEER_LABEL, peer["scores_f1"], None, peer_rate,
                            peer.get("train_seconds")))
        for label, raw, gold, rate, seconds in systems:
            if not raw:
                continue
            rows.append([folder.name.replace("UD_", ""), label]
                        + [_f(raw.get(c)) for c in ("Words", "Sentences", "UPOS", "LAS")]
                        + [_f(100 * gold["f1"]["LAS"]) if gold else "-",
                           "-" if rate is None else f"{rate:,.0f}",
                           "-" if rate is None or not peer_rate else f"{rate / peer_rate:.2f}x",
                           _minutes(seconds)])
    if not rows:
        return None
    return table(["treebank", "system", "Words", "Sentences", "UPOS", "LAS", "gold-token LAS",
                  "words/s", "× UDPipe 1", "trained"], rows)


PARSER_SENTENCES = "parser-sentences-dev.json"  # lab.parser_sentences on a documents-trained pipeline


def parser_sentences_table(metrics: Path) -> Optional[str]:
    """Per treebank with a parser-sentences-dev.json: the shipped pipeline's
    dev scores on raw text (seed 0, trained on sentences), then the
    documents-trained pipeline's with its sentences set each way."""
    rows = []
    for treebank, folders in treebank_runs(metrics).items():
        found = read_json(folders[0] / PARSER_SENTENCES)
        if not found:
            continue
        name = treebank.replace("UD_", "")
        shipped = read_json(folders[0] / "best_elstm-dev.raw.json")
        if shipped:
            rows.append([name, "on sentences", "the senter"]
                        + [_f(shipped.get(c)) for c in ("Sentences", "UPOS", "UAS", "LAS")])
        for row in found["rows"]:
            mode = row["sentences"]
            how = {"senter": "the senter", "parser": "the parser"}.get(
                mode, f"the senter outside {mode}, the parser inside")
            rows.append([name, "on documents", how]
                        + [_f(row.get(c)) for c in ("Sentences", "UPOS", "UAS", "LAS")])
    if not rows:
        return None
    return table(["treebank", "trained", "sentences set by", "Sentences", "UPOS", "UAS", "LAS"],
                 rows)


def results(metrics: Path) -> Dict[str, Dict[str, Dict[str, Any]]]:
    """{treebank: {system: its scores}} of every treebank run."""
    out: Dict[str, Dict[str, Dict[str, Any]]] = {}
    for treebank, folders in treebank_runs(metrics).items():
        rows = {}
        for config in CONFIGS:
            found = system_scores(folders, config)
            if found:
                rows[config] = found
        peer = peer_scores(folders[0])
        if peer:
            rows[PEER] = peer
        for name, rate in speeds(folders[0]).items():
            if name in rows:
                rows[name]["words_per_second"] = rate
        if rows:
            out[treebank] = rows
    return out


def _system_label(name: str, row: Dict[str, Any]) -> str:
    label = f"`{CONFIGS[name]}`" if name in CONFIGS else PEER_LABEL
    return (label + (f" ({row['seeds']} seeds)" if row["seeds"] > 1 else "")
            + (EARLIER_MARK if row.get("earlier_config") else ""))


def scores_table(found: Dict[str, Dict[str, Dict[str, Any]]]) -> str:
    rows = []
    for treebank, systems in found.items():
        for name, row in systems.items():
            rows.append([treebank.replace("UD_", ""), _system_label(name, row)]
                        + [_f(row["scores"].get(c)) for c in COLUMNS]
                        + [_f(row["gold_LAS"]), _f(row.get("words_per_second"), 0),
                           _minutes(row["train_seconds"]),
                           "-" if row["steps"] is None else f"{row['steps']:,}"])
    return table(["treebank", "system"] + COLUMNS
                 + ["gold-token LAS", "words/s", "trained", "steps"], rows)


def system_version(entry: Dict[str, Any]) -> str:
    """"Stanza 1.5.1"; "UDPipe 1.2" (not "UDPipe 1 1.2"); "UDPipe 2"."""
    name, _, last = entry["system"].rpartition(" ")
    version = str(entry["version"])
    if name and version.startswith(last):
        return f"{name} {version}"
    return f"{entry['system']} {version}"


def published_table(found: Dict[str, Any]) -> str:
    published = published_scores()["treebanks"]
    rows = []
    for treebank in found:
        for entry in published.get(treebank, []):
            scores = entry["scores"]
            rows.append([treebank.replace("UD_", ""), system_version(entry),
                         f"UD {entry['ud_version']}"] + [_f(scores.get(c)) for c in COLUMNS]
                        + [entry.get("test_file", "-")])
    return table(["treebank", "system", "data"] + COLUMNS + ["its test file"], rows)


def seed0_files(metrics: Path, name: str) -> Iterator[Tuple[str, Dict[str, Any]]]:
    """(treebank without `UD_`, its seed-0 folder's JSON file `name`) of every
    treebank that has one."""
    for treebank, folders in treebank_runs(metrics).items():
        found = read_json(folders[0] / name)
        if found:
            yield treebank.replace("UD_", ""), found


def nonprojective_table(metrics: Path) -> Optional[str]:
    rows = []
    for treebank, counts in seed0_files(metrics, "nonprojective-test.json"):
        systems = counts.get("systems", {})
        rows.append([treebank, str(counts["sentences"]), str(counts["nonprojective"])]
                    + [f"{systems[s]['nonprojective_right']} ({systems[s]['nonprojective_heads_right']})" if s in systems else "-"
                       for s in (*CONFIGS, PEER)])
    if not rows:
        return None
    return table(["treebank", "test trees", "non-projective"]
                 + [f"`{CONFIGS[c]}` right" for c in CONFIGS] + ["UDPipe 1 right"], rows)


def sentence_ends_table(metrics: Path) -> Optional[str]:
    """Per treebank and mark: the gold test's sentence ends after it, and how many
    of them each system finds (the ends it puts where the gold has none beside),
    with how many of the training split's tokens ending with the mark end a sentence."""
    rows = []
    for name, folders in treebank_runs(metrics).items():
        counts = read_json(folders[0] / "sentence-ends-test.json")
        if not counts:
            continue
        treebank, systems = name.replace("UD_", ""), counts.get("systems", {})
        in_train = (read_json(folders[0] / "sentence-marks-train.json") or {}).get("marks", {})
        marks = {m: c["gold"] for s in systems.values() for m, c in s.items()}
        for mark, gold in sorted(marks.items(), key=lambda item: -item[1]):
            cells = []
            for name in (*CONFIGS, PEER):
                found = systems.get(name, {}).get(mark, {})
                cells.append("-" if name not in systems else
                             f"{found.get('found', 0)} (+{found.get('extra', 0)})")
            train = in_train.get(mark)
            cells.append("-" if not train else
                         f"{train['ends']} of {train['tokens']} ({100 * train['ends'] / train['tokens']:.0f}%)")
            if gold or any(c.get(mark, {}).get("extra") for c in systems.values()):
                rows.append([treebank, f"`{mark}`" if len(mark) == 1 else mark, str(gold)]
                            + cells)
    if not rows:
        return None
    return table(["treebank", "before the end", "gold ends"]
                 + [f"`{CONFIGS[c]}` finds (+ extra)" for c in CONFIGS] + ["UDPipe 1 finds (+ extra)"]
                 + ["train: sentence ends of the tokens ending so"], rows)


def multiword_table(metrics: Path) -> Optional[str]:
    """Per treebank with multiword tokens: how many of the gold test's each
    system writes with the right words, in all and among those unseen in training."""
    rows = []
    for treebank, counts in seed0_files(metrics, "multiword-test.json"):
        systems = counts.get("systems", {})
        groups = next(iter(systems.values()), {})
        if not groups.get("all", {}).get("gold"):
            continue
        for group in ("all", "unseen"):
            gold = groups[group]["gold"]
            cells = []
            for name in (*CONFIGS, PEER):
                right = systems.get(name, {}).get(group, {}).get("right")
                cells.append("-" if right is None else
                             f"{right} ({100 * right / gold:.2f}%)" if gold else "0")
            rows.append([treebank, "all" if group == "all" else "not in train", str(gold)]
                        + cells)
    if not rows:
        return None
    return table(["treebank", "multiword tokens", "gold"]
                 + [f"`{CONFIGS[c]}`" for c in CONFIGS] + ["UDPipe 1"], rows)


def tokenizer_alone_table(files: List[Tuple[str, Dict[str, Any]]], count: str, header: str,
                          seconds: bool = True) -> Optional[str]:
    """The rows of lab.tokenizer_alone's variants (the tokenizer alone on dev)
    of each (treebank, file): its variant, its `count` (as `header`), Tokens
    and Words F1, Words' precision and recall, and with `seconds` its time."""
    rows = []
    for treebank, found in files:
        for row in found["rows"]:
            rows.append([treebank, row["variant"], str(row[count]), _f(row["Tokens"]),
                         _f(row["Words"]), _f(row["Words_precision"]), _f(row["Words_recall"])]
                        + ([f"{row['seconds']:.2f}"] if seconds else []))
    if not rows:
        return None
    return table(["treebank", "variant", header, "Tokens", "Words", "Words P", "Words R"]
                 + (["seconds"] if seconds else []), rows)


def tokenizer_table(metrics: Path) -> Optional[str]:
    """Per treebank measured by lab.words_with_spaces: the tokenizer alone on dev,
    without words with spaces and with each way of learning them."""
    return tokenizer_alone_table(list(seed0_files(metrics, "tokenizer-dev.json")),
                                 "lexicon", "lexicon")


def with_ewt(metrics: Path, name: str) -> List[Tuple[str, Dict[str, Any]]]:
    """seed0_files of `name`, and EWT's (in metrics/tokenizers/) after them."""
    files = list(seed0_files(metrics, name))
    ewt = metrics / "tokenizers" / name
    return files + ([("English-EWT", read_json(ewt))] if ewt.exists() else [])


def core_cases_table(metrics: Path) -> Optional[str]:
    """Per treebank measured by lab.core_special_cases: the tokenizer alone on
    dev, without and with the special cases of chunks' cores."""
    return tokenizer_alone_table(with_ewt(metrics, "tokenizer-cores-dev.json"),
                                 "special_cases", "special cases", seconds=False)


def marks_table(metrics: Path) -> Optional[str]:
    """Per treebank measured by lab.punctuation_marks: the tokenizer alone on
    dev, without and with the marks of punctuation it learned to split off."""
    return tokenizer_alone_table(with_ewt(metrics, "tokenizer-marks-dev.json"),
                                 "marks", "marks split off", seconds=False)


def joined_words_table(metrics: Path) -> Optional[str]:
    """Per treebank measured by lab.joined_words: the tokenizer alone on dev,
    its rules, its character model alone and the two as learned."""
    return tokenizer_alone_table(list(seed0_files(metrics, "joined-words-dev.json")),
                                 "chunks", "chunks")


SENTER_SUFFIXES = "senter-suffixes-dev*.json"  # lab.senter_suffixes, per treebank and seed
SENTER_MODELS = "senter-models*-dev.json"  # lab.senter_models, per treebank
SENTER_ENSEMBLE = "senter-ensemble-dev.json"  # lab.senter_ensemble, per treebank
# EWT's, beside the others (named apart from the runs of metrics/tokenizers/)
EWT_SENTER_SUFFIXES = ("tokenizers", "senter-suffixes-seed*.json")


# English-EWT with configs/raw/best_elstm.cfg as it is now, beside the config of
# each step before it (study, config, what it lacked) and the runs of the README's raw
# row (the config before issue 72's lemmatizer, word endings and threshold)
EWT_NOW = ("raw-senter-models-10000steps", "best_elstm")
EWT_EARLIER = (("raw-endings-10000steps", "best_elstm", "one model of each in the senter"),)
EWT_README = ("raw-text-variants-10000steps", "best_elstm_text_variants")
EWT_METRICS = ("Tokens", "Words", "Sentences", "UPOS", "Lemmas", "LAS")


def ewt_now_table(metrics: Path) -> Optional[str]:
    """EWT test in UD's form: the config as it is now and the README's runs,
    seed by seed (the same seed beside it) and the README's mean; gold-token
    LAS beside."""
    def scores(study: str, config: str) -> Dict[int, Tuple[Dict, Optional[Dict]]]:
        found = {}
        for folder in seeds_of(metrics, study):
            raw = read_json(folder / f"{config}-test.raw.json")
            if raw:
                found[split_seed(folder.name)[1]] = (
                    raw, read_json(folder / f"{config}-test.official.json"))
        return found

    now, before = scores(*EWT_NOW), scores(*EWT_README)
    if not now or not before:
        return None

    def row(name: str, runs: List[Tuple[Dict, Optional[Dict]]]) -> List[str]:
        gold = [100 * o["f1"]["LAS"] for _, o in runs if o]
        return ([name, str(len(runs))]
                + [_f(statistics.fmean(r[m] for r, _ in runs)) for m in EWT_METRICS]
                + [_f(statistics.fmean(gold)) if gold else "-"])
    earlier = [(study, config, lacked, scores(study, config))
               for study, config, lacked in EWT_EARLIER]
    rows = []
    for seed in sorted(now):
        rows.append(row(f"`{EWT_NOW[0]}/{EWT_NOW[1]}` seed {seed} (now)", [now[seed]]))
        rows += [row(f"`{study}/{config}` seed {seed} ({lacked})", [runs[seed]])
                 for study, config, lacked, runs in earlier if seed in runs]
        if seed in before:
            rows.append(row(f"`{EWT_README[0]}/{EWT_README[1]}` seed {seed} (before)",
                            [before[seed]]))
    rows.append(row(f"`{EWT_README[0]}/{EWT_README[1]}`, the README's raw row",
                    list(before.values())))
    return table(["run", "seeds"] + list(EWT_METRICS) + ["gold-token LAS"], rows)


def senter_epochs_table(metrics: Path) -> Optional[str]:
    """Per treebank measured by lab.senter_epochs: each model's dev Sentences
    after its last epoch, with its weights and with their running average, and
    the lowest and highest of the weights' over the epochs."""
    rows = []
    files = [(treebank.replace("UD_", ""), read_json(path)) for treebank, folders
             in treebank_runs(metrics).items()
             for path in sorted(folders[0].glob("senter-epochs*-dev.json"))]
    for treebank, found in files:
        for model in ("characters", "words"):
            curve = found.get(model, [])
            if not curve or "average" not in curve[-1]:
                continue
            scores = [row["Sentences"] for row in curve]
            best = scores.index(max(scores))
            if model == "characters" and any(row[:3] == [treebank, model, str(len(curve))]
                                             for row in rows):
                continue  # the same character model again, before more word epochs
            rows.append([treebank, model, str(len(curve)), _f(scores[-1]),
                         _f(curve[-1]["average"]["Sentences"]),
                         f"{_f(min(scores))}-{_f(max(scores))}",
                         f"{best + 1}"])
    if not rows:
        return None
    return table(["treebank", "model", "epochs", "last: weights", "last: average",
                  "weights, all epochs", "best epoch"], rows)


def senter_models_table(metrics: Path) -> Optional[str]:
    """Per treebank (EWT's in tokenizers/) and seed measured by
    lab.senter_models: dev Sentences with the mean of 1..N character models
    beside one word-level model and beside N, and the mean over the seeds."""
    files = [(treebank.replace("UD_", ""), path)
             for treebank, folders in treebank_runs(metrics).items()
             for path in sorted(folders[0].glob(SENTER_MODELS))]
    files += [("English-EWT", path) for path in sorted((metrics / "tokenizers").glob(SENTER_MODELS))]
    rows = []
    for treebank, path in files:
        found = read_json(path)
        if not found or not found.get("rows"):
            continue
        layouts = found.get("layouts", "first's")  # files from before the others' own
        models = found["models"]
        combos = [(c, w) for w in (1, models) for c in range(1, models + 1)]
        by_seed: Dict[int, Dict[Tuple[int, int], float]] = {}
        for row in found["rows"]:
            by_seed.setdefault(row["seed"], {})[row["char_models"], row["word_models"]] = \
                row["Sentences"]
        seeds = sorted(s for s, scores in by_seed.items() if all(c in scores for c in combos))
        for seed in seeds:
            rows.append([treebank, layouts, str(seed)] + [_f(by_seed[seed][c]) for c in combos])
        if len(seeds) > 1:
            rows.append([treebank, layouts, "mean"] + [
                _f(statistics.fmean(by_seed[s][c] for s in seeds)) for c in combos])
    if not rows:
        return None
    return table(["treebank", "others' layouts", "seed"] + [
        f"{c} char, {w} word" for w in (1, models) for c in range(1, models + 1)], rows)


def senter_ensemble_table(metrics: Path) -> Optional[str]:
    """Per treebank measured by lab.senter_ensemble: each pipeline's senter
    alone on dev (UD's form), their mean, and the senters averaged as one."""
    rows = []
    for treebank, folders in treebank_runs(metrics).items():
        found = read_json(folders[0] / SENTER_ENSEMBLE)
        if not found:
            continue
        alone = [row["Sentences_ud"] for row in found["rows"][:-1]]
        rows.append([treebank.replace("UD_", ""), str(len(alone)),
                     " / ".join(_f(a) for a in alone), _f(statistics.fmean(alone)),
                     _f(found["rows"][-1]["Sentences_ud"])])
    if not rows:
        return None
    return table(["treebank", "senters", "each alone", "their mean", "averaged as one"], rows)


def senter_suffix_table(metrics: Path) -> Optional[str]:
    """Per treebank and seed, the senter's word-level model reading no word
    endings and reading them (`lab.senter_suffixes`, dev, UD's form):
    Sentences F1 and the sentence ends found and put where the gold has none."""
    files = [(treebank.replace("UD_", ""), path) for treebank, folders
             in treebank_runs(metrics).items() for path in sorted(folders[0].glob(SENTER_SUFFIXES))]
    files += [("English-EWT", path)
              for path in sorted((metrics / EWT_SENTER_SUFFIXES[0]).glob(EWT_SENTER_SUFFIXES[1]))]
    rows = []
    found_files = sorted(((treebank, read_json(path)) for treebank, path in files),
                         key=lambda item: (item[0], item[1]["seed"]))
    for treebank, found in found_files:
        for row in found["rows"]:
            ends = row["ends_by_mark"].values()
            rows.append([treebank, str(found["seed"]), str(row["suffix_chars"] or "none"),
                         _f(row["Sentences"]), f"{sum(e['found'] for e in ends)} of "
                         f"{sum(e['gold'] for e in ends)}", str(sum(e["extra"] for e in ends))])
    if not rows:
        return None
    return table(["treebank", "seed", "endings read", "Sentences", "ends found", "extra ends"],
                 rows)


LEMMATIZER_FOLDER = "lemmatizer"  # metrics/lemmatizer/<UD_Name>/: levers on the lemmatizer
# the runs compared there: the config before elstm_lemmatizer, and with it
LEMMATIZER_RUNS = {"best_elstm_trainable": "spaCy's `trainable_lemmatizer`",
                   "best_elstm_cased": "`elstm_lemmatizer`"}


def lemmatizer_table(metrics: Path) -> Optional[str]:
    """Per treebank with runs in metrics/lemmatizer/: `raw/best_elstm` with each
    lemmatizer, same seed and steps, on dev: gold words (Lemmas, UPOS, LAS) and
    raw text in UD's form (Lemmas, LAS)."""
    root = metrics / LEMMATIZER_FOLDER
    rows = []
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        for name, label in LEMMATIZER_RUNS.items():
            gold = read_json(folder / f"{name}-dev.official.json")
            raw = read_json(folder / f"{name}-dev.raw.json")
            if gold and raw:
                rows.append([folder.name.replace("UD_", ""), label]  # gold: every F1 in "f1"
                            + [_f(100 * gold["f1"][c]) for c in ("Lemmas", "UPOS", "LAS")]
                            + [_f(raw.get(c)) for c in ("Lemmas", "LAS")])
    if not rows:
        return None
    return table(["treebank", "lemmatizer", "Lemmas", "UPOS", "LAS", "raw Lemmas", "raw LAS"],
                 rows)


# the targets' columns that the gold words and sentences score too: beside a miss on
# raw text, whether the pipeline misses it with the text's words and sentences given
GOLD_WORD_TARGETS = ("UPOS", "UFeats", "Lemmas", "LAS")


def target_rows(found: Dict[str, Dict[str, Dict[str, Any]]]) -> List[List[str]]:
    """[treebank, target, ours, UDPipe 1's, bound, met?, both on gold words] for
    each target that can be judged."""
    rows, las = [], []
    for treebank, systems in found.items():
        ours, peer = systems.get("best_elstm"), systems.get(PEER)
        if not ours or not peer:
            continue
        for column, margin in MARGINS.items():
            value, theirs = ours["scores"].get(column), peer["scores"].get(column)
            if value is None or theirs is None:
                continue
            if column == "LAS":
                las.append((value, theirs))
            on_gold = [ours.get("gold", {}).get(column), peer.get("gold", {}).get(column)]
            rows.append(_judged(treebank.replace("UD_", ""), column, value, theirs, margin)
                        + ["-" if None in on_gold else " / ".join(map(_f, on_gold))])
        ours_rate, peer_rate = ours.get("words_per_second"), peer.get("words_per_second")
        if ours_rate and peer_rate:
            ratio = ours_rate / peer_rate
            rows.append([treebank.replace("UD_", ""), "words/s", f"{ours_rate:,.0f}",
                         f"{peer_rate:,.0f}", f"≥ {SPEED_RATIO}×",
                         f"met ({ratio:.2f}×)" if ratio >= SPEED_RATIO else f"missed ({ratio:.2f}×)",
                         "-"])
    if len(las) > 1:
        rows.append(_judged(f"the mean of {len(las)}", "LAS", statistics.mean(v for v, _ in las),
                            statistics.mean(t for _, t in las), MEAN_LAS_MARGIN) + ["-"])
    return rows


def _judged(treebank: str, column: str, value: float, theirs: float, margin: float) -> List[str]:
    bound = theirs + margin
    return [treebank, column, _f(value), _f(theirs), f"≥ {bound:.2f}",
            "met" if value >= bound - 1e-9 else f"missed by {bound - value:.2f}"]


NOTE = (
    "Each treebank's test split as a user meets it: the raw text of its documents in UD's "
    "text form for its language (`conllu_to_text.pl --language <code>`: lines wrapped at 80 "
    "characters, between any two characters for Chinese and Japanese), read by the pipeline "
    "(one Doc per paragraph, `spacy-elstm score --raw`) and by UDPipe 1 (the whole text, its "
    "tokenizer's default mode), both scored by the CoNLL 2018 script; every column is its F1. "
    "`gold-token LAS`: the same pipeline on the gold words and sentences "
    "(`spacy-elstm score`; UDPipe 1: `lab.udpipe_peer gold-tokens`). Ours: "
    "`python scripts/train_and_score.py CONFIG=configs/raw/CONFIG.cfg --raw --treebank "
    "assets/UD_<Name> --metrics metrics/treebanks/UD_<Name> --models "
    "training/treebanks/UD_<Name> --steps N [--seed S]` (what `spacy project run all "
    "--vars.treebank UD_<Name>` runs), the pipeline built in the treebank's language or `xx`; "
    "`steps`: the last step its training log reached (the best dev checkpoint is kept); "
    "`trained`: the wall time of `spacy train`, the tokenizer's and senter's own training "
    "included (2 CPU cores shared by two to four jobs, so a time is an upper bound; where a run has no "
    "`train-<config>.time.json`, its log's seconds, without them). "
    "UDPipe 1: `python -m lab.udpipe_peer train` with its default schedule (tokenizer 100 "
    "epochs, tagger 20 iterations, parser 10; dev as heldout), `trained` its training time. "
    "`words/s`: each system's own words per second on the test text, one thread, all in one "
    "process (`python -m lab.treebank_speed`), median of 3 interleaved rounds. "
    "`(an earlier config)`: pipelines whose components were not set as "
    "`configs/raw/CONFIG.cfg` sets them now (trained before issue 72 put in "
    "`elstm_lemmatizer`, the training data's lemma lookup and the senter's word endings, "
    "or before the senter's models were each three of as many seeds); "
    "the others were trained by the config as it is, and where a treebank has seeds of "
    "both, only those are counted.")


HELD_OUT_FOLDER = "treebanks-nodev"  # a treebank's copy without its dev split: <UD_Name>-nodev
HELD_OUT_SUFFIX = "-nodev"
HELD_OUT_COLUMNS = ["Tokens", "Sentences", "Words", "UPOS", "UFeats", "Lemmas", "LAS"]


def held_out_dev_table(metrics: Path) -> Optional[str]:
    """Each treebank studied again with its dev split taken away (so that one is
    held out from the end of train, as for a treebank UD ships without dev), beside
    the same seed trained with its own dev: ours and UDPipe 1."""
    root = metrics / HELD_OUT_FOLDER
    rows = []
    for folder in sorted(root.glob(f"UD_*{HELD_OUT_SUFFIX}")) if root.is_dir() else []:
        name = folder.name[:-len(HELD_OUT_SUFFIX)]
        for dev, where in (("its own", metrics / FOLDER / name), ("held out from train", folder)):
            systems = [("`raw/best_elstm` (seed 0)", system_scores([where], "best_elstm")),
                       (PEER_LABEL, peer_scores(where))]
            for label, row in systems:
                if row:
                    rows.append([name.replace("UD_", ""), dev, label]
                                + [_f(row["scores"].get(c)) for c in HELD_OUT_COLUMNS]
                                + [_f(row["gold_LAS"]), _minutes(row["train_seconds"])])
    return table(["treebank", "dev split", "system"] + HELD_OUT_COLUMNS
                 + ["gold-token LAS", "trained"], rows) if rows else None


def page_section(metrics: Path) -> Optional[Tuple[str, Dict]]:
    found = results(metrics)
    if not found:
        return None
    parts = ["## Raw text in, every column of the official script", "", NOTE, "",
             scores_table(found), ""]
    targets = target_rows(found)
    if targets:
        parts += ["## Targets against UDPipe 1", "",
                  "`raw/best_elstm` against UDPipe 1 trained in the same place, on every "
                  "treebank with both: LAS at least UDPipe 1's + 2 (and + 4 on the mean of "
                  "the treebanks), Words at least its - 0.5, Sentences its - 1, UPOS, UFeats "
                  "and Lemmas at least its, words/s at least 1.5 times its. `on gold words`: "
                  "the same column for both with the gold words and sentences given (ours: "
                  "`spacy-elstm score`, the mean of the same seeds; UDPipe 1: "
                  "`lab.udpipe_peer gold-tokens`), which tells a miss of the text's "
                  "words and sentences from one of the tagger, lemmatizer or parser.", "",
                  table(["treebank", "target", "ours", "UDPipe 1", "bound", "met?",
                         "on gold words: ours / UDPipe 1"], targets), ""]
    held_out = held_out_dev_table(metrics)
    if held_out:
        parts += ["## A treebank without a dev split", "",
                  "UD ships its small treebanks with train and test alone; for them a dev split "
                  "is held out from the end of train (its last tenth of sentences, from the "
                  "nearest document start: `spacy_elstm/treebanks/ud_splits.py`) and both "
                  "systems train on the rest. Here a treebank that has a dev split is studied "
                  "again with it taken away (a copy of its folder with train and test alone, "
                  f"`assets/UD_<Name>{HELD_OUT_SUFFIX}`: `STUDY={HELD_OUT_FOLDER} "
                  "CONFIGS=best_elstm bash scripts/treebank_study.sh "
                  f"UD_<Name>{HELD_OUT_SUFFIX} 3000`, UDPipe 1 trained on the same two parts "
                  "with the held-out part as its heldout), beside seed 0 of the same study with "
                  "its own dev: test split, raw text in UD's form, CoNLL 2018 script; "
                  "`trained` as above (the held-out runs shared 2 cores with up to three other "
                  "jobs, so their times are upper bounds).", "",
                  held_out, ""]
    ewt = ewt_now_table(metrics)
    if ewt:
        parts += ["## English-EWT with the raw config as it is now", "",
                  "UD English-EWT test, raw text in UD's form, CoNLL 2018 script: "
                  "`configs/raw/best_elstm.cfg` as it is now (`elstm_lemmatizer`, the "
                  "senter's word endings and its three character and three word-level "
                  "models, no dev-chosen threshold; 10,000 steps at most, "
                  "`python scripts/train_and_score.py best_elstm=configs/raw/best_elstm.cfg "
                  f"--raw --metrics metrics/{EWT_NOW[0]} --models training/{EWT_NOW[0]} "
                  "--steps 10000 --seed S`; run with `-- --components.elstm_senter.char_models 3 "
                  "--components.elstm_senter.word_models 3` before the config set them), "
                  "the same config before its last changes, and the runs of the README's raw "
                  "row, trained before issue 72's changes, seed by seed and their mean.",
                  "", ewt, ""]
    nonprojective = nonprojective_table(metrics)
    if nonprojective:
        parts += ["## Non-projective trees", "",
                  "How many gold test trees are non-projective (an arc crosses another, the "
                  "root's arc from position 0 included), and how many of them each parser "
                  "gets right on gold words and sentences: every head and label (every head "
                  "alone in brackets); `python -m lab.nonprojective`.", "",
                  nonprojective, ""]
    ends = sentence_ends_table(metrics)
    if ends:
        parts += ["## Where sentences end", "",
                  "The gold test's sentence ends grouped by the last character before them (a "
                  "punctuation mark, or a word), how many of them each system finds on the raw "
                  "text, and in brackets the ends it puts after that mark where the gold has "
                  "none; `python -m lab.sentence_ends`. The last column: of the training "
                  "split's tokens that end with the mark (a word: with no punctuation), how "
                  "many end a sentence, what the senter learns whether the mark ends one from "
                  "(`python -m lab.sentence_ends TRAIN`).", "", ends, ""]
    suffixes = senter_suffix_table(metrics)
    if suffixes:
        parts += ["## The senter's word-level model reading word endings (dev)", "",
                  "`elstm_senter`'s character model trained once as `configs/raw/best_elstm.cfg` "
                  "trains it, then its word-level model beside it without word endings "
                  "(`none`) and reading each word's last characters (`word_suffix_chars`), "
                  "each trained as the config trains it, same seed; the dev split's raw text "
                  "in UD's form through the treebank's tokenizer, CoNLL 2018 script; the "
                  "ends of every mark summed. `python -m lab.senter_suffixes --treebank "
                  "assets/UD_<Name> --output ... [--seed S]`.", "", suffixes, ""]
    ensemble = senter_ensemble_table(metrics)
    if ensemble:
        parts += ["## Senters of several seeds averaged as one (dev)", "",
                  "The senters of `raw/best_elstm`'s seeds (each pipeline trained by "
                  "`scripts/treebank_study.sh`), each alone and averaged as one senter (each "
                  "word's sentence-end probability the mean of every character and word "
                  "model's), on the dev split's raw text in UD's form through the first "
                  "pipeline's tokenizer, CoNLL 2018 script, in one run. `python -m "
                  "lab.senter_ensemble PIPELINE... --treebank assets/UD_<Name> --output "
                  "...`.", "", ensemble, ""]
    models = senter_models_table(metrics)
    if models:
        parts += ["## The senter's own models of several seeds (dev)", "",
                  "`elstm_senter` trained as `configs/raw/best_elstm.cfg` trains it, with "
                  "three character models and three word-level models of as many seeds "
                  "(`char_models`, `word_models`; the first of each is the one a setting of "
                  "1 trains); dev Sentences (raw text in UD's form, CoNLL 2018 script) with "
                  "the mean of the first 1, 2 or 3 character models beside the first "
                  "word-level model or all three. `python -m lab.senter_models --treebank "
                  "assets/UD_<Name> --output ... --seeds 0 1 2`.", "", models, ""]
    epochs = senter_epochs_table(metrics)
    if epochs:
        parts += ["## The senter's sentences epoch by epoch (dev)", "",
                  "`elstm_senter` trained as `configs/raw/best_elstm.cfg` trains it (seed 0; "
                  "on a small treebank each epoch passes over the training text several "
                  "times): Sentences F1 on the dev split's raw text in UD's form after each "
                  "epoch of the character model (alone), then of the word-level model beside "
                  "it; `last`: after the last epoch, with the weights (as shipped) and with "
                  "their running average over the updates (decay 0.995); `weights, all "
                  "epochs`: the lowest and highest after any epoch, and the epoch of the "
                  "highest. `python -m lab.senter_epochs --treebank assets/UD_<Name> "
                  "--output ...`.", "", epochs, ""]
    multiword = multiword_table(metrics)
    if multiword:
        parts += ["## Multiword tokens written with the right words", "",
                  "Of the gold test's multiword tokens, how many each system writes from the "
                  "raw text as one token over the same characters with the same words (forms "
                  "as written), in all and among the tokens the training split never has; "
                  "`python -m lab.multiword_tokens`.", "", multiword, ""]
    tokenizers = tokenizer_table(metrics)
    if tokenizers:
        parts += ["## Words that contain a space: the tokenizer alone", "",
                  "The treebank tokenizer learned from the train split, on the dev split's raw "
                  "text in UD's form, scored alone by the CoNLL 2018 script (no senter: a "
                  "blank line ends a sentence): `none` without words with spaces (a tokenizer "
                  "saved before them), `all` every training word with a space, `kept` those "
                  "written together more often than apart, looked up `as_written`, with a "
                  "capital `first_lower` too, or all `lower`-cased; `+runs` joins runs of "
                  "capitalised syllables; `learned` is what `[initialize.tokenizer]` learns "
                  "(docs/design.md). `lexicon`: its words with a space; `seconds`: the "
                  "tokenizer's time on the text; `python -m lab.words_with_spaces`.", "",
                  tokenizers, ""]
    cores = core_cases_table(metrics)
    if cores:
        parts += ["## Special cases inside punctuation: the tokenizer alone", "",
                  "The treebank tokenizer learned from the train split, on the dev split's raw "
                  "text in UD's form, scored alone by the CoNLL 2018 script (no senter): "
                  "`chunks only` with the special cases of whole chunks, as before issue 72's "
                  "third session, `learned` with those of each chunk's core too (the chunk "
                  "without its words of punctuation: `gibiydi` of `gibiydi.`), as "
                  "`[initialize.tokenizer]` leaves it. `special cases`: all the rules hold; "
                  "`python -m lab.core_special_cases`.", "", cores, ""]
    per_text = per_text_table(metrics)
    if per_text:
        parts += ["## The tokenizer reading a batch of texts at a time", "",
                  "Words/s on the test text in UD's form, one thread, one Doc per paragraph, "
                  "all in one process, UDPipe 1 beside (`python -m lab.treebank_speed "
                  "--per-text --rounds 7`, the median of interleaved rounds, into "
                  f"`{PER_TEXT_SPEED}`): `a text at a time` gives `nlp.pipe` the paragraphs' "
                  "texts, so spaCy calls the tokenizer once per paragraph (as this package "
                  "read text before); `a batch` gives it the Docs of `input_modes.make_docs`, "
                  "whose tokenizer reads a batch of texts at a time (where a character model "
                  "splits the words, it reads their windows together), as `spacy-elstm parse` "
                  "and `score --raw` now do. The pipelines are the treebank's seed-0 config "
                  "trained again (its architecture; their scores are not the table's), on "
                  "another day than the table's words/s: words/s drift from day to day on "
                  "this machine, so only ratios in one run compare.", "", per_text, ""]
    by_parser = parser_sentences_table(metrics)
    if by_parser:
        parts += ["## Sentences the parser decides where the senter is unsure (dev)", "",
                  "`raw/best_elstm` as shipped (trained on one gold sentence per Doc; seed 0) "
                  "beside the same config trained on documents of ten sentences "
                  "(`--corpora.train.gold_preproc false --corpora.dev.gold_preproc false "
                  "--components.tok2vec.model.@architectures spacy.Tok2Vec.v2`, so that its "
                  "parser learns where sentences end and its tok2vec reads a paragraph whole; "
                  "seed 0, 3,000 steps; its training logs in metrics/parser-sentences/), its "
                  "sentences set by its senter alone, by its parser "
                  "alone, or by the senter where its end probability after a word is above HI "
                  "or not above LO and by the parser in between (`LO:HI`); the dev split's raw "
                  "text in UD's form, one Doc per paragraph, CoNLL 2018 script. `python -m "
                  "lab.parser_sentences PIPELINE --treebank assets/UD_<Name> --output "
                  f"metrics/treebanks/UD_<Name>/{PARSER_SENTENCES}`.", "", by_parser, ""]
    smaller = smaller_pipeline_table(metrics)
    if smaller:
        parts += ["## A smaller pipeline on text without spaces (dev)", "",
                  "Is the words/s target on Classical Chinese a matter of the model's size? "
                  "`raw/best_elstm` (the treebank's seed-0 config trained again, as in the "
                  "tokenizer's batch table above) beside `raw/elstm_brnn`, the quick start's "
                  "pipeline (spaCy's hash embeddings alone and one bidirectional ELSTM layer "
                  "of 128, where best_elstm has a character layer beside them and two layers "
                  "of 256; a senter of one character and one word-level model, where "
                  "best_elstm has three of each; none of issue 72's levers; seed 0, 3,000 "
                  "steps), and UDPipe "
                  "1 as trained for the table (dev was its heldout): the dev split's raw text "
                  "in UD's form, CoNLL 2018 script, and LAS on the gold words and sentences; "
                  "words/s of all three in one run, one thread, median of 7 interleaved rounds "
                  "(`python -m lab.treebank_speed --gold <dev> --rounds 7 --output "
                  f"metrics/{SMALLER_FOLDER}/UD_<Name>/{SMALLER_SPEED}`). Ours: `python "
                  "scripts/train_and_score.py configs/raw/elstm_brnn.cfg --raw --treebank "
                  f"assets/UD_<Name> --metrics metrics/{SMALLER_FOLDER}/UD_<Name> --models "
                  f"training/{SMALLER_FOLDER}/UD_<Name> --steps 3000 --splits dev` (and "
                  "`--no-train` for `raw/best_elstm`); UDPipe 1: `python -m lab.udpipe_peer "
                  f"run --gold <dev> --json metrics/{SMALLER_FOLDER}/UD_<Name>/udpipe1-dev.json`.",
                  "", smaller, ""]
    marks = marks_table(metrics)
    if marks:
        parts += ["## Marks of punctuation split off any word: the tokenizer alone", "",
                  "The treebank tokenizer learned from the train split, on the dev split's raw "
                  "text in UD's form, scored alone by the CoNLL 2018 script (no senter): "
                  "`learned` as `[initialize.tokenizer]` leaves it, with the marks of "
                  "punctuation that the treebank writes as words of their own at a chunk's "
                  "start (`prefix`) or end (`suffix`) where the language's rules leave them "
                  "on the word, split off there in any word; `without marks` the same "
                  "tokenizer with those taken out of its rules again (its special cases "
                  "kept). Where the rules already split every such mark, nothing is learned "
                  "(`none`). Classical_Chinese-Kyoto and Coptic-Scriptorium, whose words "
                  "a character model splits, are not measured. "
                  "`python -m lab.punctuation_marks`.", "", marks, ""]
    joined = joined_words_table(metrics)
    if joined:
        parts += ["## Words written together: the tokenizer alone", "",
                  "The treebank tokenizer learned from the train split, on the dev split's raw "
                  "text in UD's form, scored alone by the CoNLL 2018 script (no senter: a "
                  "blank line ends a sentence), where the treebank writes its words together "
                  "so that the rules cannot follow it: `rules` without the character model "
                  "(a tokenizer saved before it), `model` the character model deciding every "
                  "chunk, `learned` the model with each chunk seen in training keeping its "
                  "analysis, as `[initialize.tokenizer]` leaves it (docs/design.md). "
                  "`chunks`: the chunks it remembers; `seconds`: the tokenizer's time on the "
                  "text; `python -m lab.joined_words`.", "", joined, ""]
    lemmatizers = lemmatizer_table(metrics)
    if lemmatizers:
        parts += ["## A lemmatizer whose edit trees read lower case first (dev)", "",
                  "`raw/best_elstm` with spaCy's `trainable_lemmatizer`, as it was before "
                  "issue 72, and with `elstm_lemmatizer`, as it is now (its edit trees read "
                  "each form and lemma with its first letter in lower case, and the capital "
                  "comes back per UPOS where the training lemmas keep it: "
                  "`spacy_elstm/components/cased_lemmatizer.py`), the same seed (0) and steps "
                  "(3,000), on the dev split: gold words and sentences, then raw text in UD's "
                  "form; CoNLL 2018 script. `python scripts/train_and_score.py "
                  "best_elstm_cased=configs/raw/best_elstm.cfg --raw --treebank "
                  "assets/UD_<Name> --metrics metrics/lemmatizer/UD_<Name> --models "
                  "training/lemmatizer/UD_<Name> --steps 3000 --splits dev`, and "
                  "`best_elstm_trainable=...` with `-- "
                  "--components.lemmatizer.factory trainable_lemmatizer`.", "", lemmatizers, ""]
    parts += ["## Published scores on these treebanks (other UD versions)", "",
              "Quoted from their sources (`lab/published_scores.json` names each file and "
              "commit), on the UD release each was measured on; not measured here, and their "
              "test files differ from ours where the last column says so.", "",
              published_table(found)]
    return "\n".join(parts), {}


def readme_table(metrics: Path) -> Optional[str]:
    """The README's short table, a row per treebank: Words, Sentences, UPOS,
    LAS and words/s of our accurate pipeline (`raw/best_elstm`) beside UDPipe
    1's; the page has `raw/cnn` and every column too."""
    found = results(metrics)
    rows = []
    for treebank, systems in found.items():
        ours, peer = systems.get("best_elstm"), systems.get(PEER)
        if not ours and not peer:
            continue

        def pair(get) -> str:
            return " / ".join(get(row) if row else "-" for row in (ours, peer))

        seeds = f" ({ours['seeds']} seeds)" if ours and ours["seeds"] > 1 else ""
        seeds += EARLIER_MARK if ours and ours.get("earlier_config") else ""
        rows.append([treebank.replace("UD_", "") + seeds]
                    + [pair(lambda row, c=c: _f(row["scores"].get(c)))
                       for c in ("Words", "Sentences", "UPOS", "LAS")]
                    + [pair(lambda row: _f(row.get("words_per_second"), 0))])
    if not rows:
        return None
    return (table(["treebank", "Words", "Sentences", "UPOS", "LAS", "words/s"], rows)
            + "\n\n`raw/best_elstm` / UDPipe 1 trained here. Test split, raw text in UD's "
              "text form, CoNLL 2018 script; one seed where no count is given; words/s: one "
              "thread, a treebank's systems in one process; every column, `raw/cnn`, the "
              "training budgets and times, UDPipe 1's training and the published scores of "
              "Stanza and UDPipe 2: [docs/results/treebanks.md](docs/results/treebanks.md).")
