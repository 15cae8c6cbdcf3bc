"""Held-out text for choosing what the senter keeps: a converted corpus (EWT
dev, `${paths.dev}`) laid out in UD's text form (`training_text.ud_form_docs`:
lines wrapped at 80 characters, blank lines between paragraphs), and the F1 of
the sentences found in it, matched by their first and last characters as the
CoNLL 2018 script matches them."""
from pathlib import Path
from typing import List, Sequence, Set, Tuple, Union

from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab

from .training_text import ud_form_docs


def held_out_docs(path: Union[str, Path], vocab: Vocab, owner: str, seed: int) -> List[Doc]:
    """The gold Docs of the converted corpus at `path`, in UD's text form."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{owner}: dev = {str(path)!r} is not a file; give the converted "
                         "development corpus (a .spacy file), e.g. ${paths.dev}, or null to "
                         "keep the last epoch's weights.")
    docs = list(DocBin().from_disk(path).get_docs(vocab))
    laid_out = ud_form_docs(docs, seed)
    if not laid_out:
        raise ValueError(f"{owner}: dev = {str(path)!r} holds no sentences.")
    return laid_out


def sentence_spans(doc: Doc) -> Set[Tuple[int, int]]:
    """(first character, end) of each sentence's words: whitespace around them
    left out."""
    spans = set()
    for sent in doc.sents:
        words = [t for t in sent if not t.text.isspace()]
        if words:
            spans.add((words[0].idx, words[-1].idx + len(words[-1].text)))
    return spans


def sentence_f1(gold: Sequence[Doc], predicted: Sequence[Doc]) -> float:
    """F1 of the predicted Docs' sentences against the gold Docs' (the same
    texts, in order)."""
    found = expected = right = 0
    for g, p in zip(gold, predicted, strict=True):
        if g.text != p.text:
            raise ValueError("held-out scoring needs the gold Doc's own text.")
        gold_spans, spans = sentence_spans(g), sentence_spans(p)
        found, expected = found + len(spans), expected + len(gold_spans)
        right += len(gold_spans & spans)
    return 2 * right / (found + expected) if found + expected else 0.0
