"""`elstm_senter`: a sentence splitter that reads the text's characters with the
character-level segmenter (`text/segmenter.py`), trained on the treebank when the
pipeline is initialised and saved inside it; it keeps whatever tokenizer the
pipeline has. It sets every token's sentence start (a word starts a sentence
where the segmenter ends one at the last character before it, or where a blank
line comes before it), and spaCy's parser keeps those starts. A Doc that
comes with every sentence start set (gold sentences, as `spacy-elstm score`
gives them without `--raw`) keeps its own.

It has no `update`: `spacy train` trains it once, in `initialize`, and leaves
it as it is while the other components train.
"""
from pathlib import Path
from typing import Callable, Iterable, List, Optional, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import ensure_path, minibatch

from ..text.paragraphs import ends_paragraph
from ..text.segmenter import DEFAULTS, LEARN_DOC, SENTENCE_END, SETTINGS_DOC, Segmenter

FACTORY = "elstm_senter"


@Language.factory(FACTORY, default_config=DEFAULTS, assigns=["token.is_sent_start"])
def make_elstm_senter(nlp: Language, name: str, char_width: int, width: int, depth: int,
                      cell: str, period: int, dropout: float, window: int) -> "ELSTMSenter":
    """A sentence splitter learned from the training data's characters."""
    settings = dict(char_width=char_width, width=width, depth=depth, cell=cell, period=period,
                    dropout=dropout)
    return ELSTMSenter(name, Segmenter(settings, window, f"{FACTORY} ({name})"))


make_elstm_senter.__doc__ += "\n\n" + SETTINGS_DOC


class ELSTMSenter:
    def __init__(self, name: str, segmenter: Segmenter):
        self.name = name
        self.segmenter = segmenter

    def __call__(self, doc: Doc) -> Doc:
        if self._splits(doc):
            self._set_starts(doc, self.segmenter.labels(doc.text))
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int = 128) -> Iterable[Doc]:
        """As ``__call__`` on each Doc, the characters of a batch's Docs read
        together."""
        for batch in minibatch(docs, size=batch_size):
            todo = [doc for doc in batch if self._splits(doc)]
            for doc, label in zip(todo, self.segmenter.labels_of([d.text for d in todo])):
                self._set_starts(doc, label)
            yield from batch

    @staticmethod
    def _splits(doc: Doc) -> bool:
        """Whether the Doc needs its sentences: not empty, and not every start given
        (as gold sentences are)."""
        return bool(len(doc)) and not all(t.is_sent_start is not None for t in doc[1:])

    @staticmethod
    def _set_starts(doc: Doc, label: List[int]) -> None:
        text = doc.text
        previous_end = None  # the index in the text of the last character of the last word
        for token in doc:
            if token.is_space:
                if token.i:
                    token.is_sent_start = False
                continue
            if token.i and previous_end is not None:
                between = text[previous_end + 1:token.idx]
                token.is_sent_start = (label[previous_end] == SENTENCE_END
                                       or ends_paragraph(between))
            elif token.i:  # words before it are whitespace only
                token.is_sent_start = True
            previous_end = token.idx + len(token.text) - 1

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None, epochs: int = 6, batch_size: int = 32,
                   learn_rate: float = 0.002, seed: int = 0,
                   treebank: Optional[Union[str, Path]] = None) -> None:
        vocab = nlp.vocab if nlp is not None else None
        self.segmenter.learn(get_examples, treebank, vocab, epochs=epochs,
                             batch_size=batch_size, learn_rate=learn_rate, seed=seed)

    initialize.__doc__ = ("Train the segmenter on the training text's sentences (and words: "
                          "it learns them too, which helps it find sentence ends).\n\n"
                          + LEARN_DOC)

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        return self.segmenter.to_bytes()

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = tuple()) -> "ELSTMSenter":
        self.segmenter.from_bytes(data)
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        path = ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / "segmenter.bin").write_bytes(self.to_bytes())

    def from_disk(self, path: Union[str, Path], *,
                  exclude: Iterable[str] = tuple()) -> "ELSTMSenter":
        return self.from_bytes((ensure_path(path) / "segmenter.bin").read_bytes())
