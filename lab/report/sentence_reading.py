"""How the raw pipelines read a text (docs/results/ud.md): the tok2vec a
paragraph whole or sentence by sentence (`python -m lab.sentence_tok2vec`), and
one Doc per paragraph or per document (`spacy-elstm score --raw --text-unit`)."""
from pathlib import Path
from typing import Optional

from .common import read_json, table
from .studies import seeds_of
from .ud import FORM_NAMES

SENTENCE_TOK2VEC_FILE = "tokenizers/sentence-tok2vec.json"  # python -m lab.sentence_tok2vec
METRICS = ("Sentences", "UPOS", "Lemmas", "UAS", "LAS")


def sentence_tok2vec_section(metrics: Path) -> Optional[str]:
    """Each pipeline's scores with either reading, and per config the mean change;
    None before `python -m lab.sentence_tok2vec` ran."""
    data = read_json(metrics / SENTENCE_TOK2VEC_FILE)
    if data is None or not data["rows"]:
        return None
    rows = [[f"`{r['pipeline']}`", r["reading"]] + [f"{r[m]:.2f}" for m in METRICS]
            for r in data["rows"]]
    counts = {}
    for r in data["rows"]:
        counts.setdefault(r["config"], set()).add(r["pipeline"])
    changes = [[config, str(len(counts[config]))] + [f"{change[m]:+.2f}" for m in METRICS]
               for config, change in data["mean_change"].items()]
    form = FORM_NAMES.get(data["text_form"], data["text_form"])
    readings = data["readings"]
    return (table(["pipeline", "tok2vec reads"] + [f"{data['split']} {m}" for m in METRICS],
                  rows)
            + "\n\n" + table(["config", "pipelines"] + [f"mean change, {m}" for m in METRICS],
                             changes)
            + f"\n\nThe same trained weights, read two ways on EWT {data['split']} in {form}: the "
              f"tok2vec as `{readings['paragraph']}`, its encoder reading each paragraph as one "
              f"sequence, and as `{readings['sentence']}`, each sentence `elstm_senter` set as "
              "its own sequence, as the encoder trained (one gold sentence per Doc). The "
              "official script over the pipeline's own tokens and sentences (which the "
              "reading does not change). `configs/raw/` read sentence by sentence; a pipeline "
              "saved before loads so with `spacy.load(path, config={\"components.tok2vec.model."
              f"@architectures\": \"{readings['sentence']}\"}})` (docs/raw-text.md). "
              f"From `metrics/{SENTENCE_TOK2VEC_FILE}` (`python -m lab.sentence_tok2vec "
              "PIPELINE...`).")


TEXT_UNIT_STUDY, TEXT_UNIT_CONFIG = "raw-ud-10000steps", "best_elstm"
UNIT_METRICS = ("Sentences", "UPOS", "LAS")


def text_units_section(metrics: Path) -> Optional[str]:
    """Each seed's dev scores with one Doc per paragraph and per document, and
    the mean change; None before `score --raw --text-unit file` wrote any."""
    rows, changes = [], {m: [] for m in UNIT_METRICS}
    for folder in seeds_of(metrics, TEXT_UNIT_STUDY):
        paragraph = read_json(folder / f"{TEXT_UNIT_CONFIG}-dev.raw.json")
        document = read_json(folder / f"{TEXT_UNIT_CONFIG}-dev.raw-file.json")
        if paragraph is None or document is None:
            continue
        for unit, found in (("paragraph", paragraph), ("document", document)):
            rows.append([f"`{folder.name}/{TEXT_UNIT_CONFIG}`", unit]
                        + [f"{found[m]:.2f}" for m in UNIT_METRICS])
        for m in UNIT_METRICS:
            changes[m].append(document[m] - paragraph[m])
    if not rows:
        return None
    n = len(changes["LAS"])
    mean = [f"{sum(v) / n:+.2f}" for v in changes.values()]
    return (table(["pipeline", "one Doc per"] + [f"dev {m}" for m in UNIT_METRICS], rows)
            + "\n\n" + table(["seeds"] + [f"mean change, document against paragraph, {m}"
                                         for m in UNIT_METRICS], [[str(n)] + mean])
            + "\n\nEWT dev in UD's text form, each gold document read as one Doc per "
              "paragraph (`spacy-elstm score --raw`, as `spacy-elstm parse` reads a .txt file by "
              "default) and as one Doc (`--text-unit file`): the senter then sees the "
              "paragraphs around each one. From `metrics/"
              f"{TEXT_UNIT_STUDY}[-seedN]/{TEXT_UNIT_CONFIG}-dev.raw{{,-file}}.json`.")
