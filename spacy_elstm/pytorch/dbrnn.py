"""The dependent bidirectional RNN (DBRNN) of Su & Kuo, Eqs. 41-42: the one
stack that the DBRNN encoders (v1 and v2) and the DBRNN labeller share.

    h_t = [h^f_t; h^b_t]                         the lower BRNN (Eq. 41)
    p^f_t = upper forward RNN(h)_t,  p^b_t = upper backward RNN(h)_t
    p_t = w_f * p^f_t + w_b * p^b_t              Eq. 42 (``DirectionPool``)

The encoders pool the upper RNNs' outputs; the labeller pools the two
predictions that its heads make from them (pytorch/labeller.py).
"""
from typing import Iterable, Tuple

import torch
from torch import Tensor, nn

from .encoder import Layer, half_width
from .packing import Packing
from .recurrence import Recurrence
from .saved_layouts import UpgradesSavedLayout
from .sequence import SequenceModule
from .wiring import Block, Wired


class DirectionPool(nn.Module):
    """Eq. 42, p = w_f * p^f + w_b * p^b, with trainable weights (w_f, w_b):
    here and nowhere else. Shapes: p^f, p^b and p (n_tokens, n).

    Features (the encoders, pooling hidden states): one free pair per column,
    ``weight_forward`` and ``weight_backward`` (n,), each initialised to 0.5,
    so that it starts as the mean of the two.
    ``distributions`` (the labeller, pooling two predictions; no n): one pair
    (w_f, w_b) = softmax(``logits``), logits initialised to 0 (the mean), so
    that the weights are positive and sum to 1 and p stays a distribution;
    ``log_pool`` computes log p from log p^f and log p^b in log space.
    One formula, two ways of holding the weights, and both are needed: free
    weights would let the labeller's pooled "distribution" grow without bound
    (its loss falls as w_f + w_b rises), and the encoders' saved free weights
    (opposite signs included) cannot be written as a convex pair.
    """

    def __init__(self, n: int = 0, *, distributions: bool = False):
        super().__init__()
        self.distributions = distributions
        if distributions:
            self.logits = nn.Parameter(torch.zeros(2))
        else:
            self.weight_forward = nn.Parameter(torch.full((n,), 0.5))
            self.weight_backward = nn.Parameter(torch.full((n,), 0.5))

    @property
    def weights(self) -> Tuple[Tensor, Tensor]:
        """(w_f, w_b), each (n,) or, for distributions, ()."""
        if self.distributions:
            w = torch.softmax(self.logits, dim=0)
            return w[0], w[1]
        return self.weight_forward, self.weight_backward

    def forward(self, p_forward: Tensor, p_backward: Tensor) -> Tensor:
        w_f, w_b = self.weights
        return w_f * p_forward + w_b * p_backward

    def log_pool(self, log_forward: Tensor, log_backward: Tensor) -> Tensor:
        """log p of Eq. 42 from log p^f and log p^b (distributions only)."""
        log_w = torch.log_softmax(self.logits, dim=0)
        return torch.logaddexp(log_w[0] + log_forward, log_w[1] + log_backward)


class DBRNNUpper(SequenceModule):
    """The upper forward and upper backward RNNs (``width`` units each), both
    reading the same ``width``-wide h; with ``pool``, ``run`` gives their
    Eq. 42 pooling (an encoder's), else ``run_pair`` gives the two outputs."""

    def __init__(self, *, cell: str, width: int, period: int = 1, gates: str = "recurrent",
                 pool: bool = True):
        super().__init__()
        self.width = width
        self.upper_forward = Recurrence(cell=cell, input_width=width, hidden_width=width,
                                        period=period, gates=gates, reverse=False)
        self.upper_backward = Recurrence(cell=cell, input_width=width, hidden_width=width,
                                         period=period, gates=gates, reverse=True)
        self.pool = DirectionPool(width) if pool else None

    @property
    def output_width(self) -> int:
        return self.width

    def run_pair(self, h: Tensor, packing: Packing) -> Tuple[Tensor, Tensor]:
        """(p^f, p^b), each (n_tokens, width), packed."""
        return self.upper_forward.run(h, packing), self.upper_backward.run(h, packing)

    def run(self, h: Tensor, packing: Packing) -> Tensor:
        return self.pool(*self.run_pair(h, packing))


class DBRNN(UpgradesSavedLayout, Wired):
    """The DBRNN stack in two ``wiring.Block``s, after word dropout and dropout
    on the incoming vectors and before an optional output projection (see
    ``wiring``):

        h = norm_1(skip(x) + dropout(BRNN(x)))       the lower BRNN, width // 2 per direction
        p = norm_2(h + dropout(upper(h)))            upper(h) = w_f * p^f + w_b * p^b

    where the skip terms are there with ``residual`` (skip(x) is x, or a linear
    map of x where ``input_width != width``), and norm_i is a LayerNorm with
    ``layer_norm``. With the options off (the defaults here) it is the encoder
    of ``spacy-elstm.DBRNNEncoder.v1``, p = dropout(upper(dropout(BRNN(x))));
    v2 turns them on as asked. The labeller builds it with ``pool = False`` and
    reads h and the upper pair itself (``run_pair``).
    """

    def __init__(self, *, cell: str, input_width: int, width: int, period: int = 1,
                 gates: str = "recurrent", residual: bool = False, layer_norm: bool = False,
                 projection: bool = False, dropout: float = 0.0, input_dropout: float = 0.0,
                 word_dropout: float = 0.0, pool: bool = True):
        super().__init__(input_width=input_width, width=width, projection=projection,
                         input_dropout=input_dropout, word_dropout=word_dropout)
        # the lower layer first, so that a seed gives the initial weights it always has
        lower = Layer(cell=cell, input_width=input_width, hidden_width=half_width(width),
                      period=period, gates=gates, bidirectional=True)
        self.lower = Block(lower, input_width=input_width, residual=residual,
                           layer_norm=layer_norm, dropout=dropout)
        self.upper = Block(DBRNNUpper(cell=cell, width=width, period=period, gates=gates,
                                      pool=pool),
                           input_width=width, residual=residual, layer_norm=layer_norm,
                           dropout=dropout)

    def blocks(self) -> Iterable[Block]:
        return (self.lower, self.upper)

    def run_pair(self, x: Tensor, packing: Packing) -> Tuple[Tensor, Tensor]:
        """(p^f, p^b), each (n_tokens, width), packed, each with the upper
        block's dropout: what the labeller's heads read."""
        x = self.input_dropout.run(self.word_dropout.run(x, packing), packing)
        h = self.lower.run(x, packing)
        forward, backward = self.upper.layer.run_pair(h, packing)
        return self.upper.dropout.run(forward, packing), self.upper.dropout.run(backward, packing)


WiredDBRNN = DBRNN  # the v2 encoder's class name up to 0.1
