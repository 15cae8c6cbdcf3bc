"""`elstm_senter`: a sentence splitter that reads the text's characters with the
character-level segmenter (`text/segmenter.py`) and, with `word_width`, the
words with a word-level model (`text/word_sentences.py`), both trained on the
treebank when the pipeline is initialised and saved inside it; it keeps
whatever tokenizer the pipeline has. It sets every token's sentence start (a
word starts a sentence where one ends at the word before it, or where a blank
line comes before it), and spaCy's parser keeps those starts. A sentence ends
after a word where the character model's label at the word's last character
says so, or, with the word-level model, where the mean of the two models'
probabilities is above one half; the character model then reads only around
the words the word-level model is unsure of (WORD_SURE, CHAR_CONTEXT), and
elsewhere the word-level model decides alone. Both read hard-wrapped lines as
running text (`text/wrapping.py`). With `unpunctuated`, a second pair of models,
trained on the same text without punctuation, splits every Doc that has no
word of the marks that end or divide a sentence (`text/punctuation.py`), as
speech transcripts come (learned
together with the first, text without punctuation cost the text with it
sentence ends on EWT dev: `python -m lab.senter_unpunctuated`). A Doc that
comes with every sentence start set (gold sentences, as `spacy-elstm score`
gives them without `--raw`) keeps its own.

It has no `update`: `spacy train` trains it once, in `initialize`, and leaves
it as it is while the other components train.
"""
import re
from pathlib import Path
from typing import Callable, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy
import spacy
import srsly
from spacy.attrs import IDX, IS_SPACE, LENGTH, SENT_START
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import ensure_path
from spacy.vocab import Vocab

from ..text.distillation import Teachers
from ..text.held_out import held_out_docs, sentence_f1
from ..text.learning import passes
from ..text.paragraphs import paragraph_breaks
from ..text.punctuation import SENTENCE_MARKS_RULE, has_no_punctuation
from ..text.segmenter import (DEFAULTS, LEARN_DOC, SENTENCE_END, SETTINGS_DOC,
                              WINDOWS_PER_CALL, Segmenter)
from ..text.word_sentences import WordSentences
from ..text.wrapping import unwrapped

FACTORY = "elstm_senter"


# the longest sentence of UD English-EWT's training split, in words
LONGEST_SENTENCE = 159
# the word-level model's encoder width (a pipeline saved without it has none;
# 0 asks for none)
WORD_WIDTH = 128
# its layers (one finds EWT dev's sentences as two do, at 0.66-0.80 of the
# senter's time: `python -m lab.senter_depths`)
WORD_DEPTH = 1
# its dropout (words are fewer than characters and easier to memorise; 0.1, the
# character model's, moved EWT dev's sentence F1 by tenths: `python -m lab.senter_words`)
WORD_DROPOUT = 0.2
# where the word model's probability is this close to 0 or 1, it decides alone and
# the character model is not read there (0: the character model reads everything;
# on EWT dev, 3 seeds, 0.05 against 0.02: 0.87 of the senter's time, UD form -0.13,
# `python -m lab.senter_sure_words`)
WORD_SURE = 0.05
# the characters the character model reads before and after each other word's end
CHAR_CONTEXT = (40, 20)
# a sentence ends after a word where the two models' mean probability is above
# this (the senters miss more sentence ends than they make up, even at 0.4:
# `python -m lab.senter_errors`; on EWT dev, 3 seeds, 0.4 splits UD's text form and
# the joined one better than 0.5, text of one sentence per line a little worse:
# `python -m lab.senter_thresholds`)
END_THRESHOLD = 0.4
WHITESPACE = re.compile(r"[ \n]")  # where the character model's pieces may be cut
# what a student senter learns from its teachers' mean, the gold labels the rest
TEACHER_WEIGHT = 1.0
UNPUNCTUATED = "unpunctuated"  # where the second pair of models is saved
CHOSEN_THRESHOLD = "end_threshold.json"  # where the end_threshold chosen on held-out text is
THRESHOLDS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7)  # what threshold_dev chooses from


@Language.factory(FACTORY, default_config={**DEFAULTS, "max_sentence_words": LONGEST_SENTENCE,
                                           "word_width": WORD_WIDTH, "word_depth": WORD_DEPTH,
                                           "word_char_bins": 0, "word_suffix_chars": 0,
                                           "word_models": 1, "char_models": 1,
                                           "end_threshold": END_THRESHOLD,
                                           "unpunctuated": True},
                  assigns=["token.is_sent_start"])
def make_elstm_senter(nlp: Language, name: str, char_width: int, width: int, depth: int,
                      cell: str, period: int, dropout: float, window: int,
                      max_sentence_words: int, word_width: int,
                      word_depth: int, word_char_bins: int, word_suffix_chars: int,
                      word_models: int, char_models: int, end_threshold: float,
                      unpunctuated: bool) -> "ELSTMSenter":
    """A sentence splitter learned from the training data's characters and words.

    max_sentence_words (int): the longest sentence, in words (0: no limit); a
        longer one is split at its most probable sentence end within that many
        words, again until every piece fits (text without punctuation, as
        transcripts are, otherwise becomes one sentence of any length).
    word_width (int): the width of the word-level model's encoder (an even
        number; 0: no word-level model, the characters alone decide); its cell
        and period are the character model's, its dropout WORD_DROPOUT.
    word_depth (int): the word-level model's stacked bidirectional layers (a
        config without the setting, from before it, had the character model's
        depth: the saved model keeps its own).
    word_char_bins (int): the word-level model also reads the character model's
        probability that a sentence ends at each word's last character, in
        this many equal bins, and learns when to trust it (0: it does not; the
        two views are averaged either way).
    word_suffix_chars (int): the word-level model also reads each word's last
        this many characters (lower-cased; an ending seen once in training
        reads as unknown), for languages whose words are each rare but whose
        endings say what a word does (0: it does not).
    word_models (int): how many word-level models, each of its own seed, learn
        the same words; a word's probability is their mean (1: one model, as
        before the setting).
    char_models (int): the same for the character model: how many, each of its
        own seed, learn the same text, their probabilities averaged.
    end_threshold (float): with the word-level model, a sentence ends after a
        word where the mean of the two models' probabilities is above this
        (between 0 and 1; END_THRESHOLD, chosen on EWT dev). Without it, the
        character model's most probable label decides.
    unpunctuated (bool): also learn a second pair of models from the training
        text without punctuation, which splits the Docs that have no
        word of sentence marks (a pipeline saved before it has none and splits them
        with the first).
    """
    limits = (("max_sentence_words", max_sentence_words, 0, " (0: no limit)"),
              ("word_width", word_width, 0, " (0: none)"), ("word_depth", word_depth, 1, ""),
              ("word_char_bins", word_char_bins, 0, " (0: none)"),
              ("word_suffix_chars", word_suffix_chars, 0, " (0: none)"),
              ("word_models", word_models, 1, ""), ("char_models", char_models, 1, ""))
    for key, value, least, zero in limits:
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise ValueError(f"[components.{name}] {key} must be an integer >= {least}{zero}, "
                             f"got {value!r}.")
    if (not isinstance(end_threshold, (int, float)) or isinstance(end_threshold, bool)
            or not 0.0 < end_threshold < 1.0):
        raise ValueError(f"[components.{name}] end_threshold must be a number between 0 and 1 "
                         f"(exclusive), got {end_threshold!r}.")
    if word_width % 2:
        raise ValueError(f"[components.{name}] word_width must be even (each direction gets "
                         f"half), got {word_width!r}; use {word_width + 1}.")
    settings = dict(char_width=char_width, width=width, depth=depth, cell=cell, period=period,
                    dropout=dropout)
    word_settings = dict(width=word_width, depth=word_depth, cell=cell, period=period,
                         dropout=WORD_DROPOUT)
    if word_char_bins:
        word_settings["char_bins"] = word_char_bins
    if word_suffix_chars:
        word_settings["suffix_chars"] = word_suffix_chars

    def senter(owner: str, bare: Optional[ELSTMSenter] = None) -> ELSTMSenter:
        words = WordSentences(word_settings, owner, word_models) if word_width else None
        return ELSTMSenter(name, Segmenter(settings, window, owner, char_models),
                           max_sentence_words, words,
                           float(end_threshold), bare)
    owner = f"{FACTORY} ({name})"
    return senter(owner, senter(f"{owner}, unpunctuated") if unpunctuated else None)


make_elstm_senter.__doc__ += "\n" + SETTINGS_DOC


class ELSTMSenter:
    def __init__(self, name: str, segmenter: Segmenter, max_sentence_words: int = 0,
                 words: Optional[WordSentences] = None, end_threshold: float = END_THRESHOLD,
                 unpunctuated: Optional["ELSTMSenter"] = None):
        self.name = name
        self.segmenter = segmenter
        self.max_sentence_words = max_sentence_words
        self.words = words  # the word-level model, where the config asks for one
        self.end_threshold = end_threshold
        self.unpunctuated = unpunctuated  # the models of text without punctuation, if asked for
        self.unpunctuated_learned = False  # whether they were trained (or loaded)
        self.chosen_threshold: Optional[float] = None  # end_threshold chosen on held-out text

    def __call__(self, doc: Doc) -> Doc:
        return next(iter(self.pipe([doc])))

    def pipe(self, docs: Iterable[Doc], batch_size: int = 128) -> Iterable[Doc]:
        """As ``__call__`` on each Doc, the characters of Docs read together,
        as many Docs as fill the windows of one call of the model (the same
        recurrent steps for more windows; `batch_size` is not needed)."""
        for batch in by_characters(docs, WINDOWS_PER_CALL * self.segmenter.window):
            todo = [doc for doc in batch if self._splits(doc)]
            if self.reads_unpunctuated():
                bare = [has_no_punctuation(doc) for doc in todo]
                self.unpunctuated.split([doc for doc, b in zip(todo, bare) if b])
                todo = [doc for doc, b in zip(todo, bare) if not b]
            self.split(todo)
            yield from batch

    def split(self, docs: List[Doc]) -> None:
        """Set the sentence starts of Docs read together, with these models."""
        if not docs:
            return
        texts = [unwrapped(doc.text) for doc in docs]
        if self.reads_words() and not self.words.reads_chars() and WORD_SURE:
            word_ends = self.words.end_probabilities(docs, None, texts)
            char_ends = self._ends_where_unsure(docs, texts, word_ends)
            for doc, text, ends, by_words in zip(docs, texts, char_ends, word_ends):
                self._set_starts(doc, text, None, ends, by_words)
            return
        read = self.segmenter.read(texts)
        word_ends = [None] * len(docs)
        if self.reads_words():
            char_ends = [ends for _, ends in read] if self.words.reads_chars() else None
            word_ends = self.words.end_probabilities(docs, char_ends, texts)
        for doc, text, (label, ends), by_words in zip(docs, texts, read, word_ends):
            self._set_starts(doc, text, label, ends, by_words)

    def _ends_where_unsure(self, docs: List[Doc], texts: List[str],
                           word_ends: List[numpy.ndarray]) -> List[numpy.ndarray]:
        """Per Doc, per character, the probability that a sentence ends there:
        the character model's, read only around the words whose word-level
        probability is within WORD_SURE of neither 0 nor 1 (CHAR_CONTEXT
        characters before and after each, cut at whitespace); at every other
        word's last character the word model's own, so that the mean of the two
        is the word model's."""
        found, pieces, sure_ends = [], [], []
        for i, (doc, text, by_words) in enumerate(zip(docs, texts, word_ends)):
            _, _, last = word_characters(doc)
            sure = (by_words < WORD_SURE) | (by_words > 1.0 - WORD_SURE)
            found.append(numpy.zeros(len(text), dtype="float32"))
            sure_ends.append((last[sure], by_words[sure]))
            pieces += [(i, a, b) for a, b in spans_around(text, last[~sure], *CHAR_CONTEXT)]
        read = self.segmenter.read([texts[i][a:b] for i, a, b in pieces])
        for (i, a, b), (_, ends) in zip(pieces, read):
            found[i][a:b] = ends
        for ends, (at, by_words) in zip(found, sure_ends):
            ends[at] = by_words  # the mean of the two: the word model's
        return found

    def decisions(self) -> dict:
        """What decides where this senter ends sentences as it predicts (`score`
        writes it beside the scores)."""
        found = ({"unpunctuated": True, "punctuated_by": SENTENCE_MARKS_RULE}
                 if self.reads_unpunctuated() else {})
        if not self.reads_words():
            return {"reads_words": False, **found}
        return {"reads_words": True, "char_models": self.segmenter.models,
                "word_models": self.words.models,
                "end_threshold": self.end_threshold,
                "word_sure": WORD_SURE, "char_context": list(CHAR_CONTEXT), **found}

    def reads_unpunctuated(self) -> bool:
        """Whether Docs without punctuation go to models of their own (asked for,
        and trained: a pipeline saved before they existed has none)."""
        return self.unpunctuated is not None and self.unpunctuated_learned

    def reads_words(self) -> bool:
        """Whether the word-level model has a say (asked for, and trained: a
        pipeline saved before it existed has none)."""
        return self.words is not None and self.words.model is not None

    @staticmethod
    def _splits(doc: Doc) -> bool:
        """Whether the Doc needs its sentences: not empty, and not every start given
        (as gold sentences are)."""
        return bool(len(doc)) and not doc.has_annotation("SENT_START", require_complete=True)

    def _set_starts(self, doc: Doc, text: str, label: numpy.ndarray,
                    ends: numpy.ndarray, word_ends: Optional[numpy.ndarray] = None) -> None:
        """Every token's sentence start, found with array operations over the
        Doc's words and set in one (spaCy's per-token setter checks the whole
        Doc each time: quadratic in its length). A word starts a sentence where
        one ends at the word before it (the segmenter's label at its last
        character; with `word_ends`, each word's probability by the word-level
        model, the mean of the two probabilities above `end_threshold`), or where a
        blank line comes between them; whitespace tokens never start one."""
        starts = numpy.full(len(doc), -1, dtype="int64")  # SENT_START: 1 yes, -1 no
        starts[0] = 1
        words, first, last = word_characters(doc)
        if len(words):
            breaks = paragraph_breaks(text)
            paragraph = (numpy.searchsorted(breaks, first[1:])
                         > numpy.searchsorted(breaks, last[:-1] + 1))  # a blank line between
            end = ends[last[:-1]]
            if word_ends is None:
                ended = label[last[:-1]] == SENTENCE_END
            else:
                end = (end + word_ends[:-1]) / 2
                ended = end > self.end_threshold
            word_starts = numpy.concatenate([[True], paragraph | ended])
            if self.max_sentence_words and len(words) > self.max_sentence_words:
                boundary = numpy.concatenate([[1.0], numpy.where(paragraph, 1.0, end)])
                word_starts = split_long_sentences(word_starts, boundary,
                                                   self.max_sentence_words)
            starts[words] = numpy.where(word_starts, 1, -1)
        doc.from_array([SENT_START], starts.astype("uint64").reshape(-1, 1))

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None, epochs: int = 6, batch_size: int = 32,
                   learn_rate: float = 0.002, seed: int = 0,
                   treebank: Optional[Union[str, Path]] = None,
                   training_text: str = "varied", word_epochs: int = 8,
                   fresh_layouts: bool = False, min_epoch_sentences: int = 0,
                   dev: Optional[Union[str, Path]] = None,
                   teachers: Sequence[Union[str, Path]] = (),
                   teacher_weight: float = TEACHER_WEIGHT,
                   threshold_dev: Optional[Union[str, Path]] = None,
                   thresholds: Sequence[float] = THRESHOLDS) -> None:
        vocab = nlp.vocab if nlp is not None else None
        for threshold in thresholds:
            if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) \
                    or not 0.0 < threshold < 1.0:
                raise ValueError(f"[initialize.components.{self.name}] thresholds must be "
                                 f"numbers between 0 and 1 (exclusive), got {threshold!r}.")
        if threshold_dev is not None and not thresholds:
            raise ValueError(f"[initialize.components.{self.name}] threshold_dev needs "
                             "thresholds to choose from.")
        taught = None
        if teachers:
            taught = Teachers([load_senter(path, self.segmenter.owner) for path in teachers],
                              teacher_weight, self.segmenter.owner)
            if self.words is None:
                raise ValueError(f"{self.segmenter.owner}: teachers need a word-level model "
                                 "in the student too (word_width > 0).")
        if self.words is not None:
            self.words.model = None  # the characters alone while they learn
        score = None
        if dev is not None:
            score = self._held_out_score(dev, nlp, seed)
        layouts = self.segmenter.learn(get_examples, treebank, vocab, epochs=epochs,
                                       batch_size=batch_size, learn_rate=learn_rate, seed=seed,
                                       training_text=training_text,
                                       fresh_layouts=fresh_layouts,
                                       min_epoch_sentences=min_epoch_sentences, score=score,
                                       targets=taught and taught.characters, read_as=unwrapped)
        self.segmenter.learned["wraps"] = "as spaces"  # read as `pipe` reads them
        if self.words is not None:
            repeats = self.segmenter.learned.get("epoch_repeats", 1)
            self.words.train(layouts, epochs=passes(word_epochs, repeats), batch_size=batch_size,
                             learn_rate=learn_rate, seed=seed, score=score,
                             targets=taught and taught.words,
                             char_ends=self._char_ends if self.words.reads_chars() else None,
                             read_as=unwrapped)
        if self.unpunctuated is not None:  # the same, on the text without punctuation
            self.unpunctuated.initialize(get_examples, nlp=nlp, epochs=epochs,
                                         batch_size=batch_size, learn_rate=learn_rate,
                                         seed=seed, treebank=treebank,
                                         training_text="unpunctuated", word_epochs=word_epochs,
                                         fresh_layouts=fresh_layouts,
                                         min_epoch_sentences=min_epoch_sentences)
            self.unpunctuated_learned = True
        if threshold_dev is not None:
            self.choose_threshold(self._held_out_score(threshold_dev, nlp, seed), thresholds)

    def choose_threshold(self, score: Callable[[], float], thresholds: Sequence[float]) -> float:
        """Set end_threshold to the one of `thresholds` whose sentences `score`
        best (the first of equals); each one's score is in the character
        model's `learned["end_thresholds"]`."""
        scores = {}
        for threshold in thresholds:
            self.end_threshold = float(threshold)
            scores[str(threshold)] = round(score(), 6)
        best = max(thresholds, key=lambda t: scores[str(t)])
        self.end_threshold = self.chosen_threshold = float(best)
        self.segmenter.learned["end_thresholds"] = scores
        return self.chosen_threshold

    initialize.__doc__ = ("Train the segmenter on the training text's sentences (and words: "
                          "it learns them too, which helps it find sentence ends), then the "
                          "word-level model on the same text.\n\n" + LEARN_DOC
                          + "word_epochs (int): the word-level model's passes over it (times "
                          "as many with min_epoch_sentences).\n"
                          "With `unpunctuated`, the second pair of models then learns the "
                          "same way from the same text without punctuation (no teachers, "
                          "no dev).\n"
                          "fresh_layouts (bool): lay the training sentences out anew each "
                          "epoch (with training_text = \"varied\").\n"
                          "dev (Optional[Path]): a converted held-out corpus (.spacy), e.g. "
                          "${paths.dev}: each model keeps the weights of the epoch whose "
                          "sentences scored best on it, laid out in UD's text form and read "
                          "through the pipeline's tokenizer (null: the last epoch's).\n"
                          "teachers (List[Path]): trained pipelines with an elstm_senter "
                          "(`scripts/train_senter.py`): both models learn their senters' "
                          "mean probabilities (`text/distillation.py`; empty: the gold "
                          "labels alone).\n"
                          "teacher_weight (float): the teachers' share of what is learned, "
                          "the gold labels' the rest.\n"
                          "threshold_dev (Optional[Path]): a converted held-out corpus "
                          "(.spacy), e.g. ${paths.dev}: once trained, the senter keeps the "
                          "end_threshold among `thresholds` whose sentences score best on "
                          "it, laid out in UD's text form and read through the pipeline's "
                          "tokenizer, and saves it with its models (it then stands in for "
                          "the config's end_threshold); null: the config's.\n"
                          "thresholds (List[float]): the end_thresholds threshold_dev "
                          "chooses from.\n")

    def _char_ends(self, docs: Sequence[Doc]) -> List[numpy.ndarray]:
        """The character model's end probabilities of each Doc's characters,
        read as `pipe` reads them (the word model learns from them with
        `word_char_bins`)."""
        return [ends for _, ends in self.segmenter.read([unwrapped(d.text) for d in docs])]

    def _held_out_score(self, dev: Union[str, Path], nlp: Optional[Language],
                        seed: int) -> Callable[[], float]:
        """Sentence F1 of this senter on the held-out corpus as it is now."""
        owner = self.segmenter.owner
        gold = held_out_docs(dev, nlp.vocab if nlp is not None else Vocab(), owner, seed)

        def make_doc(reference: Doc) -> Doc:
            if nlp is not None:
                return nlp.make_doc(reference.text)
            return Doc(reference.vocab, words=[t.text for t in reference],
                       spaces=[bool(t.whitespace_) for t in reference])

        def score() -> float:
            return sentence_f1(gold, list(self.pipe(make_doc(d) for d in gold)))
        return score

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        if not self.reads_words() and not self.reads_unpunctuated():
            return self.segmenter.to_bytes()  # the layout of pipelines saved before the word model
        msg = {"segmenter": self.segmenter.to_bytes()}
        if self.reads_words():
            msg["words"] = self.words.to_bytes()
        if self.reads_unpunctuated():
            msg[UNPUNCTUATED] = self.unpunctuated.to_bytes()
        if self.chosen_threshold is not None:
            msg["end_threshold"] = self.chosen_threshold
        return srsly.msgpack_dumps(msg)

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = tuple()) -> "ELSTMSenter":
        msg = srsly.msgpack_loads(data)
        if "segmenter" not in msg:  # saved without a word-level model
            self.segmenter.from_bytes(data)
            return self
        self.segmenter.from_bytes(msg["segmenter"])
        if self.words is not None and "words" in msg:
            self.words.from_bytes(msg["words"])
        if self.unpunctuated is not None and UNPUNCTUATED in msg:
            self.unpunctuated.from_bytes(msg[UNPUNCTUATED])
            self.unpunctuated_learned = True
        if "end_threshold" in msg:
            self.end_threshold = self.chosen_threshold = msg["end_threshold"]
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        path = ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / "segmenter.bin").write_bytes(self.segmenter.to_bytes())
        if self.reads_words():
            (path / "words.bin").write_bytes(self.words.to_bytes())
        if self.reads_unpunctuated():
            self.unpunctuated.to_disk(path / UNPUNCTUATED)
        if self.chosen_threshold is not None:
            srsly.write_json(path / CHOSEN_THRESHOLD, {"end_threshold": self.chosen_threshold})

    def from_disk(self, path: Union[str, Path], *,
                  exclude: Iterable[str] = tuple()) -> "ELSTMSenter":
        path = ensure_path(path)
        self.segmenter.from_bytes((path / "segmenter.bin").read_bytes())
        if self.words is not None and (path / "words.bin").exists():
            self.words.from_bytes((path / "words.bin").read_bytes())
        if self.unpunctuated is not None and (path / UNPUNCTUATED).is_dir():
            self.unpunctuated.from_disk(path / UNPUNCTUATED)
            self.unpunctuated_learned = True
        if (path / CHOSEN_THRESHOLD).exists():  # a senter saved before it chose none
            found = srsly.read_json(path / CHOSEN_THRESHOLD)["end_threshold"]
            self.end_threshold = self.chosen_threshold = found
        return self


def load_senter(path: Union[str, Path], owner: str) -> "ELSTMSenter":
    """The elstm_senter of the trained pipeline at `path`."""
    if not Path(path).is_dir():
        raise ValueError(f"{owner}: teacher {str(path)!r} is not a directory (a trained "
                         "pipeline with an elstm_senter, as scripts/train_senter.py saves).")
    nlp = spacy.load(path)
    found = [pipe for _, pipe in nlp.pipeline if isinstance(pipe, ELSTMSenter)]
    if not found:
        raise ValueError(f"{owner}: teacher {str(path)!r} has no elstm_senter (its pipes: "
                         f"{', '.join(nlp.pipe_names)}).")
    return found[0]


def word_characters(doc: Doc) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """The Doc's words (their token indices, whitespace tokens left out), and
    the offset of each one's first character and of its last."""
    idx, length, space = doc.to_array([IDX, LENGTH, IS_SPACE]).astype("int64").T
    words = numpy.flatnonzero(space == 0)
    return words, idx[words], idx[words] + length[words] - 1


def spans_around(text: str, positions: numpy.ndarray, before: int,
                 after: int) -> List[Tuple[int, int]]:
    """(start, end) of the text around each position (in order), `before`
    characters before it and `after` after it, widened to the whitespace
    around (with array operations: linear in the text's length), overlaps merged."""
    if not len(positions):
        return []
    spaces = numpy.array([m.start() for m in WHITESPACE.finditer(text)], dtype="int64")
    if not len(spaces):  # one word: all of it
        return [(0, len(text))]
    starts = numpy.maximum(positions - before, 0)
    k = numpy.searchsorted(spaces, starts)  # the whitespace before each start, if any
    starts = numpy.where((k > 0) & (starts > 0), spaces[numpy.maximum(k - 1, 0)] + 1, 0)
    ends = numpy.minimum(positions + after + 1, len(text))
    k = numpy.searchsorted(spaces, ends)  # the first whitespace from each end on, if any
    ends = numpy.where(k < len(spaces), spaces[numpy.minimum(k, len(spaces) - 1)], len(text))
    spans: List[Tuple[int, int]] = []
    for a, b in zip(starts.tolist(), ends.tolist()):
        if spans and a <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], b))
        else:
            spans.append((a, b))
    return spans


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
