"""From per-word label scores to a well-formed dependency tree.

Given a sentence's (n_words, n_labels) scores (log-probabilities; higher is
better), each word first takes its best-scoring *valid* label: one whose head is
a word of the sentence (for the ``pos`` encoding, one such that the named word
exists). The labels alone need not make a tree, so the result is repaired:

1. Roots. With no root, the word with the highest root score (its best score
   over the root labels) becomes the root; with several, the one with the highest
   root score stays the root and the others are attached to it.
2. Cycles. Every word now has a head; following heads from a word ends at the
   root or in a cycle. Each cycle is broken by attaching one of its words to the
   root: the word whose change costs least, the cost being the score of its
   chosen label minus the score of its best label whose head is the root
   (infinite if no label gives it that head; ties go to the leftmost word).
   Attaching to the root creates no new cycle, so one pass suffices.

A word attached by the repair takes the relation of its best label whose head is
its new head, or, if no label gives that head, of its best non-root label.

The result has exactly one root, no cycles, and every head inside the sentence.

Cost: O(n log n) for n words (the label count a constant factor). A word's labels
are sorted only if its best one names no word; a ``pos`` head is a binary search
(``encoding.Positions``); the best label with a given head is looked up by the
head it names (``LabelSet.with_head``), not found by trying every label.
"""
from typing import List, Optional, Sequence, Tuple

import numpy

from .encoding import POS, check_pos, get_encoding, is_root, positions, relation, split

FALLBACK_DEP = "dep"
FALLBACK_ROOT_DEP = "ROOT"


class LabelSet:
    """A component's labels for one encoding, parsed once."""

    def __init__(self, labels: Sequence[str], encoding: str):
        self.encoding = get_encoding(encoding)
        self.labels = list(labels)
        self.fields = [split(label, self.encoding) for label in self.labels]
        self.relations = [relation(label, self.encoding) for label in self.labels]
        self.roots = numpy.asarray([i for i, label in enumerate(self.labels) if is_root(label)],
                                   dtype="i")
        by_key = {}
        for index, fields in enumerate(self.fields):
            by_key.setdefault(self.encoding.head_key(fields), []).append(index)
        # the labels that give a word the same head, by head_key, in label order
        self.by_key = {key: numpy.asarray(indices, dtype="i") for key, indices in by_key.items()}

    def with_head(self, i: int, head: int, pos: Optional[POS]):
        """The indices of the labels that give word i this head (in label order)."""
        key = self.encoding.key_for(i, head, pos)
        return self.by_key.get(key, ()) if key is not None else ()

    def head(self, index: int, i: int, pos: Optional[POS], n: int) -> Optional[int]:
        """The head label ``index`` gives word ``i`` of an ``n``-word sentence;
        None if it names no word of the sentence."""
        head = self.encoding.head(self.fields[index], i, pos)
        return head if head is not None and 0 <= head < n else None


def decode_scores(scores, label_set: LabelSet,
                  pos: Optional[POS] = None) -> Tuple[List[int], List[str]]:
    """The heads (sentence indices, a root its own head) and relations of a
    sentence from its (n_words, n_labels) scores; see the module docstring."""
    scores = numpy.asarray(scores, dtype="f")
    n = scores.shape[0]
    if n == 0:
        return [], []
    if scores.shape[1] != len(label_set.labels):
        raise ValueError(f"{scores.shape[1]} score columns for {len(label_set.labels)} labels.")
    check_pos(label_set.encoding, n, pos)
    if label_set.encoding.name == "pos":
        pos = positions(pos)  # each lookup a binary search: linear-log in n overall
    best = scores.argmax(axis=1)  # the first of equal maxima, as the stable sort's
    rankings = {}

    def ranked(i: int):
        """Word i's labels, best first (sorted only for the words that need it)."""
        if i not in rankings:
            rankings[i] = numpy.argsort(-scores[i], kind="stable")
        return rankings[i]

    heads: List[Optional[int]] = [None] * n
    chosen: List[Optional[int]] = [None] * n
    for i in range(n):
        head = label_set.head(int(best[i]), i, pos, n)
        if head is not None:
            heads[i], chosen[i] = head, int(best[i])
            continue
        for index in ranked(i):
            head = label_set.head(int(index), i, pos, n)
            if head is not None:
                heads[i], chosen[i] = head, int(index)
                break
    if len(label_set.roots):
        root_scores = scores[:, label_set.roots].max(axis=1)
    else:
        root_scores = numpy.full(n, -numpy.inf, dtype="f")

    def best_with_head(i: int, target: int) -> Optional[int]:
        """The best label giving word i that head (the lowest index of equals)."""
        indices = label_set.with_head(i, target, pos)
        if not len(indices):
            return None
        return int(indices[int(scores[i, indices].argmax())])

    def attach(i: int, target: int) -> None:
        heads[i] = target
        index = best_with_head(i, target)
        if index is None:
            index = next((int(j) for j in ranked(i) if not is_root(label_set.labels[j])), None)
        chosen[i] = index

    roots = [i for i in range(n) if heads[i] == i]
    root = max(roots or range(n), key=lambda i: (root_scores[i], -i))
    if not roots:
        heads[root] = root
        chosen[root] = best_with_head(root, root)
    for i in range(n):
        if i != root and (heads[i] is None or heads[i] == i):
            attach(i, root)

    def cost(i: int) -> float:
        index = best_with_head(i, root)
        return numpy.inf if index is None else float(scores[i, chosen[i]] - scores[i, index])

    for cycle in cycles(heads, root):
        attach(min(cycle, key=lambda i: (cost(i), i)), root)
    deps = []
    for i in range(n):
        if chosen[i] is not None and not (is_root(label_set.labels[chosen[i]]) and i != root):
            deps.append(label_set.relations[chosen[i]])
        else:
            deps.append(FALLBACK_ROOT_DEP if i == root else FALLBACK_DEP)
    return heads, deps


def cycles(heads: Sequence[int], root: int) -> List[List[int]]:
    """The cycles of a head list (heads[i]: word i's head), the head of ``root``
    never followed (a self-headed root, or ROOT's placeholder in ``mst``)."""
    state = [0] * len(heads)  # 0 unseen, 1 on the current path, 2 finished
    state[root] = 2
    found = []
    for start in range(len(heads)):
        path = []
        i = start
        while state[i] == 0:
            state[i] = 1
            path.append(i)
            i = heads[i]
        if state[i] == 1:
            found.append(path[path.index(i):])
        for j in path:
            state[j] = 2
    return found


def is_tree(heads: Sequence[int]) -> bool:
    """Whether ``heads`` (a root its own head) is one tree over the sentence."""
    n = len(heads)
    if n == 0:
        return True
    if any(not 0 <= h < n for h in heads) or sum(h == i for i, h in enumerate(heads)) != 1:
        return False
    root = next(i for i, h in enumerate(heads) if h == i)
    return not cycles(list(heads), root)
