"""The dependent bidirectional RNN (DBRNN) encoder, Eqs. 41-42 of Su & Kuo."""
from typing import Tuple

import torch
from torch import Tensor, nn

from .encoder import BiLayer
from .padding import Packing, run_padded
from .recurrence import Recurrence


class DBRNN(nn.Module):
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
        self.lower = BiLayer(cell=cell, input_width=input_width, hidden_width=width // 2,
                             period=period, gates=gates, bidirectional=True)
        self.upper_forward = Recurrence(cell=cell, input_width=width, hidden_width=width,
                                        period=period, gates=gates, reverse=False)
        self.upper_backward = Recurrence(cell=cell, input_width=width, hidden_width=width,
                                         period=period, gates=gates, reverse=True)
        self.weight_forward = nn.Parameter(torch.full((width,), 0.5))
        self.weight_backward = nn.Parameter(torch.full((width,), 0.5))
        self.dropout = nn.Dropout(dropout)

    def heads(self, x: Tensor, lengths: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        """Returns (p, p^f, p^b), each (batch, seq_len, width); x is
        (batch, seq_len, input_width). The heads are what a DBRNN tagger
        trains with its forward and backward objectives."""
        width = self.weight_forward.shape[0]
        stacked = run_padded(lambda xp, packing: torch.cat(self._heads(xp, packing), -1),
                             x, lengths, 3 * width)
        return tuple(stacked.split(width, dim=-1))

    def _heads(self, x: Tensor, packing: Packing) -> Tuple[Tensor, Tensor, Tensor]:
        h = self.dropout(self.lower.run(x, packing))
        forward = self.upper_forward.run(h, packing)
        backward = self.upper_backward.run(h, packing)
        combined = self.weight_forward * forward + self.weight_backward * backward
        return combined, forward, backward

    def forward(self, x: Tensor, lengths: Tensor, flat: bool = False) -> Tensor:
        """x: (batch, seq_len, input_width) -> (batch, seq_len, width); with
        ``flat``, (n_tokens, input_width) -> (n_tokens, width)."""
        return run_padded(self.run, x, lengths, self.weight_forward.shape[0], flat)

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        """On the packed layout, as ``Recurrence.run``."""
        return self.dropout(self._heads(x, packing)[0])
