"""One recurrent layer in one direction over a padded batch, padding never read."""
import math

import torch
from torch import Tensor, nn

from .cells import HAS_CELL_STATE, N_GATES, SCALED, check_cell, step
from . import onednn
from .fused import CellStateRecurrence
from .padding import Packing, run_padded


class Recurrence(nn.Module):
    """A single-direction recurrent layer of any cell in ``cells.CELLS``.

    Sequences run packed (see ``padding``): in order of decreasing length,
    with a batch that shrinks as sequences end, so no step ever reads or
    computes a padded position. A ``reverse``
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

    def forward(self, x: Tensor, lengths: Tensor, flat: bool = False) -> Tensor:
        """x: zero-padded input, shape (batch, seq_len, input_width); or with
        ``flat``, the sequences one after another, (n_tokens, input_width).
        lengths: shape (batch,), int64, any order.
        Returns (batch, seq_len, hidden_width), zero at padded positions; or
        with ``flat``, (n_tokens, hidden_width).
        """
        return run_padded(self.run, x, lengths, self.hidden_width, flat)

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        """The layer on the packed layout (see ``padding``): x is
        (n_tokens, input_width); returns (n_tokens, hidden_width)."""
        if x.shape[-1] != self.input_width:
            raise ValueError(
                f"Recurrence expected input width {self.input_width}, got {x.shape[-1]}."
            )
        if self.reverse:
            x = packing.reverse(x)
        # all input projections in one product
        proj = onednn.Linear.apply(x, self.weight_x, self.bias)
        if self.fast and self.cell in HAS_CELL_STATE:
            y = CellStateRecurrence.apply(proj, self.weight_h, self.scale, self.state_bias,
                                          packing, self.cell != "elstm2")
        else:
            y = self._loop(proj, packing)
        return packing.reverse(y) if self.reverse else y

    def _loop(self, proj: Tensor, packing: Packing) -> Tensor:
        """The reference recurrence, one ``cells.step`` at a time under autograd.
        proj: (n_tokens, n_gates * hidden_width), packed. Returns (n_tokens, hidden_width)."""
        sizes, offsets = packing.sizes, packing.offsets
        h = proj.new_zeros(sizes[0], self.hidden_width)
        c = h if self.cell in HAS_CELL_STATE else None
        outputs = []
        for t, k in enumerate(sizes):
            scale = None if self.scale is None else self.scale[t % self.period]
            h, c = step(
                self.cell,
                proj[offsets[t] : offsets[t] + k],
                h[:k],
                None if c is None else c[:k],
                weight_h=self.weight_h,
                scale=scale,
                state_bias=self.state_bias,
                bias_hn=self.bias_hn,
            )
            outputs.append(h)
        return torch.cat(outputs)
