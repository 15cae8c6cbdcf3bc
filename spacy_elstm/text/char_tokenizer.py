"""A learned tokenizer and sentence splitter: the character-level segmenter
(`segmenter.py`: a bidirectional recurrent network of this package's cells
over the text's characters) labels each character as the end of a word, of a
token or of a sentence, trained on the treebank when `spacy train` initialises
the pipeline (`[initialize.tokenizer]`) and saved inside it.

The Docs it makes have the treebank's words, its multiword tokens
(`multiword.py`: the words of one token, as EWT's `do` + `n't` in `don't`) and
its sentence starts, which spaCy's parser keeps. Whitespace always ends a
token and a blank line a sentence; whitespace other than one space after a word
becomes a whitespace token, as spaCy's own tokenizer makes it, so the Doc's
text is the input text.
"""
from pathlib import Path
from typing import Callable, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import ensure_path, minibatch, registry
from spacy.vocab import Vocab

from .multiword import set_multiword_spans
from .paragraphs import ends_paragraph
from .segmenter import (DEFAULTS, INSIDE, LEARN_DOC, SENTENCE_END, SETTINGS_DOC, TOKEN_END,
                        WORD_END, Segmenter, gold_labels, windows)

NAME = "spacy-elstm.CharTokenizer.v1"
__all__ = ["NAME", "create_char_tokenizer", "CharTokenizer", "build_doc", "gold_labels",
           "windows", "SENTENCE_END", "TOKEN_END"]


@registry.tokenizers(NAME)
def create_char_tokenizer(char_width: int = DEFAULTS["char_width"],
                          width: int = DEFAULTS["width"], depth: int = DEFAULTS["depth"],
                          cell: str = DEFAULTS["cell"], period: int = DEFAULTS["period"],
                          dropout: float = DEFAULTS["dropout"],
                          window: int = DEFAULTS["window"],
                          ) -> Callable[[Language], "CharTokenizer"]:
    """A tokenizer and sentence splitter learned from the training data's characters."""
    settings = dict(char_width=char_width, width=width, depth=depth, cell=cell, period=period,
                    dropout=dropout)
    Segmenter(settings, window, NAME)  # a bad window fails here, when the config resolves

    def make(nlp: Language) -> "CharTokenizer":
        return CharTokenizer(nlp.vocab, Segmenter(settings, window, NAME))

    return make


create_char_tokenizer.__doc__ += "\n\n" + SETTINGS_DOC


class CharTokenizer:
    """The character-level segmenter as a spaCy tokenizer."""

    def __init__(self, vocab: Vocab, segmenter: Segmenter):
        self.vocab = vocab
        self.segmenter = segmenter

    @property
    def learned(self):
        return self.segmenter.learned

    def __call__(self, text: str) -> Doc:
        return build_doc(self.vocab, text, self.segmenter.labels(text))

    def pipe(self, texts: Iterable[str], batch_size: int = 1000) -> Iterator[Doc]:
        """The Docs of the texts, in order, the model reading `batch_size`
        texts' windows together (the same labels as a text at a time)."""
        for batch in minibatch(texts, batch_size):
            for text, labels in zip(batch, self.segmenter.labels_of(batch)):
                yield build_doc(self.vocab, text, labels)

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None, epochs: int = 6, batch_size: int = 32,
                   learn_rate: float = 0.002, seed: int = 0,
                   treebank: Optional[Union[str, Path]] = None,
                   training_text: str = "varied") -> None:
        self.segmenter.learn(get_examples, treebank, self.vocab, epochs=epochs,
                             batch_size=batch_size, learn_rate=learn_rate, seed=seed,
                             training_text=training_text)

    initialize.__doc__ = ("Train the segmenter on the training text's words, multiword "
                          "tokens and sentences.\n\n" + LEARN_DOC)

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        return self.segmenter.to_bytes()

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = tuple()) -> "CharTokenizer":
        self.segmenter.from_bytes(data)
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        ensure_path(path).write_bytes(self.to_bytes(exclude=exclude))

    def from_disk(self, path: Union[str, Path], *,
                  exclude: Iterable[str] = tuple()) -> "CharTokenizer":
        return self.from_bytes(ensure_path(path).read_bytes(), exclude=exclude)


def build_doc(vocab: Vocab, text: str, label: Sequence[int], sentences: bool = True) -> Doc:
    """The Doc of a text and each character's label: words end at a word,
    token or sentence end and before whitespace; a blank line ends a sentence.
    With `sentences` false only a blank line's word has its sentence start set
    (the rest left for a sentence splitter to set)."""
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
            if ends_paragraph(text[i:j]):
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
        if end_label == SENTENCE_END and sentences:
            sentence_ends = True
        i = j
    if not sentences:
        starts = [True if start else None for start in starts]
    doc = Doc(vocab, words=words, spaces=spaces, sent_starts=starts)
    set_multiword_spans(doc, multiword)
    return doc

