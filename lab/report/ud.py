"""UD English-EWT folders: spaCy's scores with the training log, the official
CoNLL 2018 scores, the mean ± sd over the seed folders of one study, and the
dev-score plot of each folder."""
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .common import mean_sd, number, percent, read_json, read_log, table, text_form_words, warn

SCORES = [("tag_acc", "XPOS"), ("pos_acc", "UPOS"), ("morph_acc", "Morph"),
          ("dep_uas", "UAS"), ("dep_las", "LAS")]
OFFICIAL = ["UPOS", "XPOS", "UFeats", "UAS", "LAS", "CLAS"]
TIMING_NOTE = (
    "`train min` and `words/s` are wall-clock figures of the machine and the moment each run "
    "had (up to two trainings at once on two CPU cores, one thread each), so they compare "
    "runs of one session; [speed.md](speed.md) compares speeds within one process.")
OFFICIAL_SOURCE = (
    "The CoNLL 2018 shared task's evaluation script (`conll18_ud_eval.py`, run by "
    "`spacy-elstm score`) on the same gold words and sentences")
HOW_TO_READ = (
    "How to read the tables. *Accuracy*: spaCy's scores (`spacy evaluate`), UAS/LAS without "
    "punctuation, Morph over all features; `steps`, `words seen` and `train min` from the "
    "training log, `best step` the one whose dev score was kept. " + TIMING_NOTE + " *Official "
    "scores*: " + OFFICIAL_SOURCE + ": F1 (here equal to accuracy), punctuation included, "
    "relation subtypes and features outside the universal set ignored, so they differ from "
    "spaCy's; `-`: not predicted by the pipeline; `UPOS unseen`: UPOS accuracy on the words "
    "whose lowercased form EWT train does not have (`spacy-elstm score --train`, computed by "
    "spacy-elstm, not by the script; `-` where the run was scored without it).")

RAW = ["Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "Lemmas", "UAS", "LAS", "CLAS",
       "MLAS", "BLEX"]
RAW_SOURCE = (
    "The same script on the pipeline's own tokens and sentences: `spacy-elstm score --raw` runs "
    "it on the raw text of each gold document {form} and the script aligns its words to the gold ones by their characters, so every score counts "
    "tokenisation and sentence errors too")
_RAW = re.compile(r"^(?P<config>[\w.-]+?)-(?P<split>dev|test)\.raw\.json$")
_EVALUATION = re.compile(r"^(?P<config>[\w.-]+?)-(?P<split>dev|test)\.json$")
_OFFICIAL = re.compile(r"^(?P<config>[\w.-]+?)-(?P<split>dev|test)\.official\.json$")


def has_scores(folder: Path) -> bool:
    return (any(folder.glob("*-dev.json")) or any(folder.glob("*-test.json"))
            or bool(official_files(folder)))


def accuracy_section(folder: Path) -> str:
    """One row per (config, split) with an evaluation file ``{config}-{split}.json``
    and, where present, its training log ``train-{config}.jsonl``."""
    rows = []
    for path in sorted(folder.glob("*.json")):
        match = _EVALUATION.match(path.name)
        if not match:
            continue
        scores = read_json(path)
        if scores is None:
            continue
        log = read_log(folder / f"train-{match['config']}.jsonl")
        last = log[-1] if log else {}
        best = max(log, key=lambda r: r["score"]) if log else {}
        rows.append([match["config"], match["split"]]
                    + [percent(scores, k) for k, _ in SCORES]
                    + [str(last.get("step", "-")), f"{last['words']:,}" if last else "-",
                       f"{last['seconds'] / 60:.1f}" if last else "-",
                       str(best.get("step", "-"))])
    if not rows:
        return "_No evaluation files yet._"
    header = ["config", "split"] + [name for _, name in SCORES] + [
        "steps", "words seen", "train min", "best step"]
    return table(header, rows)


def official_files(folder: Path) -> List[Path]:
    """The official-score files ``{config}-{split}.official.json`` of a folder."""
    return [p for p in sorted(folder.glob("*.official.json")) if _OFFICIAL.match(p.name)]


def official_scores(folder: Path, config: str, split: str) -> Optional[Dict[str, Any]]:
    return read_json(folder / f"{config}-{split}.official.json")


def official_section(folder: Path) -> Optional[str]:
    """One row per (config, split) with an official-score file; None if there are none."""
    rows, unseen = [], False  # rows: (columns before UPOS unseen, it, the columns after)
    for path in official_files(folder):
        match = _OFFICIAL.match(path.name)
        scores = read_json(path)
        if scores is None:
            continue
        try:
            rows.append(([match["config"], match["split"]] + [_official(scores, k) for k in OFFICIAL],
                         [_official(scores.get("unseen", {}), "UPOS")],
                         [f"{scores['words']:,}", str(scores["repaired_roots"]),
                          "-" if scores.get("words_per_second") is None
                          else f"{scores['words_per_second']:,.0f}"]))
            unseen = unseen or "unseen" in scores
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            problem = f"no key {err}" if isinstance(err, KeyError) else str(err)
            warn(f"{path}: {problem}; skipped.")
    if not rows:
        return None
    # the UPOS-unseen column only where some file of the folder has the breakdown
    middle = ["UPOS unseen"] if unseen else []
    header = ["config", "split"] + OFFICIAL + middle + ["words", "roots repaired", "words/s"]
    rows = [head + (cell if unseen else []) + tail for head, cell, tail in rows]
    return table(header, rows)


def raw_section(folder: Path) -> Optional[str]:
    """One row per (config, split) with a raw-text score file; None if there are none."""
    rows = []
    for path in sorted(folder.glob("*.raw.json")):
        match = _RAW.match(path.name)
        scores = read_json(path) if match else None
        if scores is None:
            continue
        try:
            rows.append([match["config"], match["split"]] + [_official(scores, k) for k in RAW]
                        + [f"{scores['words']:,}", f"{scores['words_per_second']:,.0f}"])
        except (KeyError, TypeError, ValueError) as err:
            warn(f"{path}: {err}; skipped.")
    if not rows:
        return None
    return table(["config", "split"] + RAW + ["words", "words/s"], rows)


def _official(scores: Dict[str, Any], key: str) -> str:
    value = scores.get(key)
    if value is None:
        return "-"
    if not isinstance(value, (int, float)):
        raise ValueError(f"{key} is {value!r}, not a number")
    return f"{value:.2f}"


def seed_values(folders: List[Path]) -> Dict[Tuple[str, str], Dict[str, List[float]]]:
    """{(config, split): {official key: one value per seed folder that has it}}."""
    values: Dict[Tuple[str, str], Dict[str, List[float]]] = {}
    for folder in folders:
        for path in official_files(folder):
            match = _OFFICIAL.match(path.name)
            scores = read_json(path)
            if scores is None:
                continue
            entry = values.setdefault((match["config"], match["split"]), {})
            for key in OFFICIAL:
                value = number(scores, key)
                if value is not None:
                    entry.setdefault(key, []).append(value)
    return values


def seeds_section(folders: List[Path]) -> Optional[str]:
    """Mean ± sample standard deviation of the official scores of each
    (config, split) over the seeds in ``folders``; None where no (config,
    split) has scores from two or more seeds."""
    rows = []
    for (config, split), entry in sorted(seed_values(folders).items()):
        seeds = max((len(v) for v in entry.values()), default=0)
        if seeds < 2:
            continue
        rows.append([config, split, str(seeds)]
                    + [mean_sd(entry[k]) if len(entry.get(k, [])) == seeds else "-"
                       for k in OFFICIAL])
    if not rows:
        return None
    return table(["config", "split", "seeds"] + OFFICIAL, rows)


def training_lines(folder: Path) -> Dict[str, Any]:
    """Dev score against training minutes, {config: (minutes, scores)}."""
    logs = {p.stem[len("train-"):]: read_log(p) for p in sorted(folder.glob("train-*.jsonl"))}
    return {config: ([r["seconds"] / 60 for r in log], [100 * r["score"] for r in log])
            for config, log in logs.items() if log}


def folder_section(folder: Path, name: str) -> Tuple[str, Dict[str, Any]]:
    """The tables of one EWT folder (``name`` is empty for ``metrics/`` itself)
    and the plot it links: ({image name: lines}) or {}."""
    suffix = f" ({name})" if name else ""
    parts = [f"### Accuracy{suffix}: UD English-EWT, gold tokenisation, one seed", "",
             f"From `{folder.as_posix()}/`.", "", accuracy_section(folder)]
    official = official_section(folder)
    if official is not None:
        parts += ["", f"#### Official scores{suffix}: CoNLL 2018 evaluation script", "", official]
    raw = raw_section(folder)
    if raw is not None:
        parts += ["", f"#### Raw text in{suffix}: CoNLL 2018 evaluation script", "",
                  RAW_SOURCE.format(form=text_form_words(
                      read_json(p) for p in sorted(folder.glob("*.raw.json")))) + ".", "", raw]
    plots = {}
    lines = training_lines(folder)
    if lines:
        image = f"training-{name or 'metrics'}.png"
        plots[image] = (lines, "training time (minutes)", "dev score (weighted, %)", False)
        parts += ["", f"![dev score against training time, {name or 'metrics'}]({image})"]
    return "\n".join(parts) + "\n", plots


def seeds_heading(base: str, folders: List[Path]) -> Optional[str]:
    """The across-seeds table of a study, with its heading and source line."""
    found = seeds_section(folders)
    if found is None:
        return None
    return "\n".join([
        f"### Across seeds ({base}): official scores, mean ± standard deviation", "",
        f"Over `{'/`, `'.join(p.as_posix() for p in folders)}/`: one seed per folder, each the "
        "same training run but for `--system.seed`. " + OFFICIAL_SOURCE + ".", "", found, ""])



TOKENIZERS_FILE = "tokenizers/tokenizers.json"  # python -m lab.tokenizers


def tokenizers_section(metrics: Path) -> Optional[str]:
    """spaCy's English rules against the tokenizer learned from EWT train, alone
    on raw text; None where `python -m lab.tokenizers` has not run."""
    data = read_json(metrics / TOKENIZERS_FILE)
    if data is None:
        return None
    names = {"spacy_rules": "spaCy's English rules (`spacy.Tokenizer.v1`)",
             "learned": "the rules adapted to EWT train (`spacy-elstm.TreebankTokenizer.v1`)",
             "characters": "the character model (`spacy-elstm.CharTokenizer.v1`)",
             "learned+senter": "the adapted rules, sentences from the character model "
                               "(`elstm_senter`)"}
    rows = [[names.get(r["tokenizer"], r["tokenizer"]), r["split"], f"{r['Tokens']:.2f}",
             f"{r['Words']:.2f}", f"{r['Sentences']:.2f}", f"{r['words_per_second']:,.0f}"]
            for r in data["rows"]]
    learned = data.get("details", {}).get("learned", {}).get("learned", {})
    summary = ""
    if learned:
        summary = (
            f" What it learned from `{data['train']}`: runs of "
            f"{', '.join(f'`{c}`' for c in learned['punctuation_runs'])} kept as one word, "
            f"{len(learned['infixes_dropped'])} of spaCy's infix rules dropped, "
            f"{learned['special_cases']:,} special cases, {learned['multiword_sequences']} "
            f"multiword sequences and the endings {', '.join(f'`{e}`' for e in learned['multiword_endings'])}; "
            f"F1 on the training words {100 * learned['f1_spacy_rules']:.2f} with spaCy's rules, "
            f"{100 * learned['f1_after_rules']:.2f} after the rule changes, "
            f"{100 * learned['f1_learned']:.2f} with the special cases.")
    chars = data.get("details", {}).get("characters", {}).get("learned", {})
    if chars:
        summary += (f" The character model trained {chars['epochs']} epochs over "
                    f"{chars['characters']:,} characters of EWT train in "
                    f"{chars['seconds'] / 60:.0f} min (final loss {chars['loss'][-1]:.4f}).")
    return (table(["tokenizer", "split", "Tokens", "Words", "Sentences", "words/s"], rows)
            + "\n\nEach tokenizer and sentence splitter alone (no tagger or parser) on the raw "
              "text of the split's documents, scored by the CoNLL 2018 script (`python -m "
              f"lab.tokenizers`, `metrics/{TOKENIZERS_FILE}`), each learned from EWT train; "
              "Sentences counts the splitter's sentences (a blank line ends one, but for "
              "spaCy's rules, which split none); `words/s`: tokenizing (and splitting) alone, "
              "one thread, while other jobs shared the machine." + summary)


TRAINING_TEXT_GLOB = "tokenizers/training-text*.json"  # python -m lab.tokenizers --training-texts ...
FORM_NAMES = {"ud": "UD's text form", "joined": "paragraphs on one line",
              "lines": "one sentence per line"}


def training_text_section(metrics: Path) -> Optional[str]:
    """The character model's sentences on both text forms, per training text
    (and width) it learned from; None where the study has not run."""
    rows = []
    files = sorted(metrics.glob(TRAINING_TEXT_GLOB))
    for path in files:
        data = read_json(path)
        for r in data["rows"]:
            if not r["tokenizer"].startswith("characters/"):
                continue
            rows.append([f"`{r['tokenizer'].split('/', 1)[1]}`", str(data.get("width", 64)),
                         str(data["char_epochs"]), str(data["seed"]), r["split"],
                         FORM_NAMES.get(r["text_form"], r["text_form"]), f"{r['Tokens']:.2f}",
                         f"{r['Words']:.2f}", f"{r['Sentences']:.2f}"])
    if not rows:
        return None
    return (table(["training text", "width", "epochs", "seed", "split", "text form", "Tokens",
                   "Words", "Sentences"], rows)
            + "\n\nThe character model (`spacy-elstm.CharTokenizer.v1`; `elstm_senter` reads the "
              "same sentence ends) alone on the raw text of the split's documents in each text "
              "form, scored by the CoNLL 2018 script, trained on EWT train's text as it is "
              "(`treebank`: ten sentences joined by spaces) or laid out as users' text arrives "
              "(`varied`: UD's text files, paragraphs on one line, one sentence per line, CRLF, "
              "lower case, paragraphs without final punctuation; docs/raw-text.md). From "
              f"`{'`, `'.join('metrics/' + p.relative_to(metrics).as_posix() for p in files)}` "
              "(`python -m lab.tokenizers --training-texts ...`).")


SENTER_WORDS_FILE = "tokenizers/senter-words.json"  # python -m lab.senter_words


def senter_words_section(metrics: Path) -> Optional[str]:
    """elstm_senter with and without its word-level model, and the settings it
    was chosen over, on dev; None where `python -m lab.senter_words` has not run."""
    data = read_json(metrics / SENTER_WORDS_FILE)
    if data is None:
        return None
    rows = [[r["senter"], "-" if r["seed"] is None else str(r["seed"]), r["split"] if "split" in r
             else data["split"], FORM_NAMES.get(r["text_form"], r["text_form"]),
             f"{r['Tokens']:.2f}", f"{r['Sentences']:.2f}", f"{r['words_per_second']:,.0f}"]
            for r in data["rows"]]
    return (table(["elstm_senter", "word model seed", "split", "text form", "Tokens",
                   "Sentences", "words/s"], rows)
            + "\n\n`elstm_senter` alone over the pipeline's own tokenizer "
              "(`spacy-elstm.TreebankTokenizer.v1`) on the raw text of EWT "
              f"{data['split']}'s documents, scored by the CoNLL 2018 script: the character "
              f"model ({data['char_epochs']} epochs on EWT train in the varied layouts, seed "
              f"{data['char_seed']}, {data['char_seconds'] / 60:.0f} min) alone, and with a "
              f"word-level model ({data['word_epochs']} epochs on the same text, "
              f"`word_width = {data['word_width']}`) whose probability is averaged with its "
              "own: the settings `configs/raw/` ship (`words`, over seeds) and those they were "
              "chosen over (the character model's skip connections and layer norm, its dropout "
              "0.1, a narrower or a shallower model: each moved Sentences by tenths, so the "
              "settings stay, but for the depth: the shallower model costs half the word model's "
              "time, and the study below chose it over two seeds). The word model here has the "
              "character model's two layers. One character model for every row, so the rows differ by the word "
              "model alone. `words/s`: tokenizing and splitting, one thread, while other jobs shared "
              f"the machine. From `metrics/{SENTER_WORDS_FILE}` (`python -m lab.senter_words`).")


SENTER_DEPTHS_FILE = "tokenizers/senter-depths.json"  # python -m lab.senter_depths


def senter_depths_section(metrics: Path) -> Optional[str]:
    """elstm_senter's two models at one or two layers: Sentences on dev and the
    senter's time; None where `python -m lab.senter_depths` has not run."""
    data = read_json(metrics / SENTER_DEPTHS_FILE)
    if data is None:
        return None
    rows = [[str(r["char_depth"]), str(r["word_depth"]), str(r["seed"]),
             f"{r['Sentences_ud']:.2f}", f"{r['Sentences_joined']:.2f}",
             f"{r['senter_seconds']:.2f}", f"{r['time_vs_shipped']:.2f}"]
            for r in data["rows"]]
    return (table(["character layers", "word layers", "seed", "Sentences (UD's form)",
                   "Sentences (joined)", "senter s", "time vs 2 + 2"], rows)
            + "\n\n`elstm_senter` over the pipeline's own tokenizer on the raw text of EWT "
              f"{data['split']}, scored by the CoNLL 2018 script, its character model "
              f"({data['char_epochs']} epochs) and its word-level model ({data['word_epochs']} "
              f"epochs, width {data['word_width']}) each at one or two bidirectional layers, "
              "trained on EWT train in the varied layouts with the seed shown (the seed of both "
              f"models). `senter s`: {data['timing']}, the senter over dev's tokenized documents; "
              "`time vs 2 + 2`: against two layers of each of the same seed, in the same run "
              "(other jobs shared the machine, so the seconds vary between seeds; the ratios "
              "are what to read). One word layer finds what two find, at two thirds to four "
              "fifths of the senter's time: `configs/raw/` ship it (`word_depth = 1`). One "
              "character layer loses up to a point. The two seeds differ by more than any "
              "depth does. From "
              f"`metrics/{SENTER_DEPTHS_FILE}` (`python -m lab.senter_depths`).")


SENTER_AVERAGE_FILE = "tokenizers/senter-average.json"  # python -m lab.senter_average


def senter_average_section(metrics: Path) -> Optional[str]:
    """The character model's weights after each epoch against their running
    average, by seed, on dev; None where `python -m lab.senter_average` has not run."""
    data = read_json(metrics / SENTER_AVERAGE_FILE)
    if data is None:
        return None
    return (epoch_table(data)
            + "\n\nThe senter's character model alone splitting the raw text of EWT "
              f"{data['split']} (UD's text form) over the pipeline's own tokenizer, Sentences F1 "
              "by the CoNLL 2018 script, after each epoch of its training on EWT train (the "
              "varied layouts): with its weights as they are after the epoch, and with their "
              f"running average (at most {data['decay']} an update, spaCy's schedule). The "
              "same updates give both. From epoch to epoch the weights swing by up to two "
              "points and the seeds part; their average settles at about the weights' mean "
              "level. The senter keeps its weights as they are: with the word-level model "
              "beside it, averaged senters split EWT dev no better than the weights in the "
              "runs tried (`--with-words` measures the whole senter both ways)."
              + senter_rows(data) + " From "
              f"`metrics/{SENTER_AVERAGE_FILE}` (`python -m lab.senter_average`).")


SENTER_EPOCHS_FILE = "tokenizers/senter-epochs24.json"
# python -m lab.senter_average --epochs 24 --output metrics/tokenizers/senter-epochs24.json


def senter_epochs_section(metrics: Path) -> Optional[str]:
    """The character model trained past its shipped epochs, on dev; None before it ran."""
    data = read_json(metrics / SENTER_EPOCHS_FILE)
    if data is None:
        return None
    last = [r for r in data["rows"] if r["epoch"] > data["shipped_epochs"]]
    return (epoch_table(data)
            + f"\n\nThe same measure, the character model trained for {data['epochs']} "
              f"epochs in place of {data['shipped_epochs']} (the same seeds: the rows up to "
              f"{data['shipped_epochs']} are those above, run again). Past the shipped epochs "
              f"its weights split dev at {min(r['weights'] for r in last):.2f} to "
              f"{max(r['weights'] for r in last):.2f} and their average at "
              f"{min(r['average'] for r in last):.2f} to {max(r['average'] for r in last):.2f}, "
              "while its training loss still falls: longer training finds no more sentences, "
              "so the senter keeps its 12 epochs. From "
              f"`metrics/{SENTER_EPOCHS_FILE}` (`python -m lab.senter_average --epochs "
              f"{data['epochs']} --output metrics/{SENTER_EPOCHS_FILE}`).")


SENTER_SELECTION_FILE = "tokenizers/senter-selection.json"  # python -m lab.senter_selection


def senter_selection_section(metrics: Path) -> Optional[str]:
    """The senter's epochs chosen on one half of dev and scored on the other,
    its layouts once or anew each epoch; None before `lab.senter_selection` ran."""
    data = read_json(metrics / SENTER_SELECTION_FILE)
    if data is None:
        return None
    layouts = {False: "once", True: "anew each epoch"}
    halves = [r for r in data["rows"] if r["scored_on"] != "dev"]
    rows = [[str(r["seed"]), layouts[r["fresh_layouts"]],
             "last (shipped)" if r["chosen_by"] == "last" else f"best on {r['chosen_by']}",
             f"{r['char_epoch']} + {r['word_epoch']}", r["scored_on"], f"{r['Sentences']:.2f}"]
            for r in halves]
    whole = [[str(r["seed"]), layouts[r["fresh_layouts"]], f"{r['Sentences_ud']:.2f}",
              f"{r['Sentences_joined']:.2f}"] for r in data["rows"] if r["scored_on"] == "dev"]
    last = {(r["seed"], r["fresh_layouts"], r["scored_on"]): r["Sentences"]
            for r in halves if r["chosen_by"] == "last"}
    gains = [r["Sentences"] - last[(r["seed"], r["fresh_layouts"], r["scored_on"])]
             for r in halves if r["chosen_by"] != "last"]
    by_layout: Dict[bool, Dict[int, float]] = {False: {}, True: {}}
    for r in data["rows"]:
        if r["scored_on"] == "dev":
            by_layout[r["fresh_layouts"]][r["seed"]] = r["Sentences_ud"]
    for r in (read_json(metrics / SENTER_SCORES_FILE) or {"rows": []})["rows"]:
        if r["split"] == "dev" and r["settings"]["dropout"] == 0.1:
            by_layout[bool(r["training"].get("fresh_layouts"))][r["training"]["seed"]] = \
                r["Sentences_ud"]
    seeds = sorted(set(by_layout[False]) & set(by_layout[True]))
    fresh = [by_layout[True][seed] for seed in seeds]
    once = [by_layout[False][seed] for seed in seeds]
    summary = ""
    before = read_json(metrics / SENTER_AVERAGE_FILE) or {}
    known = {r["seed"]: r["Sentences_ud"] for r in before.get("senter_rows", [])
             if not r["averaged"]}
    again = [(r["seed"], r["Sentences_ud"]) for r in data["rows"] if r["scored_on"] == "dev"
             and not r["fresh_layouts"] and r["seed"] in known]
    if again:
        summary += (" The shipped senters, trained again here, split dev as they did in the "
                    "averaging study above ("
                    + ", ".join(f"seed {seed}: {ud_now:.2f} against {known[seed]:.2f}"
                                for seed, ud_now in again) + ").")
    if gains:
        summary += (f" Choosing the epochs moved the other half's Sentences by "
                    f"{min(gains):+.2f} to {max(gains):+.2f} (mean {sum(gains) / len(gains):+.2f},"
                    f" {len(gains)} choices).")
    if fresh and once:
        better = sum(f > o for f, o in zip(fresh, once))
        summary += (f" Layouts anew each epoch: dev {sum(fresh) / len(fresh):.2f} in UD's form "
                    f"against {sum(once) / len(once):.2f} laid out once (mean of seeds "
                    f"{', '.join(map(str, seeds))}, with the senters below; higher for "
                    f"{better} of {len(seeds)}).")
    return (table(["seed", "layouts", "epochs chosen", "epochs (characters + words)",
                   "scored on", "Sentences"], rows)
            + "\n\n" + table(["seed", "layouts", "dev, UD's form", "dev, joined"], whole)
            + f"\n\n`elstm_senter` trained as `configs/raw/` train it ({data['char_epochs']} "
              f"epochs of the character model, then {data['word_epochs']} of the word-level "
              "model, on EWT train in the varied layouts, the seed of both models shown), the "
              "layouts laid out once or anew each epoch (`fresh_layouts`). EWT dev's documents "
              f"alternately in two halves (A: {data['sentences']['A']} sentences, B: "
              f"{data['sentences']['B']}); after every epoch each half's sentences are found in "
              "its text laid out in UD's form and scored (the held-out score the senter's "
              "`dev` setting keeps the best epoch by); each model's epoch is then the last "
              "(as shipped) or the best on one half, and the whole senter is scored on the "
              "other half by the CoNLL 2018 script (UD's text form, the pipeline's own "
              "tokenizer), so that no score is of text its epochs were chosen on. The second "
              "table: the shipped choice on the whole of dev." + summary + " Both move "
              "Sentences by tenths either way, less than the seeds part: `configs/raw/` keep "
              "each model's last epoch and the layouts laid out once. From "
              f"`metrics/{SENTER_SELECTION_FILE}` (`python -m lab.senter_selection`)."
              + senter_scores_rows(metrics))


SENTER_SCORES_FILE = "tokenizers/senter-scores.json"  # python -m lab.senter_score


def senter_scores_rows(metrics: Path) -> str:
    """Senters trained one by one (`scripts/train_senter.py`) and scored on dev."""
    data = read_json(metrics / SENTER_SCORES_FILE)
    if data is None or not data["rows"]:
        return ""
    rows = [[str(r["training"]["seed"]), f"{r['settings']['dropout']:.1f}",
             "anew each epoch" if r["training"].get("fresh_layouts") else "once",
             f"{r['Sentences_ud']:.2f}", f"{r['Sentences_joined']:.2f}"]
            for r in sorted(data["rows"], key=lambda r: (r["training"]["seed"],
                                                         r["settings"]["dropout"],
                                                         bool(r["training"].get("fresh_layouts"))))]
    return ("\n\n" + table(["seed", "character dropout", "layouts", "dev, UD's form",
                              "dev, joined"], rows)
            + "\n\nMore senters, each trained alone as the config trains it "
              "(`python scripts/train_senter.py corpus/UD_English-EWT/en_ewt-ud-train.spacy OUTPUT --seed N "
              "[--fresh-layouts] [--dropout 0.3]`) and scored on EWT dev's raw text by the CoNLL "
              "2018 script over the pipeline's own tokenizer (`python -m lab.senter_score "
              f"OUTPUT`, `metrics/{SENTER_SCORES_FILE}`): further seeds of the two layouts, and "
              "the character model at dropout 0.3 (Stanza's tokenizer trains at 0.33), against "
              "0.1 shipped: seeds 0 and 1 at 0.1 are in the table above."
              + senter_ensemble_rows(metrics))


SENTER_ENSEMBLE_GLOB = "tokenizers/senter-ensemble*.json"  # python -m lab.senter_ensemble


def senter_ensemble_rows(metrics: Path) -> str:
    """Senters averaged as one beside each alone, on dev (a probe of the seed lottery)."""
    rows = []
    for path in sorted(metrics.glob(SENTER_ENSEMBLE_GLOB)):
        data = read_json(path)
        alone = [r for r in data["rows"] if " + " not in r["senters"]]
        for r in data["rows"]:
            if " + " in r["senters"]:
                mean = sum(a["Sentences_ud"] for a in alone) / len(alone)
                rows.append([str(len(alone)), f"{mean:.2f}",
                             f"{max(a['Sentences_ud'] for a in alone):.2f}",
                             f"{r['Sentences_ud']:.2f}", f"`metrics/tokenizers/{path.name}`"])
    if not rows:
        return ""
    return ("\n\n" + table(["senters", "alone: mean", "alone: best", "averaged as one",
                              "from"], rows)
            + "\n\nA probe of the seed lottery: senters of the table above (seeds 2 and 3, "
              "and with the layouts anew) averaged as one, each word's sentence-end "
              "probability the mean of every character and word model's (`python -m "
              "lab.senter_ensemble SENTER...`), against each alone in the same run, EWT dev, "
              "UD's text form. Two average to about their mean; four find more than the best "
              "of them, at four times the senter's time, which the speed target does not "
              "allow: what the seeds part by is noise that averaging removes, a case for "
              "distilling several senters into one.")


def epoch_table(data: Dict) -> str:
    """Per epoch, per seed: Sentences with the weights and with their average."""
    seeds = sorted({r["seed"] for r in data["rows"]})
    found = {(r["epoch"], r["seed"]): r for r in data["rows"]}
    rows = []
    for epoch in sorted({r["epoch"] for r in data["rows"]}):
        cells = [str(epoch) + (" (shipped)" if epoch == data["shipped_epochs"] else "")]
        for seed in seeds:
            r = found.get((epoch, seed))
            cells += ["-", "-"] if r is None else [f"{r['weights']:.2f}", f"{r['average']:.2f}"]
        rows.append(cells)
    header = ["epoch"] + [f"seed {seed}: {what}" for seed in seeds
                          for what in ("weights", "average")]
    return table(header, rows)


def senter_rows(data: Dict) -> str:
    """The whole senter's rows of the averaging study (`--with-words`), if any."""
    rows = [[str(r["seed"]), str(r["epochs"]), "average" if r["averaged"] else "weights",
             f"{r['Sentences_ud']:.2f}", f"{r['Sentences_joined']:.2f}"]
            for r in data.get("senter_rows", [])]
    if not rows:
        return ""
    return ("\n\n" + table(["seed", "epochs", "both models", "Sentences (UD's form)",
                               "Sentences (joined)"], rows) + "\n\nThe whole senter, its "
            "character model and its word-level model (trained beside it on the same text) "
            "each with its weights or with their average.")


PEER_GLOB = "udpipe1/udpipe1-*.json"  # python -m lab.udpipe_peer run
PEER_KEYS = ["Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "Lemmas", "UAS", "LAS"]


def peer_section(metrics: Path) -> Optional[str]:
    """UDPipe 1, trained here, on the same raw text and script; None before it ran."""
    files = sorted(metrics.glob(PEER_GLOB))
    rows, first = [], None
    for path in files:
        data = read_json(path)
        if data.get("text_variant", "as-written") != "as-written":
            continue  # in the text-variants section
        first = first or data
        rows.append([f"`{data['gold']}`"] + [f"{data['scores_f1'][k]:.2f}" for k in PEER_KEYS]
                    + [f"{data['words_per_second']:,.0f}"])
    if not rows:
        return None
    options = first["options"]
    return (table(["gold"] + PEER_KEYS + ["words/s"], rows)
            + f"\n\nUDPipe {first['udpipe_version']} (`ufal.udpipe` "
              f"{first['ufal.udpipe_package_version']}), trained here on "
              f"`{options['train_file']}` with `{options['heldout_file']}` held out (so its dev "
              f"row is not a clean measure) in {first['train_seconds'] / 60:.0f} min on one "
              f"thread of the shared machine (tokenizer `{options['tokenizer_options']}`, tagger "
              f"`{options['tagger_options']}`, parser `{options['parser_options']}`, no "
              "pretrained embeddings), run on the raw text of each split in UD's text form "
              "(its tokenizer's default mode, the text in one call) and scored by the CoNLL 2018 "
              "script; `words/s`: tokenizing, tagging and parsing, one thread, while other jobs "
              f"shared the machine. From `metrics/{PEER_GLOB}` (`python -m lab.udpipe_peer`).")
