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
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Tuple

import numpy
import spacy
import torch
from spacy.attrs import SENT_START
from spacy.language import Language
from spacy.tokens import Doc

from spacy_elstm.files import write_json
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer, predict_raw
from spacy_elstm.treebanks.ud_folder import find_treebank

from .tokenizers import SCRIPT, official_f1

SENTER = "elstm_senter"
BANDED = "lab_banded_senter"  # the senter where sure, the rest left to the parser
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


def starts(senter, docs: List[Doc], value: float) -> List[numpy.ndarray]:
    """Each Doc's SENT_START (1 or -1 per token) as the senter sets it on a
    copy with `value` as its end threshold."""
    kept = senter.end_threshold
    thresholds(senter, value)
    found = [doc.to_array([SENT_START]).astype("int64")
             for doc in senter.pipe([doc.copy() for doc in docs])]
    thresholds(senter, kept)
    return found


def banded(senter, docs: List[Doc], lo: float, hi: float) -> List[Doc]:
    """The Docs with a start where the senter is sure of one (above `hi`),
    none where it is sure of none (not above `lo`), unset in between."""
    for doc, high, low in zip(docs, starts(senter, docs, hi), starts(senter, docs, lo)):
        values = numpy.where(high == 1, 1, numpy.where(low == 1, 0, -1))
        values[0] = 1
        doc.from_array([SENT_START], values.astype("uint64").reshape(-1, 1))
    return docs


class BandedSenter:
    """`banded` as a pipeline component, in the senter's place."""

    def __init__(self, senter, lo: float, hi: float):
        self.senter, self.lo, self.hi = senter, lo, hi

    def __call__(self, doc: Doc) -> Doc:
        return banded(self.senter, [doc], self.lo, self.hi)[0]

    def pipe(self, docs: Iterable[Doc], batch_size: int = 128) -> Iterator[Doc]:
        yield from banded(self.senter, list(docs), self.lo, self.hi)


@Language.factory(BANDED, default_config={"lo": 0.2, "hi": 0.8})
def make_banded_senter(nlp: Language, name: str, lo: float, hi: float) -> BandedSenter:
    return BandedSenter(nlp.get_pipe(SENTER), lo, hi)


def measure(nlp, documents, mode: str, scorer, gold: Path) -> Dict[str, Any]:
    """The official scores of the pipeline reading the documents as
    `spacy-elstm score --raw` does, its sentences set as `mode` says."""
    if mode == "senter":
        docs, _ = predict_raw(nlp, documents)
    elif mode == "parser":
        with nlp.select_pipes(disable=[SENTER]):
            docs, _ = predict_raw(nlp, documents)
    else:
        lo, hi = band(mode)
        nlp.add_pipe(BANDED, before=SENTER, config={"lo": lo, "hi": hi})
        try:
            with nlp.select_pipes(disable=[SENTER]):
                docs, _ = predict_raw(nlp, documents)
        finally:
            nlp.remove_pipe(BANDED)
    return {"sentences": mode, **official_f1(scorer, gold, docs, documents, METRICS)}


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
    rows += [measure(nlp, documents, f"{lo}:{hi}", scorer, gold) for lo, hi in args.bands]
    for row in rows:
        print(json.dumps(row), flush=True)
    write_json(args.output, {"treebank": treebank.name, "split": args.split, "text_form": "ud",
                             "pipeline": args.pipeline.as_posix(), "rows": rows})
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
