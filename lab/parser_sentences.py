"""Sentences where the senter is sure, the parser deciding the rest: a
pipeline trained on documents (`gold_preproc = false`, so that its parser
learned where sentences end; its tok2vec reading a paragraph whole,
spacy.Tok2Vec.v2) on a split's raw text in UD's form, one Doc per paragraph as
`spacy-elstm score --raw` reads it, scored by the CoNLL 2018 script, with its
sentences set
- `senter`: by elstm_senter alone, as a shipped pipeline sets them;
- `parser`: by the parser alone (the senter left out);
- `LO:HI`: by the senter where its end probability after a word is above HI
  (a sentence ends there) or below LO (none does), by the parser in between.

The senter's probability is the mean it compares with `end_threshold`: each
band is read as two runs of the senter, one with HI as the threshold and one
with LO. Does a parser that sees the words' syntax tell the ambiguous marks
(Uyghur's `،`, Coptic's `·`) better than the senter does?

    python -m lab.parser_sentences PIPELINE --treebank assets/UD_<Name> --output ... [--bands 0.2:0.8 0.1:0.9]
"""
import argparse
import json
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy
import spacy
import torch
from spacy.attrs import SENT_START
from spacy.tokens import Doc

from spacy_elstm.files import write_json
from spacy_elstm.text.input_modes import make_docs, text_units
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import joined, load_scorer, official_scores, write_raw_conllu
from spacy_elstm.treebanks.ud_folder import find_treebank

from .tokenizers import SCRIPT

SENTER = "elstm_senter"
METRICS = ("Sentences", "Words", "UPOS", "UAS", "LAS")


def band(text: str) -> Tuple[float, float]:
    """LO:HI, 0 < LO <= HI < 1."""
    lo, _, hi = text.partition(":")
    found = float(lo), float(hi)
    if not 0.0 < found[0] <= found[1] < 1.0:
        raise argparse.ArgumentTypeError(f"a band is LO:HI with 0 < LO <= HI < 1, got {text!r}")
    return found


def thresholds(senter, value: float) -> None:
    """Set the end threshold of the senter and of its models of text without
    punctuation (which share the config's)."""
    for models in (senter, senter.unpunctuated):
        if models is not None:
            models.end_threshold = value


def starts(nlp, texts: List[str], value: float) -> List[numpy.ndarray]:
    """Each text's SENT_START (1 or -1 per token) as the senter sets it with
    `value` as its end threshold."""
    senter = nlp.get_pipe(SENTER)
    kept = senter.end_threshold
    thresholds(senter, value)
    docs = senter.pipe(make_docs(nlp, texts, "raw", nlp.batch_size))
    found = [doc.to_array([SENT_START]).astype("int64") for doc in docs]
    thresholds(senter, kept)
    return found


def banded(nlp, texts: List[str], lo: float, hi: float) -> List[Doc]:
    """The texts' Docs with a start where the senter is sure of one (above
    `hi`), none where it is sure of none (not above `lo`), unset in between."""
    sure, maybe = starts(nlp, texts, hi), starts(nlp, texts, lo)
    docs = list(make_docs(nlp, texts, "raw", nlp.batch_size))
    for doc, high, low in zip(docs, sure, maybe):
        values = numpy.where(high == 1, 1, numpy.where(low == 1, 0, -1))
        values[0] = 1
        doc.from_array([SENT_START], values.astype("uint64").reshape(-1, 1))
    return docs


def parsed(nlp, docs, skip_senter: bool) -> List[Doc]:
    """The Docs through every component after the tokenizer (the senter too
    unless `skip_senter`)."""
    for name, component in nlp.pipeline:
        if name == SENTER and skip_senter:
            continue
        docs = component.pipe(docs, batch_size=nlp.batch_size)
    return list(docs)


def measure(nlp, documents, mode: str, scorer, gold: Path,
            sure: Optional[Tuple[float, float]] = None) -> Dict[str, Any]:
    pieces = [(k, piece) for k, document in enumerate(documents)
              for piece in text_units(document.text, "paragraph")]
    texts = [p for _, p in pieces]
    if sure is not None:
        docs = parsed(nlp, banded(nlp, texts, *sure), skip_senter=True)
    else:
        docs = parsed(nlp, make_docs(nlp, texts, "raw", nlp.batch_size),
                      skip_senter=mode == "parser")
    groups: List[List[Doc]] = [[] for _ in documents]
    for (k, _), doc in zip(pieces, docs):
        groups[k].append(doc)
    with tempfile.TemporaryDirectory() as temp:
        system = Path(temp) / "system.conllu"
        write_raw_conllu(system, [joined(nlp.vocab, g) for g in groups], documents)
        scores = official_scores(scorer, gold, system)
    return {"sentences": mode, **{m: round(100 * scores[m].f1, 2) for m in METRICS}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline", type=Path, help="a pipeline trained on documents")
    parser.add_argument("--treebank", type=Path, required=True)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--bands", type=band, nargs="*", default=[(0.2, 0.8), (0.1, 0.9)])
    parser.add_argument("--scorer", type=Path, default=SCRIPT)
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.split == "test":
        raise SystemExit("--split test: a study of levers reads dev.")
    torch.set_num_threads(1)
    nlp = spacy.load(args.pipeline)
    if SENTER not in nlp.pipe_names or "parser" not in nlp.pipe_names:
        raise SystemExit(f"{args.pipeline}: needs an {SENTER} and a parser.")
    if not nlp.get_pipe(SENTER).reads_words():
        raise SystemExit(f"{args.pipeline}: its {SENTER} has no word-level model; "
                         "end_threshold applies to the two models' mean.")
    treebank = find_treebank(args.treebank)
    gold = treebank.files[args.split]
    documents = raw_documents(gold, "ud", treebank.code)
    scorer = load_scorer(args.scorer)
    rows = [measure(nlp, documents, "senter", scorer, gold),
            measure(nlp, documents, "parser", scorer, gold)]
    rows += [measure(nlp, documents, f"{lo}:{hi}", scorer, gold, (lo, hi))
             for lo, hi in args.bands]
    for row in rows:
        print(json.dumps(row), flush=True)
    write_json(args.output, {"treebank": treebank.name, "split": args.split, "text_form": "ud",
                             "pipeline": args.pipeline.as_posix(), "rows": rows})
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
