"""One recurrent layer in one direction, on the packed layout: padding never read."""
import math

import torch
from torch import Tensor, nn

from . import kernels
from .cells import check_cell
from .kernels import onednn
from .packing import Packing
from .sequence import SequenceModule


class Recurrence(SequenceModule):
    """A single-direction recurrent layer of any cell in ``cells.TABLE``.

    Sequences run packed (see ``packing``): in order of decreasing length,
    with a batch that shrinks as sequences end, so no step ever reads or
    computes a padded position. A ``reverse`` layer reverses every sequence
    within its own length, so it starts at that sequence's last token and its
    scaling index t_s counts from there. Which implementation of the
    recurrence runs is the registry's choice (``kernels.select``); ask it with
    ``kernel_for``.
    """

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
        self.spec = check_cell(cell, gates, period)
        self.cell = cell
        self.gates = gates
        self.reverse = reverse
        self.input_width = input_width
        self.hidden_width = hidden_width
        n_gates = self.spec.n_gates
        self.weight_x = nn.Parameter(torch.empty(n_gates * hidden_width, input_width))
        self.weight_h = (
            nn.Parameter(torch.empty(n_gates * hidden_width, hidden_width))
            if gates == "recurrent"
            else None
        )
        self.bias = nn.Parameter(torch.empty(n_gates * hidden_width))
        self.bias_hn = nn.Parameter(torch.empty(hidden_width)) if cell == "gru" else None
        if self.spec.scaled:
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

    @property
    def output_width(self) -> int:
        return self.hidden_width

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_width)
        for param in (self.weight_x, self.weight_h, self.bias, self.bias_hn):
            if param is not None:
                nn.init.uniform_(param, -bound, bound)
        if self.spec.forget_init is not None:
            with torch.no_grad():
                self.bias[self.spec.block("f", self.hidden_width)].fill_(self.spec.forget_init)

    def problem(self, x: Tensor, packing: Packing) -> kernels.Problem:
        """What the registry is asked for input ``x`` packed by ``packing``."""
        return kernels.Problem.of(self.spec, self.gates, x, packing, self.hidden_width)

    def problem_for(self, lengths: Tensor, device=None, dtype=None) -> kernels.Problem:
        """The problem of a batch of sequences of these ``lengths``, on this
        layer's device and dtype unless given."""
        x = torch.empty(0, device=device or self.weight_x.device,
                        dtype=dtype or self.weight_x.dtype)
        return self.problem(x, Packing(torch.as_tensor(lengths), torch.device("cpu")))

    def kernel_for(self, lengths: Tensor, device=None, dtype=None) -> kernels.Choice:
        """Which kernel would run a batch of sequences of these ``lengths``, and why."""
        return kernels.select(self.problem_for(lengths, device, dtype))

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        """The layer on the packed layout (see ``packing``): x is
        (n_tokens, input_width); returns (n_tokens, hidden_width)."""
        if x.shape[-1] != self.input_width:
            raise ValueError(
                f"Recurrence expected input width {self.input_width}, got {x.shape[-1]}."
            )
        choice = kernels.select(self.problem(x, packing))
        if self.reverse:
            x = packing.reverse(x)
        # all input projections in one product
        proj = onednn.Linear.apply(x, self.weight_x, self.bias)
        y = kernels.run(choice, self.spec, proj, packing, weight_h=self.weight_h,
                        scale=self.scale, state_bias=self.state_bias, bias_hn=self.bias_hn)
        return packing.reverse(y) if self.reverse else y
