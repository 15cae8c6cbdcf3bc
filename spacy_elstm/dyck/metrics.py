"""The bracket prediction metrics of the second-order LSTM paper (Sec. 4.2,
after Hewitt et al.): only closing brackets are scored, since nothing favours
one opening bracket over another. A prediction counts as right when at least
80% of the probability the model puts on any closing bracket is on the true
one. LDPA (long-distance prediction accuracy) is that accuracy per closing
distance (the closing bracket's position minus its opening bracket's), and
WCPA (worst-case prediction accuracy) the least LDPA over all distances.
"""
from typing import Dict, Iterable, Sequence, Tuple

THRESHOLD = 0.8


def is_right(p_true: float, p_other: float, threshold: float = THRESHOLD) -> bool:
    """p_true, p_other: the model's probabilities of the true closing bracket and
    of the other one, at the position before it."""
    total = p_true + p_other
    return total > 0 and p_true / total >= threshold


def ldpa(predictions: Iterable[Tuple[int, float, float]],
         threshold: float = THRESHOLD) -> Dict[int, Tuple[float, int]]:
    """predictions: (closing distance, p_true, p_other) per closing bracket ->
    {distance: (accuracy, number of brackets)}, in order of distance."""
    right: Dict[int, int] = {}
    seen: Dict[int, int] = {}
    for distance, p_true, p_other in predictions:
        seen[distance] = seen.get(distance, 0) + 1
        right[distance] = right.get(distance, 0) + is_right(p_true, p_other, threshold)
    return {d: (right[d] / seen[d], seen[d]) for d in sorted(seen)}


def wcpa(by_distance: Dict[int, Tuple[float, int]], min_count: int = 1) -> float:
    """The least LDPA over the distances with at least ``min_count`` brackets
    (1: every distance, the paper's WCPA); nan where there is none."""
    accuracies: Sequence[float] = [a for a, n in by_distance.values() if n >= min_count]
    return min(accuracies) if accuracies else float("nan")


def accuracy(by_distance: Dict[int, Tuple[float, int]]) -> float:
    """The accuracy over all closing brackets, whatever their distance."""
    total = sum(n for _, n in by_distance.values())
    return sum(a * n for a, n in by_distance.values()) / total if total else float("nan")
