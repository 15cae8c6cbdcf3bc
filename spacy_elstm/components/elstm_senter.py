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
from typing import Callable, Iterable, Iterator, List, Optional, Union

import numpy
from spacy.attrs import IDX, IS_SPACE, LENGTH, SENT_START
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import ensure_path

from ..text.paragraphs import paragraph_breaks
from ..text.segmenter import (DEFAULTS, LEARN_DOC, SENTENCE_END, SETTINGS_DOC,
                              WINDOWS_PER_CALL, Segmenter)

FACTORY = "elstm_senter"


# the longest sentence of UD English-EWT's training split, in words
LONGEST_SENTENCE = 159


@Language.factory(FACTORY, default_config={**DEFAULTS, "max_sentence_words": LONGEST_SENTENCE},
                  assigns=["token.is_sent_start"])
def make_elstm_senter(nlp: Language, name: str, char_width: int, width: int, depth: int,
                      cell: str, period: int, dropout: float, window: int,
                      max_sentence_words: int) -> "ELSTMSenter":
    """A sentence splitter learned from the training data's characters.

    max_sentence_words (int): the longest sentence, in words (0: no limit); a
        longer one is split at its most probable sentence end within that many
        words, again until every piece fits (text without punctuation, as
        transcripts are, otherwise becomes one sentence of any length).
    """
    if not isinstance(max_sentence_words, int) or max_sentence_words < 0:
        raise ValueError(f"[components.{name}] max_sentence_words must be an integer >= 0 "
                         f"(0: no limit), got {max_sentence_words!r}.")
    settings = dict(char_width=char_width, width=width, depth=depth, cell=cell, period=period,
                    dropout=dropout)
    return ELSTMSenter(name, Segmenter(settings, window, f"{FACTORY} ({name})"),
                       max_sentence_words)


make_elstm_senter.__doc__ += "\n" + SETTINGS_DOC


class ELSTMSenter:
    def __init__(self, name: str, segmenter: Segmenter, max_sentence_words: int = 0):
        self.name = name
        self.segmenter = segmenter
        self.max_sentence_words = max_sentence_words

    def __call__(self, doc: Doc) -> Doc:
        if self._splits(doc):
            text = doc.text
            self._set_starts(doc, text, *self.segmenter.read([text])[0])
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int = 128) -> Iterable[Doc]:
        """As ``__call__`` on each Doc, the characters of Docs read together,
        as many Docs as fill the windows of one call of the model (the same
        recurrent steps for more windows; `batch_size` is not needed)."""
        for batch in by_characters(docs, WINDOWS_PER_CALL * self.segmenter.window):
            todo = [doc for doc in batch if self._splits(doc)]
            texts = [doc.text for doc in todo]
            for doc, text, (label, ends) in zip(todo, texts, self.segmenter.read(texts)):
                self._set_starts(doc, text, label, ends)
            yield from batch

    @staticmethod
    def _splits(doc: Doc) -> bool:
        """Whether the Doc needs its sentences: not empty, and not every start given
        (as gold sentences are)."""
        return bool(len(doc)) and not doc.has_annotation("SENT_START", require_complete=True)

    def _set_starts(self, doc: Doc, text: str, label: numpy.ndarray,
                    ends: numpy.ndarray) -> None:
        """Every token's sentence start, found with array operations over the
        Doc's words and set in one (spaCy's per-token setter checks the whole
        Doc each time: quadratic in its length). A word starts a sentence where
        the segmenter ends one at the last character of the word before it, or
        where a blank line comes between them; whitespace tokens never start one."""
        starts = numpy.full(len(doc), -1, dtype="int64")  # SENT_START: 1 yes, -1 no
        starts[0] = 1
        idx, length, space = doc.to_array([IDX, LENGTH, IS_SPACE]).astype("int64").T
        words = numpy.flatnonzero(space == 0)
        if len(words):
            last = idx[words] + length[words] - 1  # each word's last character
            breaks = paragraph_breaks(text)
            paragraph = (numpy.searchsorted(breaks, idx[words[1:]])
                         > numpy.searchsorted(breaks, last[:-1] + 1))  # a blank line between
            ended = label[last[:-1]] == SENTENCE_END
            word_starts = numpy.concatenate([[True], paragraph | ended])
            if self.max_sentence_words and len(words) > self.max_sentence_words:
                boundary = numpy.concatenate([[1.0], numpy.where(paragraph, 1.0,
                                                                 ends[last[:-1]])])
                word_starts = split_long_sentences(word_starts, boundary,
                                                   self.max_sentence_words)
            starts[words] = numpy.where(word_starts, 1, -1)
        doc.from_array([SENT_START], starts.astype("uint64").reshape(-1, 1))

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None, epochs: int = 6, batch_size: int = 32,
                   learn_rate: float = 0.002, seed: int = 0,
                   treebank: Optional[Union[str, Path]] = None,
                   training_text: str = "varied") -> None:
        vocab = nlp.vocab if nlp is not None else None
        self.segmenter.learn(get_examples, treebank, vocab, epochs=epochs,
                             batch_size=batch_size, learn_rate=learn_rate, seed=seed,
                             training_text=training_text)

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


def split_long_sentences(starts: numpy.ndarray, boundary: numpy.ndarray,
                         longest: int) -> numpy.ndarray:
    """Sentence starts (bool, per word) with every sentence of more than
    `longest` words split at its most probable boundary (`boundary[k]`: the
    probability that a sentence ends before word k) among its first `longest`
    words (of equal ones, the last), again from there until every piece fits."""
    starts = starts.copy()
    first = numpy.flatnonzero(starts).tolist() + [len(starts)]
    for begin, end in zip(first, first[1:]):
        while end - begin > longest:
            window = boundary[begin + 1:begin + longest + 1]
            # the most probable boundary; of equals, the last (the longest piece)
            cut = begin + len(window) - int(numpy.argmax(window[::-1]))
            starts[cut] = True
            begin = cut
    return starts


def by_characters(docs: Iterable[Doc], characters: int) -> Iterator[List[Doc]]:
    """The Docs in batches of about `characters` characters (a batch ends with
    the Doc that reaches it)."""
    batch: List[Doc] = []
    held = 0
    for doc in docs:
        batch.append(doc)
        held += doc[-1].idx + len(doc[-1]) if len(doc) else 0
        if held >= characters:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch
