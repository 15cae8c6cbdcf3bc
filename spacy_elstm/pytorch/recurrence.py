"""One recurrent layer in one direction over a padded batch, padding never read."""
import math
from typing import List

import torch
from torch import Tensor, nn

from .cells import HAS_CELL_STATE, N_GATES, SCALED, check_cell, step
from . import onednn
from .fused import CellStateRecurrence
from .padding import batch_sizes, reverse_padded, run_batch_first


class Recurrence(nn.Module):
    """A single-direction recurrent layer of any cell in ``cells.CELLS``.

    Sequences are run in order of decreasing length with a batch that shrinks
    as sequences end, so no step ever reads a padded position. A ``reverse``
    layer reverses every sequence within its own length, so it starts at that
    sequence's last token and its scaling index t_s counts from there.

    Cells with a cell state run on ``fused.CellStateRecurrence``, whose
    backward is written by hand; set ``fast = False`` for the reference loop
    of ``cells.step`` under autograd (the tests compare the two).
    """

    fast: bool = True

    def __init__(
        self,
        *,
        cell: str,
        input_width: int,
        hidden_width: int,
        period: int = 1,
        gates: str = "recurrent",
        reverse: bool = False,
    ):
        super().__init__()
        check_cell(cell, gates, period)
        self.cell = cell
        self.gates = gates
        self.reverse = reverse
        self.input_width = input_width
        self.hidden_width = hidden_width
        n_gates = N_GATES[cell]
        self.weight_x = nn.Parameter(torch.empty(n_gates * hidden_width, input_width))
        self.weight_h = (
            nn.Parameter(torch.empty(n_gates * hidden_width, hidden_width))
            if gates == "recurrent"
            else None
        )
        self.bias = nn.Parameter(torch.empty(n_gates * hidden_width))
        self.bias_hn = nn.Parameter(torch.empty(hidden_width)) if cell == "gru" else None
        if cell in SCALED:
            # s in R^{Ts x N}, one row per position modulo the period, and the
            # bias b inside tanh(c + b)
            self.scale = nn.Parameter(torch.ones(period, hidden_width))
            self.state_bias = nn.Parameter(torch.zeros(hidden_width))
        else:
            self.scale = None
            self.state_bias = None
        self.reset_parameters()

    @property
    def period(self) -> int:
        return 0 if self.scale is None else self.scale.shape[0]

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_width)
        for param in (self.weight_x, self.weight_h, self.bias, self.bias_hn):
            if param is not None:
                nn.init.uniform_(param, -bound, bound)
        if self.cell in ("lstm", "elstm"):
            with torch.no_grad():
                n = self.hidden_width
                self.bias[n : 2 * n].fill_(1.0)  # forget gate starts open

    def forward(self, x: Tensor, lengths: Tensor) -> Tensor:
        """x: zero-padded input, shape (batch, seq_len, input_width).
        lengths: shape (batch,), int64, any order.
        Returns shape (batch, seq_len, hidden_width), zero at padded positions.
        """
        return run_batch_first(self.run, x, lengths, self.hidden_width)

    def run(self, x: Tensor, lengths: Tensor) -> Tensor:
        """The layer on the internal layout: x is time-major, (max_length, batch,
        input_width), sorted by decreasing length (lengths: (batch,), int64, CPU).
        Returns (max_length, batch, hidden_width), zero at padded positions."""
        if x.shape[-1] != self.input_width:
            raise ValueError(
                f"Recurrence expected input width {self.input_width}, got {x.shape[-1]}."
            )
        if self.reverse:
            x = reverse_padded(x, lengths)
        sizes = batch_sizes(lengths)
        seq_len, batch = x.shape[:2]
        # all input projections in one product
        proj = onednn.Linear.apply(x.reshape(-1, x.shape[-1]), self.weight_x, self.bias)
        proj = proj.view(seq_len, batch, -1)
        if self.fast and self.cell in HAS_CELL_STATE:
            y = CellStateRecurrence.apply(proj, self.weight_h, self.scale, self.state_bias,
                                          sizes, self.cell != "elstm2")
        else:
            y = self._loop(proj, sizes)
        return reverse_padded(y, lengths) if self.reverse else y

    def _loop(self, proj: Tensor, sizes: List[int]) -> Tensor:
        """The reference recurrence, one ``cells.step`` at a time under autograd.
        proj: (seq_len, batch, n_gates * hidden_width), sorted by decreasing length.
        Returns (seq_len, batch, hidden_width), zero at padding."""
        batch = proj.shape[1]
        h = proj.new_zeros(sizes[0], self.hidden_width)
        c = h if self.cell in HAS_CELL_STATE else None
        outputs = []
        for t, k in enumerate(sizes):
            scale = None if self.scale is None else self.scale[t % self.period]
            h, c = step(
                self.cell,
                proj[t, :k],
                h[:k],
                None if c is None else c[:k],
                weight_h=self.weight_h,
                scale=scale,
                state_bias=self.state_bias,
                bias_hn=self.bias_hn,
            )
            outputs.append(nn.functional.pad(h, (0, 0, 0, batch - k)))
        return torch.stack(outputs)
