"""The raw pipelines' tok2vec reading a paragraph whole or sentence by sentence
(docs/results/ud.md), from `python -m lab.sentence_tok2vec`."""
from pathlib import Path
from typing import Optional

from .common import read_json, table

SENTENCE_TOK2VEC_FILE = "tokenizers/sentence-tok2vec.json"  # python -m lab.sentence_tok2vec
METRICS = ("Sentences", "UPOS", "Lemmas", "UAS", "LAS")
FORMS = {"ud": "UD's text form", "joined": "sentences joined by spaces",
         "lines": "one sentence per line"}


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
    form = FORMS.get(data["text_form"], data["text_form"])
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
              "@architectures\": \"spacy-elstm.SentenceTok2Vec.v1\"})` (docs/raw-text.md). "
              f"From `metrics/{SENTENCE_TOK2VEC_FILE}` (`python -m lab.sentence_tok2vec "
              "PIPELINE...`).")
