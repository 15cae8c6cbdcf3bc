"""A sentence without its punctuation, as speech transcripts come: the one rule
for where the remaining words hang, used by the gold files that score text
without punctuation (`gold_variants.py`) and by the training examples that
teach a tagger and parser such text (`training/augmenters.py`).

Each removed word's dependents hang from its nearest kept ancestor; where the
root is removed, the first of the words left without a head becomes the root
and the others hang from it.
"""
from typing import Dict, Iterable, Sequence

ROOT = -1  # the head of a sentence's root


def rehung_heads(heads: Sequence[int], removed: Iterable[int]) -> Dict[int, int]:
    """Per kept word (0-based), its head among the kept words (ROOT for the
    root): `heads[i]` is word i's head, ROOT for the sentence's root. Exactly
    one kept word is the root; no word is kept: {}."""
    removed = set(removed)

    def kept_head(i: int) -> int:
        head = heads[i]
        while head != ROOT and head in removed:
            head = heads[head]
        return head
    new_heads = {i: kept_head(i) for i in range(len(heads)) if i not in removed}
    roots = [i for i, head in new_heads.items() if head == ROOT]
    for other in roots[1:]:
        new_heads[other] = roots[0]
    return new_heads
