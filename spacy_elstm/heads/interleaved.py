"""Su & Kuo's dependency-parsing target (Sec. 5): each word as two labels in
turn, its relation and the position of its head, so a sentence of T words is
a target of 2T labels over one vocabulary.

A position is the head's CoNLL-U number within the sentence, written "@p": "@0"
for the root, "@j" for the sentence's j-th word (1-based). Relations are
written as they are. A word's pair is (relation, position).

Decoding reads, for each word, the scores of both steps: the relation is the
best-scoring relation label of the first step; the heads are the maximum
spanning tree (``mst``) over the second step's position scores, so the result
is always a tree with one root, whatever the scores. A position the label set
lacks (a sentence longer than any seen in training) scores below every label's
score; ``mst`` never makes a word its own head.
"""
from typing import List, Optional, Sequence, Tuple

import numpy

from .mst import mst_heads

POSITION = "@"


def position_label(position: int) -> str:
    return f"{POSITION}{position}"


def is_position(label: str) -> bool:
    return label.startswith(POSITION) and label[len(POSITION):].isdigit()


def encode_pairs(heads: Sequence[Optional[int]], deps: Sequence[Optional[str]],
                 sent_starts: Sequence[int]) -> List[Optional[Tuple[str, str]]]:
    """(relation, position) per word; None where the head or relation is
    missing or the head is outside the word's sentence. Heads are indices into
    the same words (a root its own head); ``sent_starts[i]`` is the index of
    the first word of word i's sentence, and a sentence ends where the next
    starts."""
    pairs: List[Optional[Tuple[str, str]]] = []
    n = len(heads)
    for i, (head, dep) in enumerate(zip(heads, deps)):
        start = sent_starts[i]
        if head is None or not dep or not 0 <= head < n or sent_starts[head] != start:
            pairs.append(None)
            continue
        pairs.append((dep, position_label(0 if head == i else head - start + 1)))
    return pairs


class PairLabels:
    """A component's labels (relations and positions, in any order), parsed once."""

    def __init__(self, labels: Sequence[str]):
        self.labels = list(labels)
        self.relations = numpy.asarray([i for i, label in enumerate(self.labels)
                                        if not is_position(label)], dtype="i")
        self.positions = {int(label[len(POSITION):]): i for i, label in enumerate(self.labels)
                          if is_position(label)}
        if not len(self.relations) or not self.positions:
            raise ValueError(f"Interleaved labels need relations and head positions "
                             f"({POSITION}0, {POSITION}1, ...); got {self.labels[:10]}.")


def decode_pairs(scores, label_set: PairLabels) -> Tuple[List[int], List[str]]:
    """The heads (sentence indices, a root its own head) and relations of one
    sentence from its (n_words, 2 * n_labels) scores: step 1's block, then step 2's."""
    scores = numpy.asarray(scores, dtype="float64")
    n = scores.shape[0]
    v = len(label_set.labels)
    if scores.ndim != 2 or scores.shape[1] != 2 * v:
        raise ValueError(f"Expected (n_words, {2 * v}) scores for {v} labels, got shape "
                         f"{scores.shape}.")
    if n == 0:
        return [], []
    first, second = scores[:, :v], scores[:, v:]
    relations = label_set.relations[first[:, label_set.relations].argmax(axis=1)]
    floor = float(second.min()) - 1.0
    arcs = numpy.full((n, n + 1), floor)  # arcs[i, p]: word i's head at position p
    for position, column in label_set.positions.items():
        if position <= n:
            arcs[:, position] = second[:, column]
    heads = [i if p == 0 else p - 1 for i, p in enumerate(mst_heads(arcs))]
    return heads, [label_set.labels[r] for r in relations]
