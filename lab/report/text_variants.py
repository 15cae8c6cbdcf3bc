"""Raw text as users have it (docs/results/ud.md): the raw pipelines on EWT's
text with CRLF line ends, in lower case, without punctuation and both, each scored
against its rewritten gold (`spacy-elstm score --raw --text-variant`)."""
from pathlib import Path
from statistics import mean
from typing import Callable, Dict, List, Optional, Tuple

from spacy_elstm.treebanks.gold_variants import VARIANTS

from .common import read_json, table
from .headline import routing_line
from .studies import seeds_of, split_seed

# (study, config): the raw pipelines as they were (now experiments/raw/*_as_written),
# best_elstm with a tenth of the tagger's and parser's training sentences lower-cased
# (dev only), and with also a tenth without punctuation (raw/best_elstm and raw/cnn
# as they are)
RUNS = (("raw-ud-10000steps", "best_elstm"), ("raw-ud-10000steps", "cnn"),
        ("raw-lower-10000steps", "best_elstm_lower"),
        ("raw-text-variants-10000steps", "best_elstm_text_variants"),
        ("raw-text-variants-10000steps", "cnn_text_variants"))
METRICS = ("Tokens", "Sentences", "Words", "UPOS", "LAS")
VARIANT_NAMES = {"as-written": "as written", "crlf": "CRLF line ends",
                 "lowercase": "lower case", "unpunctuated": "no punctuation",
                 "lowercase-unpunctuated": "lower case, no punctuation"}


def score_file(config: str, split: str, variant: str) -> str:
    """The file `score --raw` writes for a variant (as written: the plain raw score)."""
    return f"{config}-{split}.raw{'' if variant == 'as-written' else '-' + variant}.json"


# raw/best_elstm and raw/cnn before their tagger and parser learned the text variants
# and after: (pipeline, (study, config) before, (study, config) after), seed for seed
ADOPTED = (("raw/best_elstm", ("raw-ud-10000steps", "best_elstm"),
            ("raw-text-variants-10000steps", "best_elstm_text_variants")),
           ("raw/cnn", ("raw-ud-10000steps", "cnn"),
            ("raw-text-variants-10000steps", "cnn_text_variants")))
ADOPTED_METRICS = ("UPOS", "LAS")


def _pairs(metrics: Path, before: Tuple[str, str], after: Tuple[str, str],
           file: Callable[[str], str]) -> List[Tuple[int, Dict, Dict]]:
    """(seed, scores before, scores after) of each seed both runs have the
    file of: ``file(config)`` names it."""
    (before_study, before_config), (after_study, after_config) = before, after
    afters = {split_seed(f.name)[1]: f for f in seeds_of(metrics, after_study)}
    out = []
    for old in seeds_of(metrics, before_study):
        seed = split_seed(old.name)[1]
        if seed in afters:
            found = (read_json(old / file(before_config)),
                     read_json(afters[seed] / file(after_config)))
            if None not in found:
                out.append((seed, *found))
    return out


def adopted_section(metrics: Path) -> Optional[str]:
    """Each pipeline before and after (ADOPTED): per split and text, each
    metric's mean over the seeds both have scored, and the mean change seed for
    seed; the gold-token score (`official`) beside the raw ones. None before
    any pair was scored."""
    rows: List[List[str]] = []
    # the pairs whose raw Tokens or Sentences differ: {(pipeline, seed): [split...]}
    differing: Dict[Tuple[str, int], List[str]] = {}
    for pipeline, before, after in ADOPTED:
        for split in ("dev", "test"):
            for variant in ("gold tokens",) + VARIANTS:
                seeds = _pairs(metrics, before, after,
                               lambda c: (f"{c}-{split}.official.json" if variant == "gold tokens"
                                          else score_file(c, split, variant)))
                if not seeds:
                    continue
                if variant == "as-written":
                    for seed, a, b in seeds:
                        if any(a[m] != b[m] for m in ("Tokens", "Sentences")):
                            differing.setdefault((pipeline, seed), []).append(split)
                pairs = [(a, b) for _, a, b in seeds]
                rows.append([f"`{pipeline}`", split, VARIANT_NAMES.get(variant, variant),
                             str(len(pairs))]
                            + [f"{mean(a[m] for a, _ in pairs):.2f} -> "
                               f"{mean(b[m] for _, b in pairs):.2f} "
                               f"({mean(b[m] - a[m] for a, b in pairs):+.2f})"
                               for m in ADOPTED_METRICS])
    if not rows:
        return None
    runs = "; ".join(f"`{pipeline}`: `{bs}/{b}` (`configs/experiments/{pipeline}_as_written.cfg`)"
                     f" -> `{as_}/{a}` (`configs/{pipeline}.cfg`)"
                     for pipeline, (bs, b), (as_, a) in ADOPTED)
    return (table(["pipeline", "split", "text", "seeds"] + list(ADOPTED_METRICS), rows)
            + "\n\nEach pipeline before and after its tagger, morphologizer, lemmatizer and "
              "parser learned a tenth of their sentences in lower case and a tenth without "
              f"punctuation ({runs}), seed for seed (each seed's senter and tokenizer the "
              "same, so the same sentences and tokens"
            + (", but for " + ", ".join(f"`{pipeline}` seed {seed} ({' and '.join(splits)})"
                                        for (pipeline, seed), splits in differing.items())
               + ", whose run before had a tokenizer or "
               "senter of its time: their Tokens or Sentences differ as written"
               if differing else "")
            + "), at most 10,000 steps "
              "(spaCy's patience stopped some sooner: each run's last step is in its study's "
              "section), mean over the seeds both were "
              "scored on; in brackets the mean change. `gold tokens`: the official script on "
              "the gold words and sentences (`NAME-SPLIT.official.json`); the other rows the "
              "raw text in UD's form as written and rewritten (`NAME-SPLIT.raw[-VARIANT].json`, "
              "`bash scripts/score_raw.sh`). Chosen on dev; test read once per seed after.")


# the peer (python -m lab.udpipe_peer run [--text-variant V]): one run per split and text
PEER_FILE = "udpipe1/udpipe1-{split}{suffix}.json"


def peer_rows(metrics: Path) -> List[List[str]]:
    """UDPipe 1's rows of the text-variants table: each split as written, then
    each variant it was run on, the change from as written in brackets."""
    rows: List[List[str]] = []
    for split in ("dev", "test"):
        written = read_json(metrics / PEER_FILE.format(split=split, suffix=""))
        for variant in VARIANTS[1:]:
            found = read_json(metrics / PEER_FILE.format(split=split, suffix=f".raw-{variant}"))
            if written is None or found is None:
                continue
            add_variant_rows(rows, "UDPipe 1", split, variant,
                             [(written["scores_f1"], found["scores_f1"])])
    return rows


def add_variant_rows(rows: List[List[str]], name: str, split: str, variant: str,
                     pairs: List[Tuple[Dict, Dict]]) -> None:
    """Append the row of `variant`, each metric's mean over `pairs` (scores as
    written, in the variant) and the mean change in brackets; first the
    as-written row where `rows` does not end with one of `name` and `split`."""
    if not rows or rows[-1][:2] != [name, split]:
        rows.append([name, split, VARIANT_NAMES["as-written"], str(len(pairs))]
                    + [f"{mean(a[m] for a, _ in pairs):.2f}" for m in METRICS])
    rows.append([name, split, VARIANT_NAMES[variant], str(len(pairs))]
                + [f"{mean(b[m] for _, b in pairs):.2f} "
                   f"({mean(b[m] - a[m] for a, b in pairs):+.2f})" for m in METRICS])


def text_variants_section(metrics: Path) -> Optional[str]:
    """Per config and split, each variant's mean over the seeds scored on it
    beside the same seeds as written, and the peer's runs on them; None before
    any variant was scored."""
    rows: List[List[str]] = []
    scored: List[Dict] = []  # every score read, for what routed their senters' Docs
    for study, config in RUNS:
        folders = seeds_of(metrics, study)
        for split in ("dev", "test"):
            found = {variant: [read_json(f / score_file(config, split, variant)) for f in folders]
                     for variant in VARIANTS}  # per variant, per seed (None: not scored)
            scored += [r for runs in found.values() for r in runs if r is not None]
            for variant in VARIANTS[1:]:
                pairs = [(a, b) for a, b in zip(found["as-written"], found[variant])
                         if a is not None and b is not None]
                if pairs:
                    add_variant_rows(rows, f"`{study}/{config}`", split, variant, pairs)
    peer = peer_rows(metrics)
    if not rows:
        return None
    return (table(["config", "split", "text", "seeds"] + list(METRICS), rows + peer)
            + "\n\nThe pipelines of `configs/raw/` (10,000 steps; `best_elstm_lower`: "
              "`raw/best_elstm` with a tenth of the tagger's, morphologizer's, lemmatizer's "
              "and parser's training sentences lower-cased, `--corpora.train.augmenter."
              "lower_level 0.1`, dev only; `*_text_variants`: a tenth lower-cased and a tenth "
              "without punctuation, as `configs/raw/best_elstm.cfg` and `configs/raw/cnn.cfg` "
              "are now) on EWT's raw text in UD's "
              "form as users may have it, each scored by the CoNLL 2018 script against its "
              "gold rewritten the same way (`spacy-elstm score MODEL GOLD --raw --text-variant "
              "crlf|lowercase|unpunctuated|lowercase-unpunctuated`; `treebanks/gold_variants.py`): "
              "CRLF line ends; every word in lower case (the lemmas as the treebank has them); "
              "every word tagged PUNCT removed, as speech transcripts come (a space in its "
              "place, its dependents on its head, a sentence of punctuation alone gone); both, "
              "as speech recognisers without a punctuation model write. In brackets: the "
              "change from the same seeds' text as written, the mean over them. From "
              "`metrics/STUDY[-seedN]/CONFIG-SPLIT.raw-VARIANT.json` (`bash scripts/score_raw.sh "
              "PIPELINE METRICS CONFIG`)."
            + (" UDPipe 1: the peer (\"A peer on the same raw text\" above, trained on the text "
               "as written only) on the same texts and golds, from "
               f"`metrics/{PEER_FILE.format(split='SPLIT', suffix='[.raw-VARIANT]')}` (`python "
               "-m lab.udpipe_peer run ... --text-variant VARIANT`)." if peer else "")
            + routing_line(scored, page=""))


UNPUNCTUATED_FILE = "tokenizers/senter-unpunctuated.json"  # python -m lab.senter_unpunctuated


def senter_unpunctuated_section(metrics: Path) -> Optional[str]:
    """Each senter's dev scores on the text as written and without punctuation;
    None before `python -m lab.senter_unpunctuated` ran."""
    data = read_json(metrics / UNPUNCTUATED_FILE)
    if data is None or not data["rows"]:
        return None
    rows = [[r["senter"], f"`{r['pipeline']}`"]
            + [f"{r[f'{m}_{v}']:.2f}" for m in ("Sentences", "LAS")
               for v in ("as-written", "unpunctuated")] for r in data["rows"]]
    return (table(["elstm_senter", "pipeline"]
                  + [f"{data['split']} {m}, {VARIANT_NAMES[v]}" for m in ("Sentences", "LAS")
                     for v in ("as-written", "unpunctuated")], rows)
            + f"\n\n`raw/best_elstm` pipelines whose `elstm_senter` differs, the rest the same, on "
              f"EWT {data['split']} in UD's text form as written and without punctuation "
              "(`score --raw --text-variant unpunctuated`). *First models*: the character and "
              "word models learned from the varied training text alone (as the pipelines "
              "shipped before); *both texts together*: the same models learning from it with "
              "a tenth of its documents stripped of punctuation (an ad hoc change, not kept: "
              "`training_text.varied_docs` stripping each document with probability 0.1 as "
              "`unpunctuated_docs` strips them all; the random layouts then fall otherwise, "
              "and seed 1's row above it draws them the same way without stripping); "
              "*second pair*: the first models as they were and a second pair learned from "
              "the same text without punctuation, which split every Doc that had no "
              "punctuation word (`unpunctuated = true`, as `configs/raw/` have it; the "
              "routing of these runs, before the one the next section measures). Each "
              "senter trained apart from its pipeline (`scripts/train_senter.py`, then "
              f"`--into ... --replace`). From `metrics/{UNPUNCTUATED_FILE}` (`python -m "
              "lab.senter_unpunctuated LABEL=PIPELINE...`).")


# python -m lab.senter_lower_case --pair PAIR ...
LOWER_CASE_FILE = "tokenizers/senter-lower-case-{pair}.json"
LOWER_CASE_VARIANTS = ("as-written", "lowercase", "unpunctuated", "lowercase-unpunctuated")


def senter_lower_case_section(metrics: Path) -> Optional[str]:
    """Senters whose pairs saw more of their training text in lower case, on
    dev as written and in lower case; None before `lab.senter_lower_case` ran."""
    rows = []
    for pair in ("first", "unpunctuated"):
        data = read_json(metrics / LOWER_CASE_FILE.format(pair=pair))
        for r in (data or {"rows": []})["rows"]:
            rows.append([pair, f"{r['lower_case_share']:g}", str(r["seed"])]
                        + [f"{r[f'{m}_{v}']:.2f}" if f"{m}_{v}" in r else "-"
                           for m in ("Sentences", "LAS") for v in LOWER_CASE_VARIANTS])
    if not rows:
        return None
    return (table(["pair", "lower-case share", "seed"]
                  + [f"dev {m}, {VARIANT_NAMES[v]}" for m in ("Sentences", "LAS")
                     for v in LOWER_CASE_VARIANTS], rows)
            + "\n\n`raw/best_elstm` (10,000 steps) with its `elstm_senter` trained again "
              "(`scripts/train_senter.py`, then `--into ... --replace`) where one pair of its "
              "models saw a larger share of its training documents in lower case "
              "(`text/training_text.py`: `LOWER_CASE` for the *first* pair, which splits text "
              "with punctuation; `UNPUNCTUATED_LOWER_CASE` for the *unpunctuated* pair, which "
              "splits Docs without any); the package's share is the pipeline as shipped. "
              "Each on EWT dev in UD's text form as written and in that pair's lower-case "
              "variant (`score --raw --text-variant`), by the CoNLL 2018 script. From "
              "`metrics/tokenizers/senter-lower-case-PAIR.json` (`python -m "
              "lab.senter_lower_case --pair PAIR --shares ...`).")


ROUTING_FILE = "tokenizers/senter-routing.json"  # python -m lab.senter_routing
ROUTING_TEXTS = {"dev_as-written": "dev, as written", "dev_unpunctuated": "dev, no punctuation",
                 "test_as-written": "test, as written",
                 "test_unpunctuated": "test, no punctuation",
                 "wsj_unpunctuated": "WSJ sample, no punctuation"}


def routing_section(metrics: Path) -> Optional[str]:
    """The same senters routing Docs to their second pair by either rule, and
    the mean change; None before `python -m lab.senter_routing` ran."""
    data = read_json(metrics / ROUTING_FILE)
    if data is None or not data["rows"]:
        return None
    first, shipped = data["rules"][0], data["rules"][-1]
    # the scores of each text, as the study wrote them (the WSJ sample: Sentences alone)
    scores = {t: [m for m in ("Sentences", "LAS") if m in data["rows"][0][t]]
              for t in ROUTING_TEXTS}
    rows = [[f"`{r['pipeline']}`", r["routing"]]
            + [" / ".join(f"{r[t][m]:.2f}" for m in scores[t]) for t in ROUTING_TEXTS]
            for r in data["rows"]]
    pairs = [(a, b) for a in data["rows"] for b in data["rows"]
             if a["pipeline"] == b["pipeline"] and a["routing"] == first
             and b["routing"] == shipped]
    changes = "; ".join(
        f"{name} " + ", ".join(f"{m} {mean(b[t][m] - a[t][m] for a, b in pairs):+.2f}"
                               for m in scores[t])
        for t, name in ROUTING_TEXTS.items())
    return (table(["pipeline", "routing"] + [f"{name} ({' / '.join(scores[t])})"
                                             for t, name in ROUTING_TEXTS.items()], rows)
            + "\n\nThe senter's second pair of models splits the Docs it takes for text "
              "without punctuation. Routed by *any punctuation word* (as pipelines did "
              "before), a Doc with one word of punctuation characters alone went to the "
              "models of punctuated text: a hyphen inside a word (`long-term` is three "
              "words), a slash, a percent sign or an emoticon was enough, and almost every "
              "news article has one. Routed by *sentence marks* (as `text/punctuation.py` "
              "routes now), only a word that ends or divides a sentence counts: . ! ? , ; : … "
              "alone, a dash, a rule of hyphens or underscores (chosen on EWT dev, in scratch "
              "runs not kept, over a rule without the dash and the rule, which set off e-mail "
              "signatures, and one counting every punctuation word but a symbol or a hyphen "
              "inside a word; test and the WSJ sample were read after). The same pipelines in the "
              "same run: EWT as `spacy-elstm score --raw` reads it (UD's text form, one Doc per "
              "paragraph; `--text-variant unpunctuated`: every word tagged PUNCT removed), and "
              "the WSJ sample without punctuation (one Doc per article, the tokenizer and "
              f"senter alone; [the WSJ sample](#sentences-in-text-none-of-them-was-tuned-for-"
              f"the-wsj-sample)). Mean change over {len(pairs)} pipelines: {changes}. From "
              f"`metrics/{ROUTING_FILE}` (`python -m lab.senter_routing PIPELINE...`).")
