"""The dependent bidirectional RNN (DBRNN) encoder, Eqs. 41-42 of Su & Kuo."""
from typing import Tuple

import torch
from torch import Tensor, nn

from .encoder import Layer
from .packing import Packing
from .recurrence import Recurrence
from .sequence import SequenceModule


class DBRNN(SequenceModule):
    """A lower BRNN (``width // 2`` units per direction), then an upper forward
    and an upper backward RNN (``width`` units each) that both read the lower
    layer's concatenated outputs h_t = [h^f_t; h^b_t] (Eq. 41). The encoding is
    p_t = w_f * p^f_t + w_b * p^b_t with trainable vectors w_f, w_b (Eq. 42),
    initialised to 0.5 so that it starts as the mean of the two heads.
    """

    def __init__(self, *, cell: str, input_width: int, width: int, period: int = 1,
                 gates: str = "recurrent", dropout: float = 0.0):
        super().__init__()
        if width % 2:
            raise ValueError(f"The DBRNN's lower BRNN needs an even width, got {width}.")
        self.lower = Layer(cell=cell, input_width=input_width, hidden_width=width // 2,
                           period=period, gates=gates, bidirectional=True)
        self.upper_forward = Recurrence(cell=cell, input_width=width, hidden_width=width,
                                        period=period, gates=gates, reverse=False)
        self.upper_backward = Recurrence(cell=cell, input_width=width, hidden_width=width,
                                         period=period, gates=gates, reverse=True)
        self.weight_forward = nn.Parameter(torch.full((width,), 0.5))
        self.weight_backward = nn.Parameter(torch.full((width,), 0.5))
        self.dropout = nn.Dropout(dropout)

    @property
    def output_width(self) -> int:
        return self.weight_forward.shape[0]

    def run_heads(self, x: Tensor, packing: Packing) -> Tuple[Tensor, Tensor, Tensor]:
        """(p, p^f, p^b) on the packed layout, each (n_tokens, width): the
        combination and the upper forward and backward RNNs' outputs."""
        h = self.dropout(self.lower.run(x, packing))
        forward = self.upper_forward.run(h, packing)
        backward = self.upper_backward.run(h, packing)
        combined = self.weight_forward * forward + self.weight_backward * backward
        return combined, forward, backward

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        return self.dropout(self.run_heads(x, packing)[0])
