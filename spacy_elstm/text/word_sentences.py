"""The word-level view of sentence ends, as `elstm_senter` uses it beside the
character model: a Doc's words become features (the word lower-cased, its
shape, the whitespace after it), the model (`pytorch/word_sentences.py`)
gives each word the probability that a sentence ends after it, and the two
views' probabilities are averaged. The character model reads a word's last
characters and the space after it; this one reads which words come before and
after, which finds the sentences that end without punctuation ("Thanks John",
"great service highly recommend").

It is trained on the same Docs as the character model, when the pipeline is
initialised. A Doc is read in windows of WINDOW words, each with CONTEXT words
on either side, so memory stays bounded however long the Doc is.
"""
import unicodedata
from collections import Counter
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy
import srsly
import torch
from spacy.tokens import Doc

from .learning import fit, load_weights, seen_twice, weights_to_bytes
from .paragraphs import ends_paragraph
from ..pytorch.mode import training_mode
from ..pytorch.word_sentences import WordSentenceModel

WORD_WIDTH = 64  # each word's embedding
WINDOW, CONTEXT = 200, 25  # words read as one sequence, and read around it
WINDOWS_PER_CALL = 64
UNKNOWN = 1  # id of a word seen fewer than twice in training (0: unused)
SPACES, LINE_BREAK, BLANK_LINE, TEXT_END = 2, 3, 4, 5  # the gaps after a word; 1: none


class WordSentences:
    """The word-level model and its word table; untrained until `train`.
    settings: width, depth, cell, period, dropout (as the character model's)."""

    def __init__(self, settings: Dict, owner: str):
        self.settings = dict(settings)
        self.owner = owner
        self.words: Dict[str, int] = {}
        self.model: Optional[WordSentenceModel] = None
        self.learned: Dict[str, object] = {}

    def _new_model(self) -> WordSentenceModel:
        return WordSentenceModel(n_words=len(self.words) + 2, word_width=WORD_WIDTH,
                                 **self.settings)

    def features(self, doc: Doc) -> Tuple[List[int], numpy.ndarray]:
        """The Doc's words (token indices, whitespace tokens left out) and their
        features, (3, n_words) int64: word id, shape, the gap after it."""
        text = doc.text
        words = [t for t in doc if not t.text.isspace()]
        found = numpy.zeros((3, len(words)), dtype="int64")
        for k, token in enumerate(words):
            found[0, k] = self.words.get(token.text.lower(), UNKNOWN)
            found[1, k] = word_shape(token.text)
            if k + 1 < len(words):
                found[2, k] = gap(text[token.idx + len(token.text):words[k + 1].idx])
            else:
                found[2, k] = TEXT_END
        return [t.i for t in words], found

    def end_probabilities(self, docs: Sequence[Doc]) -> List[numpy.ndarray]:
        """Per Doc, per word (as `features` lists them), the probability
        (float32) that a sentence ends after it; the windows of all the Docs
        read together, WINDOWS_PER_CALL at a time."""
        if self.model is None:
            raise ValueError(f"{self.owner}: the word-level model is not trained.")
        feats = [self.features(doc)[1] for doc in docs]
        # (doc, read from, read to, keep from, keep to)
        pieces = [(i, max(0, a - CONTEXT), min(f.shape[1], a + WINDOW + CONTEXT), a,
                   min(f.shape[1], a + WINDOW))
                  for i, f in enumerate(feats) for a in range(0, f.shape[1], WINDOW)]
        found = [numpy.zeros(f.shape[1], dtype="float32") for f in feats]
        for k in range(0, len(pieces), WINDOWS_PER_CALL):
            chunk = pieces[k:k + WINDOWS_PER_CALL]
            x = torch.from_numpy(numpy.concatenate([feats[i][:, a:b] for i, a, b, _, _ in chunk],
                                                   axis=1))
            lengths = torch.tensor([b - a for _, a, b, _, _ in chunk], dtype=torch.long)
            with torch.no_grad(), training_mode(False):
                p = torch.sigmoid(self.model(x[0], x[1], x[2], lengths)).numpy()
            start = 0
            for i, a, b, keep_a, keep_b in chunk:
                found[i][keep_a:keep_b] = p[start + keep_a - a:start + keep_b - a]
                start += b - a
        return found

    def train(self, references: Union[Sequence[Doc], Callable[[int], Sequence[Doc]]], *,
              epochs: int, batch_size: int, learn_rate: float, seed: int,
              score: Optional[Callable[[], float]] = None) -> None:
        """Train on gold Docs (their words and sentence starts), the same each
        epoch or each epoch's from a function of it (from 1), as the character
        model does; `score` as `learning.fit` takes it."""
        if not isinstance(epochs, int) or isinstance(epochs, bool) or epochs < 1:
            raise ValueError(f"{self.owner}: word_epochs must be an integer >= 1, "
                             f"got {epochs!r}.")
        docs_of = references if callable(references) else (lambda epoch: references)
        first = docs_of(1)
        self.words = seen_twice(Counter(t.text.lower() for doc in first for t in doc
                                        if not t.text.isspace()))
        torch.manual_seed(seed)
        self.model = self._new_model()

        def examples(docs: Sequence[Doc]) -> List:
            data = []
            for doc in docs:
                index, feats = self.features(doc)
                # a word ends a sentence where the next word starts one, and at the end
                ends = numpy.array([bool(doc[j].is_sent_start) for j in index[1:]] + [True],
                                   dtype="float32")
                for a in range(0, len(index), WINDOW):
                    data.append((torch.from_numpy(feats[:, a:a + WINDOW]),
                                 torch.from_numpy(ends[a:a + WINDOW])))
            return data

        data = examples(first)

        def data_of(epoch: int) -> List:  # the same Docs give the same (reshuffled) list
            docs = docs_of(epoch)
            return data if docs is first else examples(docs)

        def batch_loss(batch) -> torch.Tensor:
            x = torch.cat([b[0] for b in batch], dim=1)
            lengths = torch.tensor([b[0].shape[1] for b in batch], dtype=torch.long)
            logits = self.model(x[0], x[1], x[2], lengths)
            return torch.nn.functional.binary_cross_entropy_with_logits(
                logits, torch.cat([b[1] for b in batch]))

        fitted = fit(self.model, data_of, batch_loss, epochs=epochs, batch_size=batch_size,
                     learn_rate=learn_rate, seed=seed, label=f"{self.owner}, words", score=score)
        self.learned = {"windows": len(data), "words": len(self.words), "epochs": epochs,
                        "loss": fitted.losses, "seconds": fitted.seconds}
        if score is not None:
            self.learned.update(scores=fitted.scores, kept_epoch=fitted.epoch)

    def to_bytes(self) -> bytes:
        return srsly.msgpack_dumps({"settings": self.settings, "words": self.words,
                                    "learned": self.learned,
                                    "weights": weights_to_bytes(self.model)})

    def from_bytes(self, data: bytes) -> "WordSentences":
        msg = srsly.msgpack_loads(data)
        self.settings, self.words, self.learned = msg["settings"], msg["words"], msg["learned"]
        self.model = load_weights(self._new_model(), msg["weights"])
        return self


def word_shape(word: str) -> int:
    """1 Capitalised, 2 UPPER, 3 lower, 4 digit, 5 punctuation, 6 anything else."""
    first = word[0]
    if first.isupper():
        return 2 if len(word) > 1 and word.isupper() else 1
    if first.islower():
        return 3
    if first.isdigit():
        return 4
    return 5 if unicodedata.category(first).startswith("P") else 6


def gap(whitespace: str) -> int:
    """The kind of whitespace between two words."""
    if not whitespace:
        return 1
    if ends_paragraph(whitespace):
        return BLANK_LINE
    if "\n" in whitespace or "\r" in whitespace:
        return LINE_BREAK
    return SPACES
