"""Sequence labellers: recurrent encoders with softmax heads, on the packed layout.

``RecurrentLabeller`` is the basic macro-model: a (B)RNN and one softmax head.
``DBRNNLabeller`` is the DBRNN of Su & Kuo, Sec. 4.2 (Eqs. 34-42): a lower BRNN,
an upper forward and an upper backward RNN that each read the lower layer's
h_t = [h^f_t; h^b_t] (Eq. 41) and make their own prediction p^f_t, p^b_t
through their own softmax head, and the pooled prediction (Eqs. 34, 42)

    p_t = w_f * p^f_t + w_b * p^b_t,    (w_f, w_b) = softmax(a_f, a_b),

with trainable logits (a_f, a_b), initialised to 0 (the mean of the two heads):
``dbrnn.DirectionPool``, the Eq. 42 that the DBRNN encoders use too.
The weights are two positive scalars summing to 1, so p_t is a convex
combination of two distributions and stays one: no renormalisation is needed.

Both return log-probabilities, the heads side by side: (n_tokens, n_heads *
n_labels), head k in columns [k * n_labels, (k + 1) * n_labels). The DBRNN's
heads are, in order, log p, log p^f, log p^b (``HEADS``).

Gradient routing (Sec. 4.2): e_f = NLL(p^f) reaches the upper forward RNN, its
head and the lower BRNN; e_b = NLL(p^b) the upper backward RNN, its head and the
lower BRNN; e = NLL(p) everything, the pooling logits included. This is what the
computation graph gives by itself: p^f is computed from the upper forward RNN
alone and p^b from the upper backward RNN alone, so no ``detach`` is needed, and
none is used (tests/test_labeller.py checks the routing by gradients).
"""
import warnings
from typing import Sequence, Tuple

import torch
from torch import Tensor, nn

from .dbrnn import DBRNN, DirectionPool
from .encoder import RecurrentEncoder
from .packing import Packing
from .saved_layouts import UpgradesSavedLayout
from .sequence import SequenceModule


def check_own_predictions(value) -> None:
    """The share of training positions a label-fed model reads its own
    prediction at (``own_predictions``): a number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0.0 <= value <= 1.0:
        raise ValueError(f"own_predictions must be a number in [0, 1], got {value!r}.")


class _Labeller(SequenceModule):
    """What every labeller shares: ``n_heads`` log-probability blocks of
    ``n_labels`` columns each, and heads that can be resized once the labels
    are known (a component collects them in ``initialize``)."""

    n_heads = 1

    def __init__(self, *, head_width: int, n_labels: int):
        super().__init__()
        self.head_width = head_width
        self.heads = self._make_heads(self._n_linear_heads(), n_labels)

    def _make_heads(self, count: int, n_labels: int, **device_dtype) -> nn.ModuleList:
        if n_labels < 0:
            raise ValueError(f"n_labels must be >= 0, got {n_labels}.")
        with warnings.catch_warnings():
            # n_labels is 0 until the labels are known: torch warns that it initializes nothing
            warnings.filterwarnings("ignore", "Initializing zero-element tensors")
            return nn.ModuleList(nn.Linear(self.head_width, n_labels, **device_dtype)
                                 for _ in range(count))

    def _n_linear_heads(self) -> int:
        return self.n_heads

    @property
    def n_labels(self) -> int:
        return self.heads[0].out_features

    @property
    def output_width(self) -> int:
        return self.n_heads * self.n_labels

    def resize_labels(self, n_labels: int) -> None:
        """Make the heads ``n_labels`` wide (new weights, on the module's device),
        if they are not already."""
        if n_labels == self.n_labels:
            return
        like = self.heads[0].weight
        self.heads = self._make_heads(len(self.heads), n_labels, device=like.device,
                                      dtype=like.dtype)


class RecurrentLabeller(_Labeller):
    """The basic macro-model: ``RecurrentEncoder`` (an RNN, or a BRNN with
    ``bidirectional``; ``depth`` layers) and one softmax head.

    run: x (n_tokens, input_width), packed -> log p (n_tokens, n_labels), packed.
    """

    def __init__(self, *, cell: str, input_width: int, width: int, n_labels: int,
                 depth: int = 1, bidirectional: bool = True, period: int = 1,
                 gates: str = "recurrent", dropout: float = 0.0):
        super().__init__(head_width=width, n_labels=n_labels)
        self.encoder = RecurrentEncoder(cell=cell, input_width=input_width, width=width,
                                        depth=depth, bidirectional=bidirectional,
                                        period=period, gates=gates, dropout=dropout)

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        return torch.log_softmax(self.heads[0](self.encoder.run(x, packing)), dim=-1)


class DBRNNLabeller(UpgradesSavedLayout, _Labeller):
    """The DBRNN with its three predictions (see the module docstring): the
    one DBRNN stack (``dbrnn.DBRNN``, options off, no pooling of its own), a
    softmax head on each upper RNN and the Eq. 42 pooling of the two heads'
    distributions (``dbrnn.DirectionPool``). The lower BRNN has ``width // 2``
    units per direction, the upper forward and backward RNNs ``width`` each;
    dropout on h and on the upper outputs.

    run: x (n_tokens, input_width), packed -> (n_tokens, 3 * n_labels), packed:
    [log p, log p^f, log p^b].
    """

    n_heads = 3
    HEADS: Tuple[str, ...] = ("pooled", "forward", "backward")

    def _n_linear_heads(self) -> int:
        return 2  # p^f and p^b; p pools them

    def __init__(self, *, cell: str, input_width: int, width: int, n_labels: int,
                 period: int = 1, gates: str = "recurrent", dropout: float = 0.0):
        super().__init__(head_width=width, n_labels=n_labels)
        self.dbrnn = DBRNN(cell=cell, input_width=input_width, width=width, period=period,
                           gates=gates, dropout=dropout, pool=False)
        self.pool = DirectionPool(distributions=True)

    @property
    def pool_weights(self) -> Tensor:
        """(w_f, w_b), shape (2,)."""
        return torch.stack(self.pool.weights)

    def run_heads(self, x: Tensor, packing: Packing) -> Tuple[Tensor, Tensor, Tensor]:
        """(log p, log p^f, log p^b), each (n_tokens, n_labels), packed."""
        forward, backward = self.dbrnn.run_pair(x, packing)
        log_pf = torch.log_softmax(self.heads[0](forward), dim=-1)
        log_pb = torch.log_softmax(self.heads[1](backward), dim=-1)
        return self.pool.log_pool(log_pf, log_pb), log_pf, log_pb

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        return torch.cat(self.run_heads(x, packing), dim=-1)


def head_losses(log_probs: Tensor, gold: Tensor, *, n_heads: int) -> Tensor:
    """The negative log-likelihood of each head, summed over the tokens whose
    gold label is known. log_probs: (n_tokens, n_heads * n_labels); gold:
    (n_tokens,) int64, -1 where the label is missing (no loss, no gradient).
    Returns (n_heads,): for the DBRNN, (e, e_f, e_b)."""
    n_tokens = log_probs.shape[0]
    per_head = log_probs.view(n_tokens, n_heads, -1)
    known = gold >= 0
    picked = per_head[known].gather(2, gold[known].view(-1, 1, 1).expand(-1, n_heads, 1))
    return -picked.squeeze(2).sum(0)


def weighted_loss(log_probs: Tensor, gold: Tensor, weights: Sequence[float]) -> Tensor:
    """sum_k weights[k] * head_losses(...)[k], a scalar; for the DBRNN,
    weights = (for e, for e_f, for e_b)."""
    losses = head_losses(log_probs, gold, n_heads=len(weights))
    return (losses * losses.new_tensor(list(weights))).sum()
