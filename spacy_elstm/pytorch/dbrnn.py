"""The dependent bidirectional RNN (DBRNN) encoder, Eqs. 41-42 of Su & Kuo."""
from typing import Iterable, Tuple

import torch
from torch import Tensor, nn

from .encoder import Layer
from .packing import Packing
from .recurrence import Recurrence
from .sequence import SequenceModule
from .wiring import Block, Wired


class DBRNNUpper(SequenceModule):
    """The DBRNN's upper part on its own: an upper forward and an upper backward
    RNN (``width`` units each) reading the same ``width``-wide input, combined as
    w_f * p^f + w_b * p^b (Eq. 42; w_f, w_b initialised to 0.5, so that it
    starts as the mean of the two heads)."""

    def __init__(self, *, cell: str, width: int, period: int = 1, gates: str = "recurrent"):
        super().__init__()
        self.upper_forward = Recurrence(cell=cell, input_width=width, hidden_width=width,
                                        period=period, gates=gates, reverse=False)
        self.upper_backward = Recurrence(cell=cell, input_width=width, hidden_width=width,
                                         period=period, gates=gates, reverse=True)
        self.weight_forward = nn.Parameter(torch.full((width,), 0.5))
        self.weight_backward = nn.Parameter(torch.full((width,), 0.5))

    @property
    def output_width(self) -> int:
        return self.weight_forward.shape[0]

    def run_heads(self, h: Tensor, packing: Packing) -> Tuple[Tensor, Tensor, Tensor]:
        """(p, p^f, p^b) on the packed layout, each (n_tokens, width): the
        combination and the upper forward and backward RNNs' outputs."""
        forward = self.upper_forward.run(h, packing)
        backward = self.upper_backward.run(h, packing)
        combined = self.weight_forward * forward + self.weight_backward * backward
        return combined, forward, backward

    def run(self, h: Tensor, packing: Packing) -> Tensor:
        return self.run_heads(h, packing)[0]


class DBRNN(DBRNNUpper):
    """A lower BRNN (``width // 2`` units per direction), then the upper forward
    and backward RNNs of ``DBRNNUpper``, which both read the lower layer's
    concatenated outputs h_t = [h^f_t; h^b_t] (Eq. 41) and are combined as
    p_t = w_f * p^f_t + w_b * p^b_t (Eq. 42); dropout on h and on p. The upper
    part is inherited rather than held, so its weights keep the names that
    pipelines saved with release 0.1 carry.
    """

    def __init__(self, *, cell: str, input_width: int, width: int, period: int = 1,
                 gates: str = "recurrent", dropout: float = 0.0):
        if width % 2:
            raise ValueError(f"The DBRNN's lower BRNN needs an even width, got {width}.")
        # the lower layer first, so that a seed gives the initial weights it always has
        lower = Layer(cell=cell, input_width=input_width, hidden_width=width // 2,
                      period=period, gates=gates, bidirectional=True)
        super().__init__(cell=cell, width=width, period=period, gates=gates)
        self.lower = lower
        self.dropout = nn.Dropout(dropout)

    def run_heads(self, x: Tensor, packing: Packing) -> Tuple[Tensor, Tensor, Tensor]:
        """(p, p^f, p^b) on the packed layout, each (n_tokens, width), from the
        input x of the lower BRNN."""
        return super().run_heads(self.dropout(self.lower.run(x, packing)), packing)

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        return self.dropout(self.run_heads(x, packing)[0])


class WiredDBRNN(Wired):
    """The encoder of ``spacy-elstm.DBRNNEncoder.v2``: the DBRNN in two
    ``wiring.Block``s, after word dropout and dropout on the incoming vectors
    and before an optional output projection (see ``wiring``):

        h = norm_1(skip(x) + dropout(BRNN(x)))       the lower BRNN
        p = norm_2(h + dropout(upper(h)))            upper(h) = w_f * p^f + w_b * p^b

    where the skip terms are there with ``residual`` (skip(x) is x, or a linear
    map of x where ``input_width != width``), and norm_i is a LayerNorm with
    ``layer_norm``. With every option off and no dropout it computes ``DBRNN``.
    """

    def __init__(self, *, cell: str, input_width: int, width: int, period: int = 1,
                 gates: str = "recurrent", residual: bool = True, layer_norm: bool = False,
                 projection: bool = False, dropout: float = 0.0, input_dropout: float = 0.0,
                 word_dropout: float = 0.0):
        super().__init__(input_width=input_width, width=width, projection=projection,
                         input_dropout=input_dropout, word_dropout=word_dropout)
        if width % 2:
            raise ValueError(f"The DBRNN's lower BRNN needs an even width, got {width}.")
        lower = Layer(cell=cell, input_width=input_width, hidden_width=width // 2,
                      period=period, gates=gates, bidirectional=True)
        self.lower = Block(lower, input_width=input_width, residual=residual,
                           layer_norm=layer_norm, dropout=dropout)
        self.upper = Block(DBRNNUpper(cell=cell, width=width, period=period, gates=gates),
                           input_width=width, residual=residual, layer_norm=layer_norm,
                           dropout=dropout)

    def blocks(self) -> Iterable[Block]:
        return (self.lower, self.upper)
