"""A bounded cache of per-word vectors for inference: each word's row in a
fixed table, the least recently used word giving up its row to a new one.

A layer whose output for a word depends on the word's string only (the
character-level embedding, ``chars.py``) looks a batch's distinct words up here
and computes the missing ones alone. The rows are valid for one set of weights:
the layer passes a fingerprint of its weights with every batch, and a new one
empties the cache (an update, ``use_params``, ``from_bytes``).
"""
import weakref
from collections import OrderedDict
from typing import Any, Hashable, List, Sequence, Tuple

from thinc.api import Model

# the cache of each layer that has one, by the layer's id (see ``word_caches``)
_CACHES: "weakref.WeakValueDictionary[int, WordCache]" = weakref.WeakValueDictionary()


class WordCache:
    """Rows of ``size`` words, filled on demand. ``hits`` and ``misses`` count
    the words looked up since the cache was made."""

    def __init__(self, size: int):
        if size < 1:
            raise ValueError(f"WordCache size {size}: it must be at least 1.")
        self.size = size
        self.rows: "OrderedDict[bytes, int]" = OrderedDict()  # least recently used first
        self.table: Any = None  # (size, width), allocated by the layer on first use
        self.fingerprint: Hashable = None
        self.hits = 0
        self.misses = 0

    def clear(self) -> None:
        """Forget every word (the counts stay)."""
        self.rows.clear()

    def check_weights(self, fingerprint: Hashable) -> None:
        """Empty the cache unless its rows were made by weights of this fingerprint."""
        if fingerprint != self.fingerprint:
            self.clear()
            self.fingerprint = fingerprint

    def assign(self, words: Sequence[bytes]) -> Tuple[List[int], List[int]]:
        """The row of each of ``words`` (distinct, at most ``size`` of them), and
        the positions in ``words`` of those whose row the caller must fill:
        new words take a free row or the least recently used word's."""
        if len(words) > self.size:
            raise ValueError(f"{len(words)} distinct words for a WordCache of {self.size}.")
        rows, missing = [], []
        for i, word in enumerate(words):
            row = self.rows.get(word)
            if row is None:
                if len(self.rows) < self.size:
                    row = len(self.rows)
                else:
                    _, row = self.rows.popitem(last=False)
                self.rows[word] = row
                missing.append(i)
            else:
                self.rows.move_to_end(word)
            rows.append(row)
        self.misses += len(missing)
        self.hits += len(words) - len(missing)
        return rows, missing


def register(model: Model, cache: WordCache) -> None:
    """Make ``cache`` the one ``word_caches`` finds for the layer ``model``."""
    _CACHES[model.id] = cache


def word_caches(model: Model) -> List[WordCache]:
    """The caches of the layers inside ``model`` (benchmarks empty them between
    passes over the same text, and read their counts)."""
    return [_CACHES[node.id] for node in model.walk() if node.id in _CACHES]
