"""m-bounded Dyck-2 strings: two kinds of brackets, well nested, never more
than m open at once.

A string of length L (even) is drawn one symbol at a time, with d brackets
open and r symbols still to come: it opens one when d = 0, closes the
innermost one when d = m or d = r (only closing can still end the string
well formed), and otherwise opens one with probability ``p_open`` (the kind
uniform among the two) or closes the innermost. L itself is uniform over the
even lengths in [min_length, max_length]. The paper trains on data it was
given (by Hewitt et al.) and states neither the lengths nor how they were
drawn; these are ours, and ``DyckData`` records them with the strings.
"""
import random
from dataclasses import asdict, dataclass
from typing import Dict, List, Tuple

OPEN = ("(", "[")
CLOSE = (")", "]")
BOS, EOS = "<s>", "</s>"
VOCAB: Tuple[str, ...] = OPEN + CLOSE + (BOS, EOS)
IDS: Dict[str, int] = {symbol: i for i, symbol in enumerate(VOCAB)}
CLOSE_IDS: Tuple[int, ...] = tuple(IDS[c] for c in CLOSE)


@dataclass(frozen=True)
class DyckData:
    """What is drawn: ``train``/``dev``/``test`` strings (the paper's 10,000 /
    4,000 / 10,000), of even lengths in [min_length, max_length], at most ``m``
    open, from ``seed`` (each split has its own stream, so changing one size
    leaves the other splits' strings as they were)."""

    m: int
    train: int = 10_000
    dev: int = 4_000
    test: int = 10_000
    min_length: int = 2
    max_length: int = 200
    p_open: float = 0.5
    seed: int = 0

    def check(self) -> "DyckData":
        for name in ("m", "min_length", "max_length"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}.")
        for name in ("train", "dev", "test"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"the {name} size must be an integer >= 0, got {value!r}.")
        if self.min_length > self.max_length or self.max_length < 2:
            raise ValueError(f"the lengths must satisfy 1 <= min_length <= max_length and "
                             f"max_length >= 2, got [{self.min_length}, {self.max_length}].")
        if not 0 < self.p_open < 1:
            raise ValueError(f"p_open must be in (0, 1), got {self.p_open!r}.")
        return self

    def splits(self) -> Dict[str, List[List[str]]]:
        """{"train": [...], "dev": [...], "test": [...]}, each a list of strings
        (lists of brackets)."""
        self.check()
        out = {}
        for split in ("train", "dev", "test"):
            rng = random.Random(f"dyck-{self.m}-{self.seed}-{split}")
            out[split] = [self.string(rng) for _ in range(getattr(self, split))]
        return out

    def string(self, rng: random.Random) -> List[str]:
        low = self.min_length + self.min_length % 2  # the even lengths in range
        length = rng.randrange(low, self.max_length + 1, 2)
        stack: List[int] = []
        out: List[str] = []
        for position in range(length):
            left = length - position
            d = len(stack)
            # d and left have the parity of position (L is even), so d < left
            # leaves room to open one more and still close them all
            if d > 0 and (d == self.m or d == left or rng.random() >= self.p_open):
                out.append(CLOSE[stack.pop()])
            else:
                kind = rng.randrange(len(OPEN))
                stack.append(kind)
                out.append(OPEN[kind])
        return out

    def to_dict(self) -> dict:
        return asdict(self)


def is_well_formed(string: List[str], m: int) -> bool:
    """The brackets nest, every one is closed, and at most ``m`` are open at once."""
    stack: List[str] = []
    for symbol in string:
        if symbol in OPEN:
            stack.append(symbol)
            if len(stack) > m:
                return False
        elif symbol in CLOSE:
            if not stack or OPEN.index(stack.pop()) != CLOSE.index(symbol):
                return False
        else:
            return False
    return not stack


def closing_distances(string: List[str]) -> List[int]:
    """For each position, the distance back to the bracket that the one there
    closes (position - its opening position), 0 at an opening bracket."""
    stack: List[int] = []
    out = []
    for position, symbol in enumerate(string):
        if symbol in OPEN:
            stack.append(position)
            out.append(0)
        else:
            out.append(position - stack.pop())
    return out


def encode(string: List[str]) -> Tuple[List[int], List[int]]:
    """(inputs, targets) of next-symbol prediction: <s> + string, string + </s>."""
    ids = [IDS[s] for s in string]
    return [IDS[BOS]] + ids, ids + [IDS[EOS]]
