"""Dependency trees as one label per word (parsing as sequence labelling).

A word's label names its head and its relation. Heads are indices within one
sentence (0..n-1); a root is its own head, as in spaCy. Two encodings:

- ``relative``: "offset|dep", offset = i_head - i (e.g. "-1|amod", "+2|nsubj");
  a root is "0|dep".
- ``pos`` (Strzyz et al. 2019): "k|P|dep": the head is the k-th word whose UPOS
  is P, counting from the word outwards, to the right for k > 0 and to the left
  for k < 0 (e.g. "+1|VERB|nsubj": the first VERB to the right); a root is
  "0|ROOT|dep". The POS a label refers to is that of the words of the sentence
  being encoded or decoded: the component encodes its training labels with the
  gold UPOS and decodes with the UPOS the doc has (``token.pos_``, predicted by
  an earlier component), never the gold.

Labels are strings so that a component can store them in its cfg. Both
encodings represent any tree, projective or not: a label decodes to the head it
was encoded from, given the same POS.

The ``pos`` encoding reads a sentence's POS through ``Positions`` (each tag's
word indices, sorted), so that finding the k-th word with a tag is a binary
search: encoding or decoding a sentence costs O(n log n), not O(n^2). Callers
that look up many labels in one sentence build ``Positions`` once and pass it
where a POS sequence is expected.
"""
from bisect import bisect_left, bisect_right
from typing import Dict, List, Optional, Sequence, Tuple, Union

SEP = "|"
ROOT_POS = "ROOT"


def _signed(k: int) -> str:
    return f"{k:+d}" if k else "0"


class Positions:
    """The words of a sentence by POS: ``at[tag]`` lists the indices of the words
    with that tag in increasing order. Reads the POS sequence once."""

    def __init__(self, pos: Sequence[str]):
        self.tags = list(pos)
        self.at: Dict[str, List[int]] = {}
        for j, tag in enumerate(self.tags):
            self.at.setdefault(tag, []).append(j)

    def __len__(self) -> int:
        return len(self.tags)

    def kth(self, tag: str, i: int, k: int) -> Optional[int]:
        """The k-th word with ``tag`` from word i outwards (k > 0 to the right,
        k < 0 to the left); None if there are fewer."""
        where = self.at.get(tag)
        if not where:
            return None
        j = bisect_right(where, i) + k - 1 if k > 0 else bisect_left(where, i) + k
        return where[j] if 0 <= j < len(where) else None

    def count(self, tag: str, lo: int, hi: int) -> int:
        """How many words lo..hi (inclusive) have ``tag``."""
        where = self.at.get(tag, ())
        return bisect_right(where, hi) - bisect_left(where, lo)


POS = Union[Sequence[str], Positions]


def positions(pos: Optional[POS]) -> Optional[Positions]:
    """``pos`` as a ``Positions`` (built once per sentence; None stays None)."""
    return pos if pos is None or isinstance(pos, Positions) else Positions(pos)


class Relative:
    """The head as a signed offset from the word."""

    name = "relative"
    n_fields = 2

    def encode_head(self, i: int, head: int, pos: Optional[POS]) -> Optional[str]:
        return _signed(head - i)

    def head(self, fields: Tuple[str, ...], i: int, pos: Optional[POS]) -> Optional[int]:
        return i + int(fields[0])

    def head_key(self, fields: Tuple[str, ...]) -> Tuple:
        """What of a label's fields decides its head (labels with equal keys
        give every word the same head)."""
        return (int(fields[0]),)

    def key_for(self, i: int, head: int, pos: Optional[POS]) -> Optional[Tuple]:
        """The ``head_key`` of the labels that give word i this head."""
        return (head - i,)


class PartOfSpeech:
    """The head as the k-th word to the left or right with a given UPOS."""

    name = "pos"
    n_fields = 3

    def encode_head(self, i: int, head: int, pos: Optional[POS]) -> Optional[str]:
        if head == i:
            return f"0{SEP}{ROOT_POS}"
        where = positions(pos)
        tag = where.tags[head]
        if not tag:
            return None  # the head's POS is unknown: no label
        k = where.count(tag, i + 1, head) if head > i else -where.count(tag, head, i - 1)
        return f"{_signed(k)}{SEP}{tag}"

    def head(self, fields: Tuple[str, ...], i: int, pos: Optional[POS]) -> Optional[int]:
        k = int(fields[0])
        return i if k == 0 else positions(pos).kth(fields[1], i, k)

    def head_key(self, fields: Tuple[str, ...]) -> Tuple:
        k = int(fields[0])
        return (0,) if k == 0 else (k, fields[1])

    def key_for(self, i: int, head: int, pos: Optional[POS]) -> Optional[Tuple]:
        code = self.encode_head(i, head, positions(pos))
        return None if code is None else self.head_key(tuple(code.split(SEP)))


ENCODINGS: Dict[str, object] = {"relative": Relative(), "pos": PartOfSpeech()}


def get_encoding(name: str):
    """The encoding called ``name``; a ValueError names the allowed ones."""
    if name not in ENCODINGS:
        raise ValueError(f"Unknown encoding {name!r}: choose one of "
                         f"{', '.join(map(repr, ENCODINGS))}.")
    return ENCODINGS[name]


def check_pos(encoding, n: int, pos: Optional[POS]) -> None:
    if encoding.name == "pos" and (pos is None or len(pos) != n):
        raise ValueError(f"The 'pos' encoding needs one POS per word: got "
                         f"{None if pos is None else len(pos)} for {n} words.")


def split(label: str, encoding) -> Tuple[str, ...]:
    """The label's fields: the head's fields, then the relation (which may hold SEP)."""
    return tuple(label.split(SEP, encoding.n_fields - 1))


def is_root(label: str) -> bool:
    return label.split(SEP, 1)[0] == "0"


def relation(label: str, encoding) -> str:
    return split(label, encoding)[-1]


def head_of(label: str, i: int, encoding, pos: Optional[POS] = None) -> Optional[int]:
    """The head word ``label`` gives word ``i`` of a sentence of ``len(pos)`` words,
    or None if there is no such word (pos) -- the caller checks the range (relative).
    Pass ``Positions(pos)`` when looking up many labels of one sentence."""
    return encoding.head(split(label, encoding), i, pos)


def encode(heads: Sequence[Optional[int]], deps: Sequence[Optional[str]], encoding: str = "relative",
           pos: Optional[Sequence[str]] = None) -> List[Optional[str]]:
    """One label per word of a sentence; None where the head or the relation is
    missing (or, for ``pos``, the head's POS is)."""
    enc = get_encoding(encoding)
    check_pos(enc, len(heads), pos)
    pos = positions(pos) if enc.name == "pos" else pos
    labels: List[Optional[str]] = []
    for i, (head, dep) in enumerate(zip(heads, deps)):
        code = enc.encode_head(i, head, pos) if head is not None and dep else None
        labels.append(None if code is None else f"{code}{SEP}{dep}")
    return labels


def decode(labels: Sequence[str], encoding: str = "relative",
           pos: Optional[Sequence[str]] = None) -> Tuple[List[Optional[int]], List[str]]:
    """The heads and relations the labels name, label by label: a head is None
    where the label names no word of the sentence. No tree repair (see
    ``decoding.decode_scores`` for that)."""
    enc = get_encoding(encoding)
    check_pos(enc, len(labels), pos)
    pos = positions(pos) if enc.name == "pos" else pos
    heads: List[Optional[int]] = []
    for i, label in enumerate(labels):
        head = head_of(label, i, enc, pos)
        heads.append(head if head is not None and 0 <= head < len(labels) else None)
    return heads, [relation(label, enc) for label in labels]
