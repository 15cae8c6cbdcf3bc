"""One recurrent layer in one direction, on the packed layout: padding never read."""
import math
from typing import Optional, Tuple

import torch
from torch import Tensor, nn

from . import kernels
from .cells import check_cell
from .kernels import onednn
from .packing import Packing
from .second_order import Mixer, SecondOrder
from .sequence import SequenceModule

State = Tuple[Tensor, Optional[Tensor]]  # (h, c), each (batch, N); c None without a cell state


class Recurrence(SequenceModule):
    """A single-direction recurrent layer of any cell in ``cells.TABLE``.

    Sequences run packed (see ``packing``): in order of decreasing length,
    with a batch that shrinks as sequences end, so no step ever reads or
    computes a padded position. A ``reverse`` layer reverses every sequence
    within its own length, so it starts at that sequence's last token and its
    scaling index t_s counts from there. Which implementation of the
    recurrence runs is the registry's choice (``kernels.select``); ask it with
    ``kernel_for``.

    A second-order cell (``solstm``) is S LSTM cells side by side: W_x, W_h
    and the bias hold the S cells' blocks one after another (S * 4 * N rows),
    and ``mixer`` holds V and the temperature (``second_order``); its options
    come from ``second_order`` (None: ``SecondOrder()``'s defaults).
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
        second_order: Optional[SecondOrder] = None,
    ):
        super().__init__()
        self.spec = check_cell(cell, gates, period)
        self.cell = cell
        self.gates = gates
        self.reverse = reverse
        self.input_width = input_width
        self.hidden_width = hidden_width
        n_gates = self.spec.n_gates
        if self.spec.second_order:
            self.mixer = Mixer(input_width=input_width,
                               options=second_order or SecondOrder())
            n_gates *= self.mixer.options.cells
        else:
            self.mixer = None
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
            width = self.spec.n_gates * self.hidden_width
            with torch.no_grad():
                for cell in self.bias.view(-1, width):  # each of a second-order cell's S
                    cell[self.spec.block("f", self.hidden_width)].fill_(self.spec.forget_init)

    @property
    def projected_width(self) -> int:
        """The width of ``project``'s rows: the gates' pre-activations, and for
        a second-order cell its S mixing weights after them."""
        return self.weight_x.shape[0] + (0 if self.mixer is None else self.mixer.weight.shape[0])

    def problem(self, x: Tensor, packing: Packing, stateful: bool = False) -> kernels.Problem:
        """What the registry is asked for input ``x`` packed by ``packing``."""
        return kernels.Problem.of(self.spec, self.gates, x, packing, self.hidden_width, stateful)

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
        return self._run(x, packing, None)[0]

    def project(self, x: Tensor) -> Tensor:
        """The input projection x W_x^T + b of every row at once, (n, n_gates *
        hidden_width): what ``run_state(..., projected=True)`` reads instead of x.
        A decoder fed one of a few label embeddings projects the table of them
        once and picks its rows, rather than projecting the same rows again.
        A second-order cell's rows also carry its mixing weights alpha (n, S)
        at the end, (n, ``projected_width``); in training this counts a pass
        towards the temperature's annealing."""
        if x.shape[-1] != self.input_width:
            raise ValueError(
                f"Recurrence expected input width {self.input_width}, got {x.shape[-1]}."
            )
        proj = onednn.Linear.apply(x, self.weight_x, self.bias)
        return proj if self.mixer is None else torch.cat([proj, self.mixer(x)], dim=-1)

    def run_state(self, x: Tensor, packing: Packing, state: Optional[State] = None,
                  start: int = 0, projected: bool = False) -> Tuple[Tensor, State]:
        """``run`` from a given state, also returning the state it ends in: what
        a language model carries from one segment of a text to the next.

        state: (h, c), each (batch, hidden_width) in the batch's own order (c is
        None for cells without a cell state), or None for zeros; a ``reverse``
        layer starts it at each sequence's last token. start: the steps already
        run from the state (the ELSTM's scaling index t_s continues from there).
        Returns the packed output and the state after each sequence's last step (a sequence of length 0
        keeps the state it was given). Gradients flow into the given state and
        out of the returned one; detach them to truncate back-propagation.
        projected: x is already the input projection (``project``)."""
        batch = len(packing.lengths)
        if state is not None:
            h, c = state
            want = (batch, self.hidden_width)
            if tuple(h.shape) != want or (c is not None and tuple(c.shape) != want):
                raise ValueError(
                    f"The state of a batch of {batch} sequences is two ({batch}, "
                    f"{self.hidden_width}) tensors, got "
                    f"{tuple(h.shape)} and {None if c is None else tuple(c.shape)}.")
            if self.spec.cell_state and c is None:
                raise ValueError(f"Cell {self.cell!r} carries a cell state: give (h, c).")
        else:
            h = x.new_zeros(batch, self.hidden_width)
            c = x.new_zeros(batch, self.hidden_width) if self.spec.cell_state else None
        if packing.n_tokens == 0:
            return x.new_zeros(0, self.hidden_width), (h, c)
        y, h_last, c_last = self._run(x, packing, (h, c), start, projected)
        running = packing.running
        return y, (h.index_copy(0, running, h_last),
                   None if c_last is None else c.index_copy(0, running, c_last))

    def _run(self, x: Tensor, packing: Packing, state: Optional[State], start: int = 0,
             projected: bool = False):
        if projected and x.shape[-1] != self.projected_width:
            raise ValueError(f"Recurrence expected a projected input of width "
                             f"{self.projected_width}, got {x.shape[-1]}.")
        choice = kernels.select(self.problem(x, packing, stateful=state is not None))
        if self.reverse:
            x = packing.reverse(x)
        # all input projections in one product (project checks the input's width)
        proj = x if projected else self.project(x)
        h0 = c0 = None
        if state is not None:
            running = packing.running
            h0 = state[0].index_select(0, running)
            c0 = None if state[1] is None else state[1].index_select(0, running)
        scale = self.scale
        if scale is not None and start % scale.shape[0]:  # step t uses s at (start + t) mod Ts
            scale = torch.roll(scale, -(start % scale.shape[0]), dims=0)
        y, h_last, c_last = kernels.run(
            choice, self.spec, proj, packing, weight_h=self.weight_h, scale=scale,
            state_bias=self.state_bias, bias_hn=self.bias_hn, h0=h0, c0=c0)
        return (packing.reverse(y) if self.reverse else y), h_last, c_last
