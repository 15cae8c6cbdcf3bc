"""Words written together: where a treebank writes its words without a space
between them, as Classical Chinese, Chinese and Japanese write a sentence's
tokens, or as Coptic writes a bound group of two to eight words as one token,
spaCy's rules see a whole run of characters as one word. There the character
model (`segmenter.py`: a bidirectional network of this package's cells over
the text's characters) decides every boundary inside a whitespace-free chunk:
the end of a word inside a token (a multiword token's word) or of a token.
A chunk the training text has takes the labels of its most frequent analysis
there instead, as the rules' special cases do (a dictionary of the bound groups
seen, as Stanza keeps beside its model), so the model decides only what
training never showed.

The tokenizer (`treebank_tokenizer.py`) learns the model only where its rules
cannot follow the treebank: where the language's rules, adapted to the
treebank, get fewer than `BELOW` (F1) of the training words right on their own,
before any chunk is remembered (`f1_after_rules` in its `learned`):
Classical_Chinese-Kyoto and Coptic-Scriptorium learn it; Greek, Turkish,
Wolof, Uyghur, Vietnamese and English-EWT do not, and their tokens stay the
rules'.

Whitespace still ends a token, and the Doc's text stays the input's.
"""
import re
from collections import Counter, defaultdict
from typing import Dict, Iterable, List, Optional, Sequence

import srsly
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab

from .char_tokenizer import build_doc
from .segmenter import DEFAULTS, INSIDE, SENTENCE_END, TOKEN_END, WORD_END, Segmenter, gold_labels

CHUNK = re.compile(r"\S+")  # a run of characters between whitespace
# the rules' training-word F1 (before special cases) below which the model is learned
BELOW = 0.9
# the labels a chunk's characters but its last may have, as a lexicon entry writes them
LETTERS = {INSIDE: "i", WORD_END: "w", TOKEN_END: "t"}
LABEL_OF = {letter: label for label, letter in LETTERS.items()}


class JoinedWords:
    """The character model of a treebank that writes words together and the
    labels of the chunks its training text has; without a model (a treebank
    whose rules follow it), nothing."""

    def __init__(self, segmenter: Optional[Segmenter] = None,
                 chunks: Optional[Dict[str, str]] = None):
        self.segmenter = segmenter
        self.chunks = dict(chunks or {})  # chunk -> a letter of LETTERS per character but its last

    def __bool__(self) -> bool:
        return self.segmenter is not None

    @classmethod
    def learn(cls, docs: Sequence[Doc], vocab: Vocab, owner: str, *, epochs: int, seed: int,
              min_epoch_sentences: int) -> "JoinedWords":
        """The model trained on the docs' text laid out as users' text arrives
        (`training_text.py`, "varied"), and the most frequent labels of each
        chunk of the docs' text."""
        segmenter = Segmenter(DEFAULTS, DEFAULTS["window"], owner)
        segmenter.learn(lambda: [Example(doc, doc) for doc in docs], None, vocab, epochs=epochs,
                        batch_size=32, learn_rate=0.002, seed=seed, training_text="varied",
                        min_epoch_sentences=min_epoch_sentences)
        return cls(segmenter, chunk_labels(docs))

    def labels(self, text: str) -> List[int]:
        """Each character's label: the model's, and a known chunk's own."""
        return self._known(text, self.segmenter.labels(text))

    def labels_of(self, texts: Sequence[str]) -> List[List[int]]:
        """Each text's labels, as `labels` gives them, the model reading the
        texts' windows together (`Segmenter.labels_of`)."""
        return [self._known(text, labels)
                for text, labels in zip(texts, self.segmenter.labels_of(texts))]

    def _known(self, text: str, labels: List[int]) -> List[int]:
        """The model's labels with each chunk seen in training given its own."""
        for match in CHUNK.finditer(text):
            known = self.chunks.get(match.group())
            if known is not None:
                start = match.start()
                labels[start:start + len(known)] = [LABEL_OF[c] for c in known]
        return labels

    def doc(self, vocab: Vocab, text: str) -> Doc:
        """The Doc of the text's words and multiword tokens; only a blank line
        starts a sentence."""
        return build_doc(vocab, text, self.labels(text), sentences=False)

    def docs(self, vocab: Vocab, texts: Sequence[str]) -> List[Doc]:
        """`doc` of each text, their labels read together (`labels_of`)."""
        return [build_doc(vocab, text, labels, sentences=False)
                for text, labels in zip(texts, self.labels_of(texts))]

    def to_dict(self) -> Dict[str, object]:
        return {"segmenter": None if self.segmenter is None else self.segmenter.to_bytes(),
                "chunks": self.chunks}

    @classmethod
    def from_dict(cls, data: Dict[str, object], owner: str) -> "JoinedWords":
        if not data or data.get("segmenter") is None:
            return cls()
        segmenter = Segmenter(DEFAULTS, DEFAULTS["window"], owner).from_bytes(data["segmenter"])
        return cls(segmenter, data.get("chunks", {}))


def chunk_labels(docs: Iterable[Doc]) -> Dict[str, str]:
    """Each whitespace-free chunk of the docs' text -> the labels of its
    characters but the last (LETTERS) in its most frequent analysis."""
    counts: Dict[str, Counter] = defaultdict(Counter)
    for doc in docs:
        text, labels = doc.text, gold_labels(doc)
        for match in CHUNK.finditer(text):
            a, b = match.span()
            counts[match.group()]["".join(
                LETTERS[TOKEN_END if label == SENTENCE_END else label]
                for label in labels[a:b - 1])] += 1
    return {chunk: found.most_common(1)[0][0] for chunk, found in counts.items()}
