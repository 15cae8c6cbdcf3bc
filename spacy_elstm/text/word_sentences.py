"""The word-level view of sentence ends, as `elstm_senter` uses it beside the
character model: a Doc's words become features (the word lower-cased, its
shape, the whitespace after it), the model (`pytorch/word_sentences.py`)
gives each word the probability that a sentence ends after it, and the two
views' probabilities are averaged. The character model reads a word's last
characters and the space after it; this one reads which words come before and
after, which finds the sentences that end without punctuation ("Thanks John",
"great service highly recommend"). With `suffix_chars` in its settings, each
word's last characters are a feature of their own too (a finite verb's ending
before a comma that ends a sentence, in a language whose words are each rare).

It is trained on the same Docs as the character model, when the pipeline is
initialised. A Doc is read in windows of WINDOW words, each with CONTEXT words
on either side, so memory stays bounded however long the Doc is. With `models`
above 1, that many models of as many seeds learn the same words, and a word's
probability is their mean (on a small treebank the word model's seed moves its
sentences by a point: `python -m lab.senter_ensemble`).
"""
import unicodedata
from collections import Counter
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy
import srsly
import torch
from spacy.attrs import IDX, LENGTH, ORTH, SPACY
from spacy.tokens import Doc

from .learning import (check_models, epoch_examples, fit, fit_others, load_weights,
                       seen_twice, weights_to_bytes)
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
    settings: width, depth, cell, period, dropout (as the character model's).
    models: how many models of different seeds `train` trains (their
    probabilities averaged); a saved one keeps its own."""

    def __init__(self, settings: Dict, owner: str, models: int = 1):
        self.settings = dict(settings)
        self.owner = owner
        self.models = check_models(models, "word_models", owner)
        self.words: Dict[str, int] = {}
        self.suffixes: Dict[str, int] = {}  # with suffix_chars: each ending's id
        self.model: Optional[WordSentenceModel] = None
        self.other_seeds: List[WordSentenceModel] = []  # averaged with `model`'s
        self.learned: Dict[str, object] = {}

    def _new_model(self) -> WordSentenceModel:
        extra = {"n_suffixes": len(self.suffixes) + 2} if self.reads_suffixes() else {}
        return WordSentenceModel(n_words=len(self.words) + 2, word_width=WORD_WIDTH,
                                 **self.settings, **extra)

    def features(self, doc: Doc) -> Tuple[List[int], numpy.ndarray]:
        """The Doc's words (token indices, whitespace tokens left out) and their
        features, (3, n_words) int64: word id, shape, the gap after it (and a
        fourth row, each word's ending, with suffix_chars)."""
        return self.features_of([doc])[0]

    def features_of(self, docs: Sequence[Doc], texts: Optional[Sequence[str]] = None,
                    ) -> List[Tuple[List[int], numpy.ndarray]]:
        """`features` of each Doc (Docs of one vocab), with array operations over their tokens:
        each distinct word is looked at once, and the whitespace between two
        words only where more than a single space or nothing comes between,
        read from `texts` where given (each Doc's text as the senter reads
        it, of the same length: `wrapping.unwrapped`)."""
        if not docs:
            return []
        arrays = [doc.to_array([ORTH, SPACY]).reshape(-1, 2) for doc in docs]  # uint64
        orths, inverse = numpy.unique(numpy.concatenate([a[:, 0] for a in arrays]),
                                      return_inverse=True)
        strings = docs[0].vocab.strings
        width = 4 if self.reads_suffixes() else 3  # whitespace or not, word, shape (ending)
        lexemes = numpy.array([self._lexeme(strings[int(orth)]) for orth in orths.tolist()],
                              dtype="int64").reshape(-1, width)[inverse.reshape(-1)]
        out, start = [], 0
        texts = texts if texts is not None else [doc.text for doc in docs]
        for doc, array, text in zip(docs, arrays, texts):
            rows = lexemes[start:start + len(array)]
            start += len(array)
            index = numpy.flatnonzero(rows[:, 0] == 0)  # the words: whitespace tokens left out
            found = numpy.zeros((width, len(index)), dtype="int64")  # word, shape, gap (ending)
            found[0], found[1] = rows[index, 1], rows[index, 2]
            found[3:] = rows[index, 3:].T
            if len(index):
                found[2, :-1] = numpy.where(array[index[:-1], 1] == 1, SPACES, 1)
                for k in numpy.flatnonzero(numpy.diff(index) > 1).tolist():
                    first, following = doc[int(index[k])], doc[int(index[k + 1])]
                    found[2, k] = gap(text[first.idx + len(first.text):following.idx])
                found[2, -1] = TEXT_END
            out.append((index.tolist(), found))
        return out

    def _lexeme(self, text: str) -> Tuple[int, ...]:
        """Whether a token's text is whitespace, its word id and its shape (and
        its ending's id, with suffix_chars)."""
        ending = (self.suffixes.get(self.ending(text), UNKNOWN),) if self.reads_suffixes() else ()
        if text.isspace():
            return (1, 0, 0) + (0,) * len(ending)
        return (0, self.words.get(text.lower(), UNKNOWN), word_shape(text)) + ending

    def ending(self, text: str) -> str:
        """A word's last suffix_chars characters, in lower case."""
        return text.lower()[-self.settings["suffix_chars"]:]

    def reads_suffixes(self) -> bool:
        """Whether each word reads its ending too (suffix_chars)."""
        return bool(self.settings.get("suffix_chars"))

    def _logits(self, model: WordSentenceModel, x: torch.Tensor,
                lengths: torch.Tensor) -> torch.Tensor:
        """One model's logits for features stacked as `features_of` and
        `_with_chars` make them."""
        suffix_ids = x[3] if self.reads_suffixes() else None
        char_ends = x[-1] if self.reads_chars() else None
        return model(x[0], x[1], x[2], lengths, char_ends, suffix_ids)

    def _probabilities(self, x: torch.Tensor, lengths: torch.Tensor) -> numpy.ndarray:
        """The mean of every model's probabilities."""
        models = [self.model, *self.other_seeds]
        with torch.no_grad(), training_mode(False):
            found = sum(torch.sigmoid(self._logits(m, x, lengths)) for m in models)
        return (found / len(models)).numpy()

    def reads_chars(self) -> bool:
        """Whether each word reads the character model's probability too (char_bins)."""
        return bool(self.settings.get("char_bins"))

    def _with_chars(self, doc: Doc, index: Sequence[int], feats: numpy.ndarray,
                    char_ends: Optional[numpy.ndarray]) -> numpy.ndarray:
        """The features, with a last row where this model reads the character
        model: its probability at each word's last character, binned
        (`char_ends`: per character of the Doc's text)."""
        if not self.reads_chars():
            return feats
        if char_ends is None or len(char_ends) != len(doc.text):
            raise ValueError(f"{self.owner}: the word-level model reads the character "
                             "model's probabilities; give one per character of the text.")
        bins = self.settings["char_bins"]
        idx, length = doc.to_array([IDX, LENGTH]).astype("int64").T
        at_ends = char_ends[idx[index] + length[index] - 1]
        binned = numpy.minimum((at_ends * bins).astype("int64"), bins - 1)
        return numpy.vstack([feats, binned.reshape(1, -1)])

    def end_probabilities(self, docs: Sequence[Doc],
                          char_ends: Optional[Sequence[numpy.ndarray]] = None,
                          texts: Optional[Sequence[str]] = None) -> List[numpy.ndarray]:
        """Per Doc, per word (as `features` lists them), the probability
        (float32) that a sentence ends after it; the windows of all the Docs
        read together, WINDOWS_PER_CALL at a time. `char_ends`: per Doc, the
        character model's probability that a sentence ends at each character,
        for a model that reads it (char_bins); `texts` as `features_of` takes them."""
        if self.model is None:
            raise ValueError(f"{self.owner}: the word-level model is not trained.")
        chars = char_ends if char_ends is not None else [None] * len(docs)
        feats = [self._with_chars(doc, index, found, ends)
                 for doc, (index, found), ends in zip(docs, self.features_of(docs, texts),
                                                      chars)]
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
            p = self._probabilities(x, lengths)
            start = 0
            for i, a, b, keep_a, keep_b in chunk:
                found[i][keep_a:keep_b] = p[start + keep_a - a:start + keep_b - a]
                start += b - a
        return found

    def train(self, references: Union[Sequence[Doc], Callable[[int], Sequence[Doc]]], *,
              epochs: int, batch_size: int, learn_rate: float, seed: int,
              score: Optional[Callable[[], float]] = None,
              targets: Optional[Callable[[Sequence[Doc]], List[numpy.ndarray]]] = None,
              char_ends: Optional[Callable[[Sequence[Doc]], List[numpy.ndarray]]] = None,
              read_as: Optional[Callable[[str], str]] = None) -> None:
        """Train on gold Docs (their words and sentence starts), the same each
        epoch or each epoch's from a function of it (from 1), as the character
        model does; `score` as `learning.fit` takes it. With `targets`, each
        word learns the probability `targets` gives for it (per Doc, per word as
        `features` lists them: teachers' probabilities, `distillation.py`) in
        place of its gold sentence end. A model that reads the character
        model's probabilities (char_bins) takes them per Doc from `char_ends`.
        `read_as` gives each Doc's text as the senter reads it (`features_of`'s
        `texts`). With `models` above 1 the others learn after the first, each
        from its own seed and on the same Docs laid out with that seed where
        they are `training_text.Layouts` (`score` judges the first only)."""
        if not isinstance(epochs, int) or isinstance(epochs, bool) or epochs < 1:
            raise ValueError(f"{self.owner}: word_epochs must be an integer >= 1, "
                             f"got {epochs!r}.")
        docs_of = references if callable(references) else (lambda epoch: references)
        first = docs_of(1)
        self.words = seen_twice(Counter(t.text.lower() for doc in first for t in doc
                                        if not t.text.isspace()))
        if self.reads_suffixes():
            self.suffixes = seen_twice(Counter(self.ending(t.text) for doc in first for t in doc
                                               if not t.text.isspace()))
        torch.manual_seed(seed)
        self.model = self._new_model()
        self.other_seeds = []

        def examples(docs: Sequence[Doc]) -> List:
            data = []
            wanted = targets(docs) if targets is not None else [None] * len(docs)
            chars = char_ends(docs) if char_ends is not None else [None] * len(docs)
            texts = [read_as(doc.text) for doc in docs] if read_as is not None else None
            for doc, (index, feats), ends, by_chars in zip(docs, self.features_of(docs, texts),
                                                          wanted, chars):
                feats = self._with_chars(doc, index, feats, by_chars)
                if ends is None:
                    ends = gold_ends(doc, index)
                for a in range(0, len(index), WINDOW):
                    data.append((torch.from_numpy(feats[:, a:a + WINDOW]),
                                 torch.from_numpy(ends[a:a + WINDOW])))
            return data

        data, data_of = epoch_examples(docs_of, examples)

        def loss_of(model: WordSentenceModel) -> Callable[[Sequence], torch.Tensor]:
            def batch_loss(batch) -> torch.Tensor:
                x = torch.cat([b[0] for b in batch], dim=1)
                lengths = torch.tensor([b[0].shape[1] for b in batch], dtype=torch.long)
                return torch.nn.functional.binary_cross_entropy_with_logits(
                    self._logits(model, x, lengths), torch.cat([b[1] for b in batch]))
            return batch_loss

        fitted = fit(self.model, data_of, loss_of(self.model), epochs=epochs,
                     batch_size=batch_size, learn_rate=learn_rate, seed=seed,
                     label=f"{self.owner}, words", score=score)
        self.learned = {"windows": len(data), "words": len(self.words),
                        **({"suffixes": len(self.suffixes)} if self.reads_suffixes() else {}),
                        "epochs": epochs,
                        "loss": fitted.losses, "seconds": fitted.seconds}
        if score is not None:
            self.learned.update(scores=fitted.scores, kept_epoch=fitted.epoch)
        self.other_seeds, others = fit_others(
            self._new_model, references, data_of, examples, loss_of, seed=seed,
            models=self.models, epochs=epochs, batch_size=batch_size, learn_rate=learn_rate,
            label=f"{self.owner}, words")
        if others:
            self.learned["other_seeds"] = others

    def to_bytes(self) -> bytes:
        msg = {"settings": self.settings, "words": self.words, "learned": self.learned,
               "weights": weights_to_bytes(self.model)}
        if self.reads_suffixes():
            msg["suffixes"] = self.suffixes
        if self.other_seeds:  # a pipeline saved before them, or with one model, has none
            msg["other_seeds"] = [weights_to_bytes(m) for m in self.other_seeds]
        return srsly.msgpack_dumps(msg)

    def from_bytes(self, data: bytes) -> "WordSentences":
        msg = srsly.msgpack_loads(data)
        self.settings, self.words, self.learned = msg["settings"], msg["words"], msg["learned"]
        self.suffixes = msg.get("suffixes", {})
        self.model = load_weights(self._new_model(), msg["weights"])
        self.other_seeds = [load_weights(self._new_model(), w) for w in msg.get("other_seeds", [])]
        self.models = 1 + len(self.other_seeds)
        return self


def word_index(doc: Doc) -> List[int]:
    """The token indices of a Doc's words (whitespace tokens left out), as
    `WordSentences.features` lists them."""
    return [t.i for t in doc if not t.text.isspace()]


def gold_ends(doc: Doc, index: Sequence[int]) -> numpy.ndarray:
    """Per word of a gold Doc (its token indices, `index`), 1.0 where a
    sentence ends after it (the next word starts one, and at the end), else 0.0."""
    return numpy.array([bool(doc[j].is_sent_start) for j in index[1:]] + [True],
                       dtype="float32")


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
