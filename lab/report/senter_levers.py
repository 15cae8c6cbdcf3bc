"""The senter's levers tried after its layouts and epochs (docs/results/ud.md):
senters taught by senters (distillation), a word-level model that reads the
character model, and the character model's windows; each against senters
trained on the gold labels with the shipped settings."""
from pathlib import Path
from typing import Dict, List, Optional

from spacy_elstm.components.elstm_senter import CHAR_CONTEXT, END_THRESHOLD, WORD_SURE

from .common import read_json, table

LEVERS_FILE = "tokenizers/senter-levers.json"
# python -m lab.senter_score PIPELINE... --output metrics/tokenizers/senter-levers.json
WINDOWS_FILE = "tokenizers/senter-windows.json"  # python -m lab.senter_windows PIPELINE
DEPTHS_FILE = "tokenizers/senter-depths.json"  # python -m lab.senter_depths
SCORES_FILE = "tokenizers/senter-scores.json"  # python -m lab.senter_score
WRAPPING_FILE = "tokenizers/senter-wrapping.json"  # python -m lab.senter_wrapping PIPELINE...


def gold_trained(metrics: Path) -> Dict[int, Dict[int, float]]:
    """Per character depth, per seed: dev Sentences (UD's form) of senters
    trained on the gold labels with the shipped settings otherwise (one
    word-level layer, dropout 0.1, layouts laid out once)."""
    found: Dict[int, Dict[int, float]] = {}
    for r in (read_json(metrics / DEPTHS_FILE) or {"rows": []})["rows"]:
        if r["word_depth"] == 1:
            found.setdefault(r["char_depth"], {})[r["seed"]] = r["Sentences_ud"]
    for r in (read_json(metrics / SCORES_FILE) or {"rows": []})["rows"]:
        if (r["split"] == "dev" and r["settings"]["dropout"] == 0.1
                and not r["training"].get("fresh_layouts")):
            found.setdefault(r["settings"]["depth"], {})[r["training"]["seed"]] = \
                r["Sentences_ud"]
    return found


def wraps_as_spaces(metrics: Path) -> Dict[int, float]:
    """Per seed: dev Sentences (UD's form) of the shipped senters trained and
    reading wraps as spaces (`lab.senter_wrapping`)."""
    return {r["seed"]: r["Sentences_ud"]
            for r in (read_json(metrics / WRAPPING_FILE) or {"rows": []})["rows"]
            if r.get("trained") == "as spaces" and r["reading"] == "wraps as spaces"}


def form_changes(pairs: List, forms: List[str], between: str) -> str:
    """Per text form, the mean of each pair's first row's Sentences less its second's."""
    def change(form: str) -> float:
        return mean([a[f"Sentences_{form}"] - b[f"Sentences_{form}"] for a, b in pairs])
    return between.join(f"{FORM_NAMES[f]} {change(f):+.2f}" for f in forms)


def mean(values: List[float]) -> float:
    return sum(values) / len(values)


def levers_section(metrics: Path) -> Optional[str]:
    """Students of several senters and word models that read the characters,
    beside senters trained on the gold labels; None before any was scored."""
    data = read_json(metrics / LEVERS_FILE)
    if data is None or not data["rows"]:
        return None
    rows = []
    for r in data["rows"]:
        teachers = r["training"].get("teachers") or []
        rows.append([r.get("reading", "as written"), str(r["training"]["seed"]),
                     str(r["settings"]["depth"]),
                     str(len(teachers)) if teachers else "-",
                     f"{r['training']['teacher_weight']:.1f}" if teachers else "-",
                     str(r["settings"].get("word_char_bins", 0) or "-"),
                     f"{r['Sentences_ud']:.2f}", f"{r['Sentences_joined']:.2f}"])
    gold = gold_trained(metrics)
    baseline = "; ".join(
        f"{depth} character layer{'s' if depth > 1 else ''}: {mean(list(s.values())):.2f} "
        f"(seeds {', '.join(map(str, sorted(s)))}: "
        f"{', '.join(f'{s[seed]:.2f}' for seed in sorted(s))})"
        for depth, s in sorted(gold.items(), reverse=True))
    spaces = wraps_as_spaces(metrics)
    if spaces:
        baseline += ("; reading wraps as spaces (trained so too), 2 character layers: "
                     f"{mean(list(spaces.values())):.2f} (seeds "
                     f"{', '.join(map(str, sorted(spaces)))}: "
                     f"{', '.join(f'{spaces[seed]:.2f}' for seed in sorted(spaces))})")
    return (table(["line breaks read", "seed", "character layers", "teachers", "teachers' share",
                   "word model reads characters (bins)", "dev, UD's form", "dev, joined"], rows)
            + "\n\nSenters trained as `configs/raw/` train them (12 epochs of the character "
              "model, then 8 of the word-level model, EWT train in the varied layouts), with one "
              "change each (`python scripts/train_senter.py corpus/UD_English-EWT/en_ewt-ud-train.spacy "
              "OUTPUT --seed N [--depth 1] [--teachers SENTER... --teacher-weight W] "
              "[--word-char-bins 10]`), scored on EWT dev's raw text by the CoNLL 2018 script "
              "over the pipeline's own tokenizer (`python -m lab.senter_score OUTPUT --output "
              f"metrics/{LEVERS_FILE}`), trained and scored reading every line break as "
              "written, before the senter read hard-wrapped lines as running text (the section "
              "below; `lab.senter_score --as-written` scores so), or reading wraps as spaces. "
              "Trained on the gold labels alone, as shipped, reading line breaks as written: "
              + baseline + ".\n\n"
              "**Teachers** (`teachers`, `text/distillation.py`): the student's character "
              "model learns the teachers' mean probability of each label at each character, "
              "its word-level model their mean probability that a sentence ends after each "
              "word, mixed with the gold labels by the teachers' share. The four teachers are "
              "the senters averaged as one in the section above (seeds 2 and 3, laid out once "
              "and anew). The students land among the senters trained on gold labels, not "
              "near the four averaged; a student of one teacher does not reach its teacher "
              "either, so what teaching passes on is lost to the student's own seed lottery. "
              "`configs/raw/` leave `teachers` empty.\n\n"
              "**The word model reading the characters** (`word_char_bins`): each word also "
              "reads the character model's probability at its last character, in ten bins, "
              "so that it learns when to trust it (the two views are still averaged)."
            + bins_line(data["rows"], gold.get(2, {}))
            + depth_line(data["rows"], spaces))


def bins_line(rows: List[Dict], written: Dict[int, float]) -> str:
    """The word model reading the characters against the shipped senters of the
    same seeds, both reading line breaks as written."""
    bins = {r["training"]["seed"]: (r["Sentences_ud"], r["Sentences_joined"]) for r in rows
            if r.get("reading", "as written") == "as written"
            and r["settings"].get("word_char_bins")}
    seeds = sorted(set(bins) & set(written))
    if not seeds:
        return ""
    return (f" In UD's form {mean([bins[s][0] for s in seeds]):.2f} against "
            f"{mean([written[s] for s in seeds]):.2f} without (seeds "
            f"{', '.join(map(str, seeds))}), though more in the joined form "
            f"({mean([bins[s][1] for s in seeds]):.2f}): the character model is surer of its "
            "own training text than of new text, and the word model learns to trust it too "
            "much; `configs/raw/` leave `word_char_bins = 0`.")


def depth_line(rows: List[Dict], spaces: Dict[int, float]) -> str:
    """One character layer against two, both reading wraps as spaces, on the
    seeds both have."""
    one = {r["training"]["seed"]: r["Sentences_ud"] for r in rows
           if r.get("reading") == "wraps as spaces" and r["settings"]["depth"] == 1
           and not r["training"].get("teachers") and not r["settings"].get("word_char_bins")}
    seeds = sorted(set(one) & set(spaces))
    if not seeds:
        return ""
    return ("\n\n**One character layer** (`depth = 1`: the senter at about half its time, "
            "the lever the speed target asks for, [docs/results/speed.md](speed.md)), both "
            f"reading wraps as spaces: {mean([one[s] for s in seeds]):.2f} against "
            f"{mean([spaces[s] for s in seeds]):.2f} with two (seeds "
            f"{', '.join(map(str, seeds))}): `configs/raw/` keep two.")


def windows_section(metrics: Path) -> Optional[str]:
    """The character model's windows: the senter's time and its sentences; None
    before `python -m lab.senter_windows` ran."""
    data = read_json(metrics / WINDOWS_FILE)
    if data is None:
        return None
    rows = [[str(r["window"]), str(r["windows_per_call"]), f"{r['senter_seconds']:.3f}",
             f"{r['time_vs_first']:.2f}", f"{r['Sentences_ud']:.2f}",
             f"{r['Sentences_joined']:.2f}"] for r in data["rows"]]
    ratios = [r["time_vs_first"] for r in data["rows"][1:]]
    return (table(["window (characters)", "windows a call", "senter s", "time vs first",
                   "dev, UD's form", "dev, joined"], rows)
            + f"\n\nThe senter of `{data['pipeline']}` (trained on windows of "
              f"{data['saved_window']} characters) reading EWT dev's text in shorter windows, "
              "more of them a call, so that the recurrence takes fewer steps over more "
              f"windows at a time. `senter s`: {data['timing']}. The time moves by "
              f"{min(ratios) - 1:+.0%} to {max(ratios) - 1:+.0%}: the recurrence is bound by "
              "its arithmetic, not by its steps, and the windows stay as trained. From "
              f"`metrics/{WINDOWS_FILE}` (`python -m lab.senter_windows PIPELINE`).")


FORM_NAMES = {"ud": "UD's form", "joined": "joined", "lines": "one sentence a line"}


def wrapping_section(metrics: Path) -> Optional[str]:
    """Senters reading wraps as spaces or every line break as written, on dev in
    each text form, trained either way; None before `python -m lab.senter_wrapping` ran."""
    data = read_json(metrics / WRAPPING_FILE)
    if data is None or not data["rows"]:
        return None
    forms = [f for f in FORM_NAMES if f"Sentences_{f}" in data["rows"][0]]
    rows = [[f"`{r['pipeline']}`", str(r["seed"]), r["trained"], r["reading"]]
            + [f"{r[f'Sentences_{f}']:.2f}" for f in forms] for r in data["rows"]]
    by = {(r["pipeline"], r["reading"]): r for r in data["rows"]}
    pipelines = list(dict.fromkeys(r["pipeline"] for r in data["rows"]))

    def pairs(trained: str):
        return [(by[(p, "wraps as spaces")], by[(p, "as written")]) for p in pipelines
                if (p, "as written") in by and (p, "wraps as spaces") in by
                and by[(p, "as written")]["trained"] == trained]

    before = pairs("as written")
    summary = (f"Senters trained reading every line break as written ({len(before)}), reading "
               "wraps as spaces against as written, mean change: "
               + form_changes(before, forms, "; ")
               + f"; UD's form and the joined one "
                 f"{mean([abs(b['Sentences_ud'] - b['Sentences_joined']) for _, b in before]):.2f}"
                 " apart on the mean as written, "
                 f"{mean([abs(a['Sentences_ud'] - a['Sentences_joined']) for a, _ in before]):.2f}"
                 " read as running text.")
    after = pairs("as spaces")
    earlier = {a["seed"]: a for a, _ in before}
    same = [(a, earlier[a["seed"]]) for a, _ in after if a["seed"] in earlier]
    if same:
        summary += (f" Trained reading wraps as spaces too (seeds "
                    f"{', '.join(str(a['seed']) for a, _ in same)}), against the senters of "
                    "the same seeds trained as written, both reading wraps as spaces: "
                    + form_changes(same, forms, "; ") + ".")
    return (table(["senter", "seed", "trained reading line breaks", "line breaks read"]
                  + [f"dev, {FORM_NAMES[f]}" for f in forms], rows)
            + "\n\nTrained senters (the raw pipelines' and standalone ones, "
              "`scripts/train_senter.py`) splitting EWT dev's raw text in each text form, "
              "reading it as `elstm_senter` does (hard-wrapped lines as running text, "
              "`text/wrapping.py`) or every line break as written, in the same run; Sentences "
              "F1 by the CoNLL 2018 script over the pipeline's own tokenizer. " + summary
            + " A third of the senter's training text has one sentence per line: read as "
              "written, it learned that a line break often ends a sentence, and split UD's "
              "text at its 80-column wraps. From "
              f"`metrics/{WRAPPING_FILE}` (`python -m lab.senter_wrapping PIPELINE...`).")


SURE_WORDS_FILE = "tokenizers/senter-sure-words.json"  # python -m lab.senter_sure_words


def sure_words_section(metrics: Path) -> Optional[str]:
    """The character model read everywhere or only where the word model is
    unsure: the senter's time and its sentences; None before
    `python -m lab.senter_sure_words` ran."""
    data = read_json(metrics / SURE_WORDS_FILE)
    if data is None or not data["rows"]:
        return None
    forms = [f for f in FORM_NAMES if f"Sentences_{f}" in data["rows"][0]]

    def read(r: Dict) -> str:
        if not r["word_sure"]:
            return "everywhere"
        before, after = r["char_context"]
        return f"unsure words (within {r['word_sure']:g}), {before} + {after} characters"

    rows = [[f"`{r['pipeline']}`", read(r), f"{r['senter_seconds']:.3f}",
             f"{r['time_vs_first']:.2f}"] + [f"{r[f'Sentences_{f}']:.2f}" for f in forms]
            for r in data["rows"]]
    everywhere = {r["pipeline"]: r for r in data["rows"] if not r["word_sure"]}
    summary = []
    for setting in dict.fromkeys((r["word_sure"], tuple(r["char_context"]))
                                 for r in data["rows"] if r["word_sure"]):
        found = [(r, everywhere[r["pipeline"]]) for r in data["rows"]
                 if (r["word_sure"], tuple(r["char_context"])) == setting
                 and r["pipeline"] in everywhere]
        summary.append(
            f"within {setting[0]:g} ({setting[1][0]} + {setting[1][1]} characters): time "
            f"{mean([r['time_vs_first'] for r, _ in found]):.2f} of reading everywhere, "
            + form_changes(found, forms, ", "))
    return (table(["senter", "characters read", "senter s", "time vs everywhere"]
                  + [f"dev, {FORM_NAMES[f]}" for f in forms], rows)
            + "\n\nThe word-level model is sure of most words (a sentence ends after them, or "
              "not, with a probability within `WORD_SURE` of 1 or 0), where the character "
              "model could change the decision only by being much surer the other way; so "
              "`elstm_senter` reads the characters only around the other words "
              "(`CHAR_CONTEXT` characters before and "
              "after each, cut at whitespace), and lets the word model decide alone at the "
              "rest. The shipped raw pipelines' senters, each reading the characters "
              "everywhere (as before) or only around the unsure words, in the same run; "
              f"`senter s`: {data['timing']}. Mean over the pipelines against reading "
              "everywhere: " + "; ".join(summary) + f". Shipped: within {WORD_SURE:g}, "
              f"{CHAR_CONTEXT[0]} + {CHAR_CONTEXT[1]}. From "
              f"`metrics/{SURE_WORDS_FILE}` (`python -m lab.senter_sure_words PIPELINE... "
              "--settings 0:0:0 0.02:40:20 0.05:40:20 0.1:40:20`; run with `end_threshold` "
              f"{END_THRESHOLD:g}; the contexts of 80 + 40 and 60 + 30 characters were "
              "compared with 40 + 20 at 0.5, in the file's history).")


THRESHOLDS_FILE = "tokenizers/senter-thresholds.json"  # python -m lab.senter_thresholds


def thresholds_section(metrics: Path) -> Optional[str]:
    """Sentences by `end_threshold`, per pipeline and text form, and the mean
    change from the first; None before `python -m lab.senter_thresholds` ran."""
    data = read_json(metrics / THRESHOLDS_FILE)
    if data is None or not data["rows"]:
        return None
    forms = [f for f in FORM_NAMES if f in data["text_forms"]]
    rows = [[f"`{r['pipeline']}`", f"{r['end_threshold']:g}"]
            + [f"{r[f'Sentences_{f}']:.2f}" for f in forms] for r in data["rows"]]
    first = next(iter(data["mean_change"]))
    changes = [[threshold] + [f"{change[f]:+.2f}" for f in forms]
               for threshold, change in data["mean_change"].items()]
    return (table(["pipeline", "end_threshold"] + [f"{data['split']}, {FORM_NAMES[f]}"
                                                   for f in forms], rows)
            + "\n\n" + table(["end_threshold"] + [f"mean change from {first}, {FORM_NAMES[f]}"
                                                   for f in forms], changes)
            + "\n\nWith its word-level model, `elstm_senter` ends a sentence after a word where "
              "the mean of the two models' probabilities is above `end_threshold`. The shipped raw "
              "pipelines' senters, each threshold in the same run, Sentences F1 by the CoNLL "
              f"2018 script over the pipeline's own tokenizer. Shipped: {END_THRESHOLD:g}, "
              "chosen on dev in UD's text form, the form the targets are read in; text "
              "written one sentence per line loses a little at it, and has its own input "
              "mode (`spacy-elstm parse --presegmented`, `input_modes.make_doc(nlp, text, "
              f"\"sentences\")`: docs/raw-text.md). From `metrics/{THRESHOLDS_FILE}` "
              "(`python -m lab.senter_thresholds PIPELINE...`).")


ERRORS_FILE = "tokenizers/senter-errors.json"  # python -m lab.senter_errors


def errors_section(metrics: Path) -> Optional[str]:
    """The senters' missed and made-up sentence ends by what comes before them,
    with examples; None before `python -m lab.senter_errors` ran."""
    data = read_json(metrics / ERRORS_FILE)
    if data is None or not data["rows"]:
        return None
    kinds = data["kinds"]
    errors = [f"{error}: {k}" for error in ("missed", "made up") for k in kinds]
    rows = [[f"`{r['pipeline']}`", str(r["matched"])]
            + [str(r["counts"].get(e, 0)) for e in errors] for r in data["rows"]]
    every = data.get("every_pipeline")
    if every:
        rows.append(["every one of them", "-"] + [str(every["counts"].get(e, 0)) for e in errors])
    first = data["rows"][0]
    worst = max(first["counts"], key=first["counts"].get)
    shown = every or first  # the examples: of the errors all make, where counted
    examples = "\n".join(f"- `{e}`" for e in quoted(shown["examples"].get(worst, [])))
    text = (table(["pipeline", "ends found"] + [e.replace(":", ",") for e in errors], rows)
            + f"\n\nEWT {first['split']} in {FORM_NAMES.get(first['text_form'], first['text_form'])}"
              ": each gold sentence end the senter missed and each it made up, by what comes "
              "before it (compared as places in the text, so tokenisation errors do not count "
              "here).")
    if every:
        total = sum(every["counts"].values())
        text += (f" *Every one of them*: the errors all {len(data['rows'])} pipelines make, "
                 f"{total} of the first's {sum(first['counts'].values())}: averaging their "
                 "senters, or a vote among them, keeps these (each member votes for the "
                 "error), and can remove only the rest.")
    return (text + f" The most common kind for the first pipeline, \"{worst}\" (examples"
            f"{', of those all make' if every else ''}; `|` is the gold or predicted end, "
            "⏎ a line break):\n\n"
            + examples + f"\n\nFrom `metrics/{ERRORS_FILE}` "
              "(`python -m lab.senter_errors PIPELINE...`).")


def quoted(examples: List[str]) -> List[str]:
    """Examples to show inside code spans (their backticks made quotes)."""
    return [e.replace("`", "'") for e in examples]


TOKEN_ERRORS_FILE = "tokenizers/token-errors.json"  # python -m lab.token_errors
TOKEN_ERRORS_SHOWN = 15


def token_errors_section(metrics: Path) -> Optional[str]:
    """The tokenizer's most often missed and made-up tokens; None before
    `python -m lab.token_errors` ran."""
    data = read_json(metrics / TOKEN_ERRORS_FILE)
    if data is None or not data["rows"]:
        return None

    def cell(text: str) -> str:  # a code span inside a table cell
        return "`" + text.replace("`", "'").replace("|", "\\|") + "`"

    def listed(pairs: List) -> str:
        return ", ".join(f"{cell(text)} {n}" for text, n in pairs[:TOKEN_ERRORS_SHOWN])

    rows = [[f"`{r['pipeline']}`", str(r["matched"]), str(r["missed"]), str(r["made_up"]),
             listed(r["most_missed"]), listed(r["most_made_up"])] for r in data["rows"]]
    first = data["rows"][0]
    return (table(["pipeline", "tokens found", "missed", "made up", "most missed",
                   "most made up"], rows)
            + f"\n\nEWT {first['split']} in "
              f"{FORM_NAMES.get(first['text_form'], first['text_form'])}, the pipeline's own "
              "tokenizer: a gold token (a multiword token once) is missed where no token of the "
              "pipeline's spans exactly its characters, a token of the pipeline is made up "
              "where no gold token does; the most common of each, with their counts. From "
              f"`metrics/{TOKEN_ERRORS_FILE}` (`python -m lab.token_errors PIPELINE...`).")


TOKEN_CHOICE_FILE = "tokenizers/token-choice.json"  # python -m lab.token_choice PIPELINE...


def token_choice_section(metrics: Path) -> Optional[str]:
    """Tokens from the rules or from the senter's character model, chosen per
    chunk, against the rules alone; None before `python -m lab.token_choice` ran."""
    data = read_json(metrics / TOKEN_CHOICE_FILE)
    if data is None or not data["rows"]:
        return None
    choices: Dict[str, List[Dict]] = {}
    for r in data["rows"]:
        choices.setdefault(r["choice"], []).append(r)
    shipped = next(iter(choices.values()))

    def mean(rows: List[Dict], metric: str) -> float:
        return sum(r[metric] for r in rows) / len(rows)

    def each(rows: List[Dict], metric: str) -> str:
        return " / ".join(f"{r[metric]:.2f}" for r in rows)

    table_rows = [[choice] + [cell for metric in ("Tokens", "Words")
                              for cell in (f"{mean(rows, metric):.2f}", each(rows, metric),
                                           f"{mean(rows, metric) - mean(shipped, metric):+.2f}")]
                  for choice, rows in choices.items()]
    pipelines = ", ".join(f"`{r['pipeline']}`" for r in shipped)
    rules = [c for c in choices if not c.startswith("oracle")][1:]
    best = max(rules, key=lambda c: mean(choices[c], "Tokens") + mean(choices[c], "Words"))
    oracle = ", ".join(f"{metric} {mean(rows, metric) - mean(shipped, metric):+.2f}"
                       for metric in ("Tokens", "Words")
                       for choice, rows in choices.items() if choice.startswith("oracle"))
    gains = ", ".join(f"{metric} {mean(choices[best], metric) - mean(shipped, metric):+.2f}"
                      for metric in ("Tokens", "Words"))
    header = [f"{metric}{part}" for metric in ("Tokens", "Words")
              for part in ("", ", each pipeline", " vs rules")]
    return (table(["tokens of each chunk from"] + header, table_rows)
            + f"\n\nEWT {shipped[0]['split']} in UD's text form: each raw pipeline has two "
              "tokenizers, its rules (`spacy-elstm.TreebankTokenizer.v1`, which it ships) and "
              "the character model of its `elstm_senter`, which labels token ends as well as "
              "sentence ends; here each whitespace-free chunk of the text takes the tokens of "
              "one of them by the rule named (*unseen*: EWT train's text has no such chunk; "
              "*not letters and digits alone*: the chunk holds a punctuation mark or another "
              "symbol; *sure*: at each character where the two differ, the character model's "
              "probability that it ends no token is at least the rule's figure or at most one "
              "minus it), and the oracle takes the characters' tokens where they match the "
              "gold ones and the rules' do not, a bound no rule reaches. Tokens and Words F1 by "
              "the "
              f"CoNLL 2018 script, the mean over {len(shipped)} pipelines ({pipelines}), which "
              "share the rules and differ in the senter's seed. From "
              f"`metrics/{TOKEN_CHOICE_FILE}` (`python -m lab.token_choice PIPELINE...`). "
              f"The best rule, {best}, gains {gains} on dev, against the oracle's "
              f"{oracle}: tenths, so the pipelines keep the rules' tokens.")


PROBE_FILE = "tokenizers/senter-tok2vec-probe.json"  # python -m lab.senter_tok2vec_probe


def tok2vec_probe_section(metrics: Path) -> Optional[str]:
    """Sentence ends from the pipeline's own tok2vec, alone and beside the
    senter; None before `python -m lab.senter_tok2vec_probe` ran."""
    data = read_json(metrics / PROBE_FILE)
    if data is None or not data["rows"]:
        return None
    thresholds = [k for k in data["rows"][0] if k != "model"]
    rows = [[r["model"]] + [f"{r[t]:.2f}" for t in thresholds] for r in data["rows"]]
    best = max(data["rows"][1:], key=lambda r: max(r[t] for t in thresholds))
    senter = data["rows"][0]
    return (table(["model"] + [f"threshold {t}" for t in thresholds], rows)
            + f"\n\nA probe of `{data['pipeline']}`: a model over each word's tok2vec "
              "vector and the next word's learns on EWT train (UD's text form, "
              f"{data['train_words']:,} words) whether a sentence ends after it; "
              f"{data['score']}. The pipeline's encoder knows most sentence ends on its own, "
              f"but beside the senter the best mix found ({best['model']}) scores "
              f"{max(best[t] for t in thresholds):.2f} against the senter's "
              f"{max(senter[t] for t in thresholds):.2f}, the best of each over the thresholds "
              "on dev itself. From "
              f"`metrics/{PROBE_FILE}` (`python -m lab.senter_tok2vec_probe PIPELINE`).")


WSJ_FILE = "tokenizers/wsj-sentences.json"  # python -m lab.wsj_sentences


def wsj_section(metrics: Path) -> Optional[str]:
    """Sentences F1 of the senters and UDPipe 1 on the WSJ sample's raw text;
    None before `python -m lab.wsj_sentences` ran."""
    data = read_json(metrics / WSJ_FILE)
    if data is None or not data["rows"]:
        return None
    readings = list(data["rows"][0]["Sentences"])
    rows = [[f"`{r['splitter']}`"] + [f"{r['Sentences'][k]:.2f}" for k in readings]
            for r in data["rows"]]
    same = all(r["Sentences"].get("ud") == r["Sentences"].get("joined") for r in data["rows"])
    return (table(["splitter"] + [f"Sentences ({WSJ_READINGS.get(k, k)})" for k in readings],
                  rows)
            + f"\n\nText none of them was tuned for: NLTK's sample of the Penn Treebank's WSJ "
              f"({data['documents']} news articles, {data['sentences']:,} sentences), its words "
              "written back as text (PTB's escapes undone, the period PTB repeats after a "
              "final abbreviation left out), each article one paragraph, in UD's text form "
              "(lines wrapped at 80 characters), joined on one line, and in UD's form in lower "
              "case and without punctuation (rewritten as `spacy-elstm score --raw "
              "--text-variant` rewrites a gold file). Each pipeline's tokenizer and "
              "`elstm_senter`, and UDPipe 1's tokenizer trained on EWT train (the peer above), "
              "split it in the same run; the CoNLL 2018 script matches sentences by their "
              "characters, so the treebanks' tokenisations do not count."
            + (" Each splitter finds the same sentences in UD's form and joined: a wrapped "
               "line reads to each as a space." if same else "")
            + f" From `metrics/{WSJ_FILE}` (`python -m lab.wsj_sentences PIPELINE... --udpipe "
              "MODEL`).")


WSJ_READINGS = {"ud": "UD's form", "joined": "joined", "lowercase": "lower case",
                "unpunctuated": "no punctuation"}
