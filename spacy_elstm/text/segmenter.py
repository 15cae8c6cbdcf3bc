"""The character-level segmenter as this package uses it at the spaCy level:
the characters it knows, the model (`pytorch/segmenter.py`), its training on a
treebank's Docs, each character's label for a text, and its serialization.
The tokenizer (`char_tokenizer.py`) and the sentence splitter
(`components/elstm_senter.py`) both read its labels, and both take its
settings (DEFAULTS, SETTINGS_DOC) and its training (`learn`, LEARN_DOC) from here.

The text is read in windows of about `window` characters cut at whitespace
(blank lines first), each its own sequence, so memory and time grow with the
text's length and nothing else.
"""
import functools
import unicodedata
from collections import Counter
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy
import srsly
import torch
from spacy.tokens import Doc

from .learning import (check_models, epoch_examples, epoch_repeats, fit, load_weights,
                       fit_others, passes, seen_twice, weights_to_bytes)
from .multiword import multiword_spans
from .paragraphs import BLANK_LINE
from .training_docs import treebank_docs
from .training_text import training_layouts
from ..pytorch.mode import training_mode
from ..pytorch.segmenter import LABELS, CharSegmenter

INSIDE, WORD_END, TOKEN_END, SENTENCE_END = range(len(LABELS))
UNKNOWN = 1  # character id of a character seen fewer than twice in training (0: unused)
SETTINGS = ("char_width", "width", "depth", "cell", "period", "dropout")
# the settings of the character model, as the tokenizer and elstm_senter take them
DEFAULTS = {"char_width": 32, "width": 64, "depth": 2, "cell": "elstm", "period": 20,
            "dropout": 0.1, "window": 300}
SETTINGS_DOC = """The character model's settings (CharTokenizer.v1 and elstm_senter):

char_width (int): the width of each character's embedding.
width (int): the encoder's width (each direction half of it).
depth (int): its stacked bidirectional layers.
cell (str): its cell: "elstm", "elstm2", "lstm", "gru" or "srn".
period (int): Ts of the ELSTM's scaling factors.
dropout (float): dropout on each layer's output while training.
window (int): the characters of text read as one sequence, about.
"""
LEARN_DOC = """Train the character model when the pipeline is initialised:

epochs (int): passes over the training text.
min_epoch_sentences (int): a training text of fewer sentences is passed over
    this many sentences' worth each epoch (epochs times as many passes, about
    min_epoch_sentences / its sentences of them), for both models; 0: once.
    A text of more than 20,000 sentences (learning.MAX_EPOCH_SENTENCES) is
    passed over fewer times in all, about 20,000 sentences' worth an epoch.
batch_size (int): windows per update.
learn_rate (float): Adam's learning rate.
seed (int): the random seed of the weights and the order of the windows.
treebank (Optional[Path]): train on this converted corpus (.spacy) in place of
    the training examples: whole Docs, with the sentence ends and multiword
    tokens that examples read with gold_preproc = true lack.
training_text (str): "varied": the training sentences laid out as users' text
    arrives (UD's text files wrapped at 80 characters, paragraphs on one line, a
    sentence per line, CRLF, lower case, a paragraph without its final
    punctuation: `training_text.py`); "unpunctuated": the same without any
    punctuation; "treebank": the training Docs' text as it is (ten sentences
    joined by spaces, what pipelines trained before it had).
"""
TRAINING_TEXTS = ("varied", "unpunctuated", "treebank")
# per Doc of a batch, what each of its characters (or words) learns in place of its gold label
Targets = Callable[[Sequence[Doc]], List[numpy.ndarray]]
# windows read in one call of the model: texts of a batch share the recurrence's
# steps, and memory stays bounded however long a text is; on one CPU thread 64
# windows a call read EWT dev's text faster than 256 did (the steps' state stays
# in cache: `python -m lab.raw_long_docs`, docs/results/speed.md)
WINDOWS_PER_CALL = 64


class Segmenter:
    """A character model and what it needs: its settings (the keys of
    SETTINGS), its window, its character table; untrained until `train`.
    models: how many character models of different seeds `train` trains (their
    probabilities averaged); a saved one keeps its own."""

    def __init__(self, settings: Dict, window: int, owner: str, models: int = 1):
        if window < 20:
            raise ValueError(f"{owner}: window must be at least 20 characters, got {window!r}.")
        self.settings = {k: settings[k] for k in SETTINGS}
        self.window = window
        self.owner = owner  # the registered name or factory, for messages
        self.models = check_models(models, "char_models", owner)
        self.chars: Dict[str, int] = {}
        self.model: Optional[CharSegmenter] = None
        self.other_seeds: List[CharSegmenter] = []  # averaged with `model`'s
        self.learned: Dict[str, object] = {}
        self._tables = None  # (the character table they were built from, ids, shapes)

    def _new_model(self) -> CharSegmenter:
        return CharSegmenter(n_chars=len(self.chars) + 2, **self.settings)

    def labels(self, text: str) -> List[int]:
        """Each character's label (INSIDE ... SENTENCE_END)."""
        return self.labels_of([text])[0]

    def labels_of(self, texts: Sequence[str]) -> List[List[int]]:
        """Each text's labels, as ``labels`` gives them, the windows of all the
        texts read together, WINDOWS_PER_CALL at a time."""
        return [labels.tolist() for labels, _ in self.read(texts)]

    def read(self, texts: Sequence[str]) -> List[Tuple[numpy.ndarray, numpy.ndarray]]:
        """Each text's labels (int64) and, per character, the probability that
        it ends a sentence (float32), the windows of all the texts read together."""
        return [(found.argmax(-1), found[:, SENTENCE_END].copy())
                for found in self.probabilities(texts)]

    def probabilities(self, texts: Sequence[str]) -> List[numpy.ndarray]:
        """Each text's (characters, labels) probabilities of each label
        (float32), the windows of all the texts read together, WINDOWS_PER_CALL
        at a time."""
        if self.model is None:
            raise ValueError(f"{self.owner} is not trained: initialise the pipeline with its "
                             "training data first (`spacy train` does).")
        pieces = [(i, text[a:b]) for i, text in enumerate(texts)
                  for a, b in windows(text, self.window)]
        found: List[List[numpy.ndarray]] = [[] for _ in texts]
        for k in range(0, len(pieces), WINDOWS_PER_CALL):
            chunk = pieces[k:k + WINDOWS_PER_CALL]
            ids, shapes = zip(*(self._ids(piece) for _, piece in chunk))
            lengths = torch.tensor([len(piece) for _, piece in chunk], dtype=torch.long)
            ids, shapes = torch.cat(ids), torch.cat(shapes)
            models = [self.model, *self.other_seeds]
            with torch.no_grad(), training_mode(False):
                summed = sum(torch.softmax(m(ids, shapes, lengths), -1) for m in models)
            probabilities = (summed / len(models)).numpy().astype("float32")
            start = 0
            for i, piece in chunk:  # each text's windows cover it in order
                found[i].append(probabilities[start:start + len(piece)])
                start += len(piece)
        return [numpy.concatenate(parts) if parts else numpy.zeros((0, len(LABELS)), "float32")
                for parts in found]

    def _ids(self, text: str) -> Tuple[torch.Tensor, torch.Tensor]:
        """Each character's id and shape, looked up by code point in tables of
        the first TABLE_SIZE code points (built once per character table)."""
        if self._tables is None or self._tables[0] is not self.chars:
            ids = numpy.full(TABLE_SIZE, UNKNOWN, dtype="int64")
            for char, i in self.chars.items():
                if ord(char) < TABLE_SIZE:
                    ids[ord(char)] = i
            self._tables = (self.chars, ids, shape_table())
        _, id_table, shapes_of = self._tables
        points = numpy.frombuffer(text.encode("utf-32-le", "surrogatepass"),
                                  dtype="uint32").astype("int64")
        inside = points < TABLE_SIZE
        clipped = numpy.where(inside, points, 0)
        ids, shapes = id_table[clipped], shapes_of[clipped]
        for k in numpy.flatnonzero(~inside):  # beyond the tables: emoji and the like
            ids[k], shapes[k] = self.chars.get(text[k], UNKNOWN), shape(text[k])
        return torch.from_numpy(ids), torch.from_numpy(shapes)

    def learn(self, get_examples, treebank, vocab, *, epochs: int, batch_size: int,
              learn_rate: float, seed: int, training_text: str, fresh_layouts: bool = False,
              min_epoch_sentences: int = 0, score: Optional[Callable[[], float]] = None,
              targets: Optional[Targets] = None,
              read_as: Optional[Callable[[str], str]] = None) -> Callable[[int], List[Doc]]:
        """Train on the gold Docs of `treebank` or of the training examples
        (`training_docs.py`), in the layout `training_text` says; the settings
        are LEARN_DOC's; `score` as `learning.fit` takes it, `targets` and
        `read_as` as `train` does. Returns each epoch's Docs as it learned from them
        (`training_text.training_layouts`); learned["epoch_repeats"] says how
        many passes made an epoch (`learning.epoch_repeats`)."""
        if training_text not in TRAINING_TEXTS:
            raise ValueError(f"{self.owner}: training_text must be one of "
                             f"{', '.join(TRAINING_TEXTS)}, got {training_text!r}.")
        docs = treebank_docs(get_examples, treebank, vocab, self.owner)
        layouts = training_layouts(docs, training_text, seed, fresh_layouts)
        repeats = epoch_repeats(sum(1 for doc in docs for t in doc if t.is_sent_start),
                                min_epoch_sentences)
        self.train(layouts, epochs=passes(epochs, repeats), batch_size=batch_size,
                   learn_rate=learn_rate, seed=seed, score=score, targets=targets,
                   read_as=read_as)
        self.learned["training_text"] = training_text
        if repeats != 1:
            self.learned["epoch_repeats"] = repeats
        if fresh_layouts:
            self.learned["fresh_layouts"] = True
        return layouts

    def train(self, references: Union[Sequence[Doc], Callable[[int], Sequence[Doc]]], *,
              epochs: int, batch_size: int, learn_rate: float, seed: int,
              score: Optional[Callable[[], float]] = None,
              targets: Optional[Targets] = None,
              read_as: Optional[Callable[[str], str]] = None) -> None:
        """Train on gold Docs (their words, multiword tokens and sentences), the
        same each epoch or each epoch's from a function of it (from 1); its
        character table is the first epoch's. With `targets`, each character
        learns the distribution over LABELS that `targets` gives for its Doc
        (teachers' probabilities: `distillation.py`) in place of its gold label.
        `read_as` gives each Doc's text as the model reads it, of the same
        length (`wrapping.unwrapped`, as elstm_senter reads text). With
        `models` above 1 the others learn after the first, each from its own
        seed and on the same Docs laid out with that seed where they are
        `training_text.Layouts` (`score` judges the first only)."""
        for name, value in (("epochs", epochs), ("batch_size", batch_size)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{self.owner}: {name} must be an integer >= 1, got {value!r}.")
        docs_of = references if callable(references) else (lambda epoch: references)
        first = docs_of(1)
        if not first:
            raise ValueError(f"{self.owner}: no training examples to learn from.")
        self.chars = seen_twice(Counter(c for doc in first for c in doc.text))
        torch.manual_seed(seed)
        self.model = self._new_model()
        self.other_seeds = []

        def examples(docs: Sequence[Doc]) -> List:
            data = []
            wanted = (targets(docs) if targets is not None
                      else [numpy.array(gold_labels(doc), dtype="int64") for doc in docs])
            for doc, label in zip(docs, wanted):
                text = read_as(doc.text) if read_as is not None else doc.text
                for a, b in windows(text, self.window):
                    ids, shapes = self._ids(text[a:b])
                    data.append((ids, shapes, torch.from_numpy(label[a:b])))
            return data

        data, data_of = epoch_examples(docs_of, examples)

        def loss_of(model: CharSegmenter) -> Callable[[Sequence], torch.Tensor]:
            def batch_loss(batch) -> torch.Tensor:
                lengths = torch.tensor([len(b[0]) for b in batch], dtype=torch.long)
                logits = model(torch.cat([b[0] for b in batch]),
                               torch.cat([b[1] for b in batch]), lengths)
                wanted = torch.cat([b[2] for b in batch])
                if targets is not None:  # distributions over the labels
                    return -(wanted * torch.log_softmax(logits, -1)).sum(-1).mean()
                return torch.nn.functional.cross_entropy(logits, wanted)
            return batch_loss

        fitted = fit(self.model, data_of, loss_of(self.model), epochs=epochs,
                     batch_size=batch_size, learn_rate=learn_rate, seed=seed, label=self.owner,
                     score=score)
        self.learned = {"windows": len(data), "characters": sum(len(d[0]) for d in data),
                        "epochs": epochs, "loss": fitted.losses, "seconds": fitted.seconds}
        if score is not None:
            self.learned.update(scores=fitted.scores, kept_epoch=fitted.epoch)
        self.other_seeds, others = fit_others(
            self._new_model, references, data_of, examples, loss_of, seed=seed,
            models=self.models, epochs=epochs, batch_size=batch_size, learn_rate=learn_rate,
            label=self.owner)
        if others:
            self.learned["other_seeds"] = others

    def to_bytes(self) -> bytes:
        weights = None if self.model is None else weights_to_bytes(self.model)
        msg = {"settings": self.settings, "window": self.window, "chars": self.chars,
               "learned": self.learned, "weights": weights}
        if self.other_seeds:  # a pipeline saved before them, or with one model, has none
            msg["other_seeds"] = [weights_to_bytes(m) for m in self.other_seeds]
        return srsly.msgpack_dumps(msg)

    def from_bytes(self, data: bytes) -> "Segmenter":
        msg = srsly.msgpack_loads(data)
        self.settings, self.window = msg["settings"], msg["window"]
        self.chars, self.learned = msg["chars"], msg["learned"]
        self.model = None
        if msg["weights"] is not None:
            self.model = load_weights(self._new_model(), msg["weights"])
        self.other_seeds = [load_weights(self._new_model(), w) for w in msg.get("other_seeds", [])]
        self.models = 1 + len(self.other_seeds)
        return self


def shape(char: str) -> int:
    """The character's kind, for the segmenter (N_SHAPES of them)."""
    if char == " ":
        return 0
    if char.isspace():
        return 1
    if char.islower():
        return 2
    if char.isupper():
        return 3
    if char.isdigit():
        return 4
    return 5 if unicodedata.category(char).startswith("P") else 6


def windows(text: str, size: int) -> List[Tuple[int, int]]:
    """(start, end) of pieces of the text of about `size` characters that
    cover it, cut at a blank line where one is near and else at whitespace (a
    piece with no whitespace in 2 * size characters is cut where it must)."""
    pieces, start, n = [], 0, len(text)
    while start < n:
        if n - start <= size:
            pieces.append((start, n))
            break
        end = None
        blank = [m.end() for m in BLANK_LINE.finditer(text, start + size // 2, start + size)]
        if blank:
            end = blank[-1]
        else:
            for limit in (start + size, start + 2 * size):
                cut = max(text.rfind(" ", start + 1, limit), text.rfind("\n", start + 1, limit))
                if cut > start:
                    end = cut + 1
                    break
        end = end if end is not None else start + 2 * size
        pieces.append((start, min(end, n)))
        start = min(end, n)
    return pieces


def gold_labels(doc: Doc) -> List[int]:
    """Each character's label in a gold Doc (its words, multiword tokens and
    sentence starts)."""
    label = [INSIDE] * len(doc.text)
    inside = {a for first, last in multiword_spans(doc) for a in range(first, last)}
    words = [t for t in doc if not t.text.isspace()]  # (is_space needs a language's vocab)
    for k, token in enumerate(words):
        end = token.idx + len(token.text) - 1
        following = words[k + 1] if k + 1 < len(words) else None
        if following is None or following.is_sent_start:
            label[end] = SENTENCE_END
        elif token.i in inside:
            label[end] = WORD_END
        else:
            label[end] = TOKEN_END
    return label


TABLE_SIZE = 0x10000  # the code points whose ids and shapes are looked up in tables


@functools.lru_cache(maxsize=1)
def shape_table() -> numpy.ndarray:
    """The shape of each of the first TABLE_SIZE code points (made when first asked for)."""
    return numpy.array([shape(chr(c)) for c in range(TABLE_SIZE)], dtype="int64")
