"""A learned tokenizer and sentence splitter: a bidirectional recurrent network
over the characters of the text (`pytorch/segmenter.py`, any of this package's
cells) labels each character as the end of a word, of a token or of a
sentence, trained on the treebank when `spacy train` initialises the pipeline
(`[initialize.tokenizer]`) and saved inside it.

The Docs it makes have the treebank's words, its multiword tokens
(`multiword.py`: the words of one token, as EWT's `do` + `n't` in `don't`) and
its sentence starts, which spaCy's parser keeps. Whitespace always ends a
token and a blank line a sentence; whitespace other than one space after a word
becomes a whitespace token, as spaCy's own tokenizer makes it, so the Doc's
text is the input text.

The text is read in windows of about `window` characters cut at whitespace
(blank lines first), each its own sequence, so memory and time grow with the
text's length and nothing else.
"""
import io
import random
import re
import sys
import time
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import srsly
import torch
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import ensure_path, registry
from spacy.vocab import Vocab

from .multiword import multiword_spans, set_multiword_spans
from .pytorch.mode import training_mode
from .pytorch.segmenter import LABELS, CharSegmenter

NAME = "spacy-elstm.CharTokenizer.v1"
INSIDE, WORD_END, TOKEN_END, SENTENCE_END = range(len(LABELS))
UNKNOWN = 1  # character id of a character seen fewer than twice in training (0: unused)
BLANK_LINE = re.compile(r"\n[^\S\n]*\n")


@registry.tokenizers(NAME)
def create_char_tokenizer(char_width: int = 32, width: int = 128, depth: int = 2,
                          cell: str = "elstm", period: int = 20, dropout: float = 0.1,
                          window: int = 300) -> Callable[[Language], "CharTokenizer"]:
    """A tokenizer and sentence splitter learned from the training data's characters.

    char_width (int): the width of each character's embedding.
    width (int): the encoder's width (each direction half of it).
    depth (int): its stacked bidirectional layers.
    cell (str): its cell: "elstm", "elstm2", "lstm", "gru" or "srn".
    period (int): Ts of the ELSTM's scaling factors.
    dropout (float): dropout on each layer's output while training.
    window (int): the characters of text read as one sequence, about.
    """
    if window < 20:
        raise ValueError(f"{NAME}: window must be at least 20 characters, got {window!r}.")
    settings = dict(char_width=char_width, width=width, depth=depth, cell=cell, period=period,
                    dropout=dropout)

    def make(nlp: Language) -> "CharTokenizer":
        return CharTokenizer(nlp.vocab, settings, window)

    return make


class CharTokenizer:
    """The character-level segmenter as a spaCy tokenizer."""

    def __init__(self, vocab: Vocab, settings: Dict, window: int):
        self.vocab = vocab
        self.settings = dict(settings)
        self.window = window
        self.chars: Dict[str, int] = {}
        self.model: Optional[CharSegmenter] = None
        self.learned: Dict[str, object] = {}

    # --- inference -----------------------------------------------------------
    def __call__(self, text: str) -> Doc:
        if self.model is None:
            raise ValueError(f"{NAME} is not trained: initialise the pipeline with its "
                             "training data first (`spacy train` does).")
        pieces = windows(text, self.window)
        labels = self._predict([text[a:b] for a, b in pieces])
        return self._doc(text, pieces, labels)

    def pipe(self, texts: Iterable[str], batch_size: int = 1000) -> Iterator[Doc]:
        for text in texts:
            yield self(text)

    def _ids(self, text: str) -> Tuple[torch.Tensor, torch.Tensor]:
        ids = torch.tensor([self.chars.get(c, UNKNOWN) for c in text], dtype=torch.long)
        shapes = torch.tensor([shape(c) for c in text], dtype=torch.long)
        return ids, shapes

    def _predict(self, texts: List[str]) -> List[List[int]]:
        texts = [t for t in texts]
        if not texts:
            return []
        ids, shapes = zip(*(self._ids(t) for t in texts))
        lengths = torch.tensor([len(t) for t in texts], dtype=torch.long)
        with torch.no_grad(), training_mode(False):
            logits = self.model(torch.cat(ids), torch.cat(shapes), lengths)
        best = logits.argmax(-1).tolist()
        out, start = [], 0
        for n in lengths.tolist():
            out.append(best[start:start + n])
            start += n
        return out

    def _doc(self, text: str, pieces: List[Tuple[int, int]], labels: List[List[int]]) -> Doc:
        label = [INSIDE] * len(text)
        for (a, _), window_labels in zip(pieces, labels):
            label[a:a + len(window_labels)] = window_labels
        return build_doc(self.vocab, text, label)

    # --- training ------------------------------------------------------------
    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None, epochs: int = 6, batch_size: int = 32,
                   learn_rate: float = 0.002, seed: int = 0) -> None:
        """Train the segmenter on the training examples' text, words, multiword
        tokens and sentences.

        epochs (int): passes over the training text.
        batch_size (int): windows per update.
        learn_rate (float): Adam's learning rate.
        seed (int): the random seed of the weights and the order of the windows.
        """
        for name, value, low in (("epochs", epochs, 1), ("batch_size", batch_size, 1)):
            if not isinstance(value, int) or value < low:
                raise ValueError(f"[initialize.tokenizer] {name} must be an integer >= {low}, "
                                 f"got {value!r}.")
        references = [eg.reference for eg in get_examples()]
        if not references:
            raise ValueError(f"{NAME}: no training examples to learn the tokenization from.")
        counts = Counter(c for doc in references for c in doc.text)
        self.chars = {c: i + 2 for i, c in enumerate(sorted(c for c, n in counts.items()
                                                            if n >= 2))}
        torch.manual_seed(seed)
        self.model = CharSegmenter(n_chars=len(self.chars) + 2, **self.settings)
        data = []
        for doc in references:
            text, label = doc.text, gold_labels(doc)
            for a, b in windows(text, self.window):
                ids, shapes = self._ids(text[a:b])
                data.append((ids, shapes, torch.tensor(label[a:b], dtype=torch.long)))
        optimizer = torch.optim.Adam(self.model.parameters(), lr=learn_rate)
        rng = random.Random(seed)
        start, losses = time.perf_counter(), []
        for epoch in range(epochs):
            rng.shuffle(data)
            total = 0.0
            for k in range(0, len(data), batch_size):
                batch = data[k:k + batch_size]
                lengths = torch.tensor([len(b[0]) for b in batch], dtype=torch.long)
                with training_mode(True):
                    logits = self.model(torch.cat([b[0] for b in batch]),
                                        torch.cat([b[1] for b in batch]), lengths)
                loss = torch.nn.functional.cross_entropy(logits, torch.cat([b[2] for b in batch]))
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                optimizer.step()
                total += float(loss.detach()) * len(batch)
            losses.append(round(total / len(data), 5))
            print(f"{NAME}: epoch {epoch + 1}/{epochs}, loss {losses[-1]:.4f} "
                  f"({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
        self.learned = {"windows": len(data), "characters": sum(len(d[0]) for d in data),
                        "epochs": epochs, "loss": losses,
                        "seconds": round(time.perf_counter() - start, 1)}

    # --- serialization -------------------------------------------------------
    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        weights = None
        if self.model is not None:
            buffer = io.BytesIO()
            torch.save(self.model.state_dict(), buffer)
            weights = buffer.getvalue()
        return srsly.msgpack_dumps({"settings": self.settings, "window": self.window,
                                    "chars": self.chars, "learned": self.learned,
                                    "weights": weights})

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = tuple()) -> "CharTokenizer":
        msg = srsly.msgpack_loads(data)
        self.settings, self.window = msg["settings"], msg["window"]
        self.chars, self.learned = msg["chars"], msg["learned"]
        self.model = None
        if msg["weights"] is not None:
            self.model = CharSegmenter(n_chars=len(self.chars) + 2, **self.settings)
            state = torch.load(io.BytesIO(msg["weights"]), map_location="cpu", weights_only=True)
            self.model.load_state_dict(state)
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        ensure_path(path).write_bytes(self.to_bytes(exclude=exclude))

    def from_disk(self, path: Union[str, Path], *,
                  exclude: Iterable[str] = tuple()) -> "CharTokenizer":
        return self.from_bytes(ensure_path(path).read_bytes(), exclude=exclude)


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
    words = [t for t in doc if not t.is_space]
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


def build_doc(vocab: Vocab, text: str, label: Sequence[int]) -> Doc:
    """The Doc of a text and each character's label: words end at a word,
    token or sentence end and before whitespace; a blank line ends a sentence."""
    words: List[str] = []
    spaces: List[bool] = []
    starts: List[Optional[bool]] = []
    multiword: List[Tuple[int, int]] = []
    token_first = 0  # the first word of the token being read
    sentence_ends = True  # the next word starts a sentence
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            j = i
            while j < n and text[j].isspace():
                j += 1
            run = text[i:j]
            if words and not words[-1].isspace() and run[0] == " ":
                spaces[-1] = True  # one space after a word is its whitespace, as in spaCy
                run = run[1:]
            if BLANK_LINE.search(text[i:j]):
                sentence_ends = True
            if run:  # the rest is a whitespace token of the sentence before it
                starts.append(not words)
                words.append(run)
                spaces.append(False)
            i = j
            token_first = len(words)
            continue
        j = i
        while j < n and not text[j].isspace() and (j == i or label[j - 1] == INSIDE):
            j += 1
        # text[i:j] is one word: it ends at a labelled character or before whitespace
        words.append(text[i:j])
        spaces.append(False)
        starts.append(True if sentence_ends else False)
        sentence_ends = False
        end_label = label[j - 1] if j < n and not text[j].isspace() else max(label[j - 1],
                                                                             TOKEN_END)
        if end_label == WORD_END:
            i = j
            continue
        if len(words) - 1 > token_first:
            multiword.append((token_first, len(words) - 1))
        token_first = len(words)
        if end_label == SENTENCE_END:
            sentence_ends = True
        i = j
    doc = Doc(vocab, words=words, spaces=spaces, sent_starts=starts)
    set_multiword_spans(doc, multiword)
    return doc

