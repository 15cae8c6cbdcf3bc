"""How the layers of the encoders are wired together (the options of v2; v1 is
v2 with them off).

Each piece is a ``SequenceModule`` (packed in, packed out) that works on one
token's row at a time, so none of them can read padding or let one sequence
reach another; the recurrences inside a ``Block`` are untouched by it.

- ``WordDropout``: while training, each token's whole input row is zeroed with
  probability p (one draw per token, whatever else is in the batch) and the
  surviving rows are scaled by 1 / (1 - p), as ``nn.Dropout`` scales its
  elements, so that the expected input is what prediction sees.
- ``Dropout``: ``nn.Dropout`` on every element while training.
- ``Linear``: an affine map of every row (the output projection, and the skip
  path of a residual block whose input is not as wide as its output).
- ``Block``: one layer f and its connections, post-norm:
  ``y = norm(skip(x) + dropout(f(x)))``, where skip(x) is x (or, if x is not as
  wide as f's output, a learned linear map of x without bias) with ``residual``
  and 0 without, and norm is a ``LayerNorm`` with ``layer_norm`` and the
  identity without. Without both it is v1's ``dropout(f(x))``.
- ``Wired``: the frame of an encoder: word dropout, then dropout, on the
  incoming vectors; the blocks in order; then, with ``projection``, a final
  ``Linear`` from width to width.

A dropout probability of 0 skips the module's work altogether (and draws no
random numbers), so a v2 encoder with every option off computes what v1
computes, in training too, given the same weights and seed.
"""
from typing import Iterable, Optional

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from .mode import is_training
from .packing import Packing
from .sequence import SequenceModule


def _check_probability(name: str, p: float) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p < 1:
        raise ValueError(f"{name} must be a number in [0, 1), got {p!r}.")
    return float(p)


class WordDropout(SequenceModule):
    """Zero each token's whole row with probability ``p`` while training, and
    scale the rows kept by 1 / (1 - p); the identity in eval mode or with p = 0."""

    def __init__(self, width: int, p: float = 0.0):
        super().__init__()
        self.width = width
        self.p = _check_probability("word_dropout", p)

    @property
    def output_width(self) -> int:
        return self.width

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        if not is_training(self) or self.p == 0:
            return x
        keep = torch.empty(x.shape[0], 1, device=x.device, dtype=x.dtype).bernoulli_(1 - self.p)
        return x * keep / (1 - self.p)

    def extra_repr(self) -> str:
        return f"width={self.width}, p={self.p}"


class Dropout(SequenceModule):
    """``nn.Dropout`` on every element while training; nothing at all with p = 0."""

    def __init__(self, width: int, p: float = 0.0):
        super().__init__()
        self.width = width
        self.p = _check_probability("dropout", p)

    @property
    def output_width(self) -> int:
        return self.width

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        if self.p == 0:
            return x
        return F.dropout(x, self.p, is_training(self))

    def extra_repr(self) -> str:
        return f"width={self.width}, p={self.p}"


class Linear(SequenceModule):
    """``nn.Linear`` applied to every token's row (PyTorch's default initialisation)."""

    def __init__(self, input_width: int, width: int, bias: bool = True):
        super().__init__()
        self.linear = nn.Linear(input_width, width, bias=bias)

    @property
    def output_width(self) -> int:
        return self.linear.out_features

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        return self.linear(x)


class Block(SequenceModule):
    """``layer`` (any SequenceModule) with its connections, post-norm:
    ``y = norm(skip(x) + dropout(layer(x)))``. ``residual``: skip(x) is x, or,
    where ``input_width`` differs from the layer's output width, a linear map
    of x without bias; otherwise there is no skip path. ``layer_norm``: norm is
    ``nn.LayerNorm`` over the features (initialised to the identity affine map);
    otherwise it is the identity. ``dropout``: on the layer's output only, while
    training, so the skip path carries its input undropped."""

    def __init__(self, layer: SequenceModule, *, input_width: int, residual: bool,
                 layer_norm: bool, dropout: float = 0.0):
        super().__init__()
        width = layer.output_width
        self.layer = layer
        self.residual = bool(residual)
        self.skip: Optional[Linear] = (
            Linear(input_width, width, bias=False) if residual and input_width != width else None
        )
        self.dropout = Dropout(width, dropout)
        self.norm: Optional[nn.LayerNorm] = nn.LayerNorm(width) if layer_norm else None

    @property
    def output_width(self) -> int:
        return self.layer.output_width

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        y = self.dropout.run(self.layer.run(x, packing), packing)
        if self.residual:
            y = y + (x if self.skip is None else self.skip.run(x, packing))
        if self.norm is not None:
            y = self.norm(y)
        return y

    def extra_repr(self) -> str:
        return f"residual={self.residual}"


class Wired(SequenceModule):
    """The frame of a v2 encoder: ``word_dropout`` and then ``input_dropout`` on
    the incoming vectors, the subclass's ``blocks()`` in order, and with
    ``projection`` a final ``Linear`` from ``width`` to ``width``."""

    def __init__(self, *, input_width: int, width: int, projection: bool,
                 input_dropout: float = 0.0, word_dropout: float = 0.0):
        super().__init__()
        self.word_dropout = WordDropout(input_width, word_dropout)
        self.input_dropout = Dropout(input_width, input_dropout)
        self.projection: Optional[Linear] = Linear(width, width) if projection else None

    def blocks(self) -> Iterable[Block]:
        raise NotImplementedError

    @property
    def output_width(self) -> int:
        return list(self.blocks())[-1].output_width

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        x = self.input_dropout.run(self.word_dropout.run(x, packing), packing)
        for block in self.blocks():
            x = block.run(x, packing)
        if self.projection is not None:
            x = self.projection.run(x, packing)
        return x
