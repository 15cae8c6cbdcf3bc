"""`elstm_lemma_lookup`: the training treebank's own lemma for a word it has
seen. spaCy's edit-tree lemmatizer predicts a lemma as an edit of the form,
learned across words; a word the training data has, with the part of speech
the tagger gave it, is looked up instead: the lemma the training data gives
that form with that UPOS most often, where it does so at least `min_count`
times and for at least `min_share` of the form's occurrences with that UPOS.
A form the training data lacks whose lower case it has with that UPOS (a
sentence's capitalised first word) takes the lower case's lemma. Words the
training data lacks, or gives lemmas too various to choose from out of
context, keep the lemmatizer's lemma.

Put it after the lemmatizer (and the tagger or morphologizer that sets UPOS).
It learns when the pipeline is initialised (`[initialize.components.
elstm_lemma_lookup]`: `treebank`, the converted training corpus, or the
training examples) and is saved in the pipeline; it has no weights to train.
"""
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, Optional, Tuple, Union

import srsly
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import ensure_path

from ..text.training_docs import treebank_docs

FACTORY = "elstm_lemma_lookup"


@Language.factory(FACTORY, default_config={"min_count": 1, "min_share": 0.9},
                  assigns=["token.lemma"], requires=["token.pos"])
def make_lemma_lookup(nlp: Language, name: str, min_count: int,
                      min_share: float) -> "LemmaLookup":
    """The training data's lemma of a seen (form, UPOS).

    min_count (int): the fewest times the training data must give a form with
        a UPOS its most frequent lemma for the lookup to keep it.
    min_share (float): the least share of the form's occurrences with the UPOS
        that lemma must have (0 < min_share <= 1; 1: only forms of one lemma).
    """
    if not isinstance(min_count, int) or isinstance(min_count, bool) or min_count < 1:
        raise ValueError(f"[components.{name}] min_count must be an integer >= 1, "
                         f"got {min_count!r}.")
    if (not isinstance(min_share, (int, float)) or isinstance(min_share, bool)
            or not 0 < min_share <= 1):
        raise ValueError(f"[components.{name}] min_share must be a number above 0 "
                         f"and at most 1, got {min_share!r}.")
    return LemmaLookup(name, min_count, float(min_share))


class LemmaLookup:
    """(form, UPOS) -> lemma, learned from a treebank's Docs."""

    def __init__(self, name: str = FACTORY, min_count: int = 1, min_share: float = 0.9):
        self.name = name
        self.min_count = min_count
        self.min_share = min_share
        self.table: Dict[Tuple[str, str], str] = {}

    def __call__(self, doc: Doc) -> Doc:
        table = self.table
        if table:
            for token in doc:
                lemma = table.get((token.text, token.pos_))
                if lemma is None and token.text != token.lower_:
                    lemma = table.get((token.lower_, token.pos_))
                if lemma is not None:
                    token.lemma_ = lemma
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int = 128) -> Iterator[Doc]:
        for doc in docs:
            yield self(doc)

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None,
                   treebank: Optional[Union[str, Path]] = None) -> None:
        """Learn the table from the training examples' reference Docs, or from
        `treebank` (a converted corpus, .spacy)."""
        vocab = nlp.vocab if nlp is not None else None
        docs = treebank_docs(get_examples, treebank, vocab,
                             f"[initialize.components.{self.name}]")
        self.table = learn_table(docs, self.min_count, self.min_share)

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        return srsly.msgpack_dumps({"min_count": self.min_count, "min_share": self.min_share,
                                    "table": [[f, p, lemma] for (f, p), lemma
                                              in sorted(self.table.items())]})

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = tuple()) -> "LemmaLookup":
        msg = srsly.msgpack_loads(data)
        self.min_count = msg["min_count"]
        # tables saved before min_share kept every most frequent lemma
        self.min_share = msg.get("min_share", 0.0)
        self.table = {(f, p): lemma for f, p, lemma in msg["table"]}
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        path = ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / "table.msgpack").write_bytes(self.to_bytes())

    def from_disk(self, path: Union[str, Path], *,
                  exclude: Iterable[str] = tuple()) -> "LemmaLookup":
        return self.from_bytes((ensure_path(path) / "table.msgpack").read_bytes())


def learn_table(docs: Iterable[Doc], min_count: int = 1,
                min_share: float = 0.9) -> Dict[Tuple[str, str], str]:
    """Each (form, UPOS) of the docs' words with a lemma -> its most frequent
    lemma, where that lemma occurs at least min_count times and is at least
    min_share of the lemmas the pair has."""
    counts: Dict[Tuple[str, str], Counter] = defaultdict(Counter)
    for doc in docs:
        for token in doc:
            if token.lemma_ and not token.is_space:
                counts[(token.text, token.pos_)][token.lemma_] += 1
    table = {}
    for key, lemmas in counts.items():
        lemma, count = lemmas.most_common(1)[0]
        if count >= min_count and count >= min_share * sum(lemmas.values()):
            table[key] = lemma
    return table
