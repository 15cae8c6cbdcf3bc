"""One recurrent layer in one direction over a padded batch, padding never read."""
import math
from typing import List

import torch
from torch import Tensor, nn

from .cells import HAS_CELL_STATE, N_GATES, SCALED, check_cell, step
from .fused import CellStateRecurrence


def reverse_padded(x: Tensor, lengths: Tensor) -> Tensor:
    """Reverse each sequence within its own length; padding stays where it is.

    x: shape (batch, seq_len, width). lengths: shape (batch,), int64.
    Applying it twice gives x back.
    """
    batch, seq_len = x.shape[:2]
    t = torch.arange(seq_len, device=x.device).unsqueeze(0)
    lens = lengths.to(x.device).unsqueeze(1)
    index = torch.where(t < lens, lens - 1 - t, t)
    return x.gather(1, index.unsqueeze(2).expand(batch, seq_len, x.shape[2]))


def batch_sizes(lengths: Tensor) -> List[int]:
    """How many sequences are still running at each step, for lengths sorted
    in decreasing order. lengths: shape (batch,), int64 on any device."""
    lengths = lengths.cpu()
    seq_len = int(lengths.max()) if lengths.numel() else 0
    counts = torch.bincount(lengths, minlength=seq_len + 1)
    # number of sequences longer than t, for t = 0 .. seq_len-1
    return counts.flip(0).cumsum(0).flip(0)[1:].tolist()


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
        if x.shape[-1] != self.input_width:
            raise ValueError(
                f"Recurrence expected input width {self.input_width}, got {x.shape[-1]}."
            )
        batch, seq_len = x.shape[:2]
        out_shape = (batch, seq_len, self.hidden_width)
        if batch == 0 or seq_len == 0:
            return x.new_zeros(out_shape)
        lengths = lengths.to(torch.int64).cpu()
        order = torch.argsort(lengths, descending=True, stable=True)
        lengths = lengths[order]
        x = x[order.to(x.device)]
        if self.reverse:
            x = reverse_padded(x, lengths)
        sizes = batch_sizes(lengths)
        if not sizes:  # every sequence is empty
            return x.new_zeros(out_shape)
        x = x[:, : len(sizes)]  # nothing past the longest sequence
        # all input projections in one product; time-major for contiguous steps
        proj = torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight_x.t())
        proj = proj.view(batch, len(sizes), -1).transpose(0, 1).contiguous()
        if self.fast and self.cell in HAS_CELL_STATE:
            y = CellStateRecurrence.apply(proj, self.weight_h, self.scale, self.state_bias,
                                          sizes, self.cell != "elstm2")
        else:
            y = self._loop(proj, sizes)
        y = y.transpose(0, 1)
        if y.shape[1] < seq_len:
            y = nn.functional.pad(y, (0, 0, 0, seq_len - y.shape[1]))
        if self.reverse:
            y = reverse_padded(y, lengths)
        return y[torch.argsort(order).to(y.device)]

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
