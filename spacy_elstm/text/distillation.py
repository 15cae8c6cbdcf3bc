"""Several trained senters taught to one (knowledge distillation): the student's
character model learns, for each character of its training text, the mean of
the teachers' character models' probabilities of each label, and its word-level
model the mean of the teachers' word-level probabilities that a sentence ends
after each word, each mixed with the gold label by `weight` (1.0: the teachers'
mean alone, 0.0: the gold labels alone).

Averaged senters split sentences better than each alone (the seed lottery of a
small model trained once: `python -m lab.senter_ensemble`), but cost their
number's times one's; a student of one senter's size costs one's.
"""
from typing import List, Sequence

import numpy
from spacy.tokens import Doc

from .segmenter import LABELS, gold_labels
from .word_sentences import gold_ends, word_index
from .wrapping import unwrapped


class Teachers:
    """Trained senters (`components/elstm_senter.ELSTMSenter`), as the targets
    that `Segmenter.train` and `WordSentences.train` take."""

    def __init__(self, senters: Sequence, weight: float, owner: str):
        if not senters:
            raise ValueError(f"{owner}: distillation needs at least one teacher.")
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"{owner}: teacher_weight must be between 0.0 and 1.0, "
                             f"got {weight!r}.")
        without_words = [k for k, s in enumerate(senters) if not s.reads_words()]
        if without_words:
            raise ValueError(f"{owner}: teacher {without_words[0] + 1} has no trained "
                             "word-level model (its pipeline was trained with word_width = 0 "
                             "or before the word model existed).")
        self.senters = list(senters)
        self.weight = weight

    def characters(self, docs: Sequence[Doc]) -> List[numpy.ndarray]:
        """Per Doc, (characters, labels) float32: the teachers' mean probability
        of each label, mixed with the gold label."""
        texts = [unwrapped(doc.text) for doc in docs]  # as the senters read it
        found = [s.segmenter.probabilities(texts) for s in self.senters]
        out = []
        for doc, per_teacher in zip(docs, zip(*found)):
            gold = numpy.eye(len(LABELS), dtype="float32")[gold_labels(doc)]
            out.append(self._mix(numpy.mean(per_teacher, axis=0), gold))
        return out

    def words(self, docs: Sequence[Doc]) -> List[numpy.ndarray]:
        """Per Doc, per word (as `WordSentences.features` lists them), float32:
        the teachers' mean probability that a sentence ends after it, mixed with
        the gold one."""
        texts = [unwrapped(doc.text) for doc in docs]
        found = [s.words.end_probabilities(docs, texts=texts) for s in self.senters]
        return [self._mix(numpy.mean(per_teacher, axis=0), gold_ends(doc, word_index(doc)))
                for doc, per_teacher in zip(docs, zip(*found))]

    def _mix(self, taught: numpy.ndarray, gold: numpy.ndarray) -> numpy.ndarray:
        return (self.weight * taught + (1.0 - self.weight) * gold).astype("float32")
