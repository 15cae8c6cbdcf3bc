"""The mixing weights of the attention-based second-order LSTM (``cell="solstm"``).

A second-order LSTM of S cells (second-order LSTM paper, Sec. 3.2.2) runs S
LSTM cells from the same state and mixes their new states by weights that
depend on the input alone:

    e_t = V x_t,  alpha_t = softmax(e_t / tau)                  (a), (b)
    h_t = sum_s alpha_(t,s) h_t^(s),  c_t = sum_s alpha_(t,s) c_t^(s)   (d), (e)

The step itself (c) to (e) is ``cells.step``; this module holds V and the
temperature tau. The paper starts tau at 1 and multiplies it by a constant
factor (0.9) after each epoch, so that alpha ends close to one-hot. A torch
module does not know where an epoch ends, so here tau is multiplied by
``anneal`` every ``anneal_every`` training passes (forward passes in training
mode (``mode.is_training``), counted in the buffer ``passes``: in a spaCy pipeline, one per batch);
set ``anneal_every`` to the batches of one epoch to follow the paper. Annealing
stops at ``MIN_FACTOR`` times the starting temperature, so a long training run
never divides by a vanishing tau. Prediction uses the temperature reached so
far (the paper sets it "arbitrarily low" at test; a trained model whose alpha
is near one-hot gives nearly the same output either way). The count is a
buffer, so a saved model keeps its temperature.
"""
import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from .mode import is_training

# annealing stops at tau_0 / 100: alpha is then as one-hot as the paper's ~0.1
# from a start of 1 (Sec. 3.2.2), ten times over
MIN_FACTOR = 0.01


@dataclass(frozen=True)
class SecondOrder:
    """The options of a second-order cell. cells: S, the LSTM cells mixed.
    temperature: tau at the start (> 0). anneal: the factor tau is multiplied
    by, in (0, 1] (1 keeps it). anneal_every: training passes between two
    multiplications (>= 1)."""

    cells: int = 2
    temperature: float = 1.0
    anneal: float = 0.9
    anneal_every: int = 1000

    def check(self) -> "SecondOrder":
        """Itself; a ValueError naming a bad value and the allowed range."""
        if isinstance(self.cells, bool) or not isinstance(self.cells, int) or self.cells < 1:
            raise ValueError(f"solstm_cells (S, the LSTM cells mixed) must be an integer >= 1, "
                             f"got {self.cells!r}.")
        if not _real(self.temperature) or not 0 < self.temperature < math.inf:
            raise ValueError(f"solstm_temperature (the softmax temperature tau at the start) "
                             f"must be a number > 0, got {self.temperature!r}.")
        if not _real(self.anneal) or not 0 < self.anneal <= 1:
            raise ValueError(f"solstm_anneal (the factor tau is multiplied by) must be a number "
                             f"in (0, 1], got {self.anneal!r}.")
        if (isinstance(self.anneal_every, bool) or not isinstance(self.anneal_every, int)
                or self.anneal_every < 1):
            raise ValueError(f"solstm_anneal_every (training passes between two annealing "
                             f"steps) must be an integer >= 1, got {self.anneal_every!r}.")
        return self


def _real(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class Mixer(nn.Module):
    """V (S, input_width) and the annealed temperature: x (n, input_width) ->
    alpha (n, S), each row summing to 1."""

    def __init__(self, *, input_width: int, options: SecondOrder):
        super().__init__()
        self.options = options.check()
        self.weight = nn.Parameter(torch.empty(options.cells, input_width))
        self.register_buffer("passes", torch.zeros((), dtype=torch.int64))
        bound = 1.0 / math.sqrt(input_width)
        nn.init.uniform_(self.weight, -bound, bound)

    @property
    def temperature(self) -> float:
        """tau of the next pass, after the training passes so far."""
        o = self.options
        steps = int(self.passes) // o.anneal_every
        return o.temperature * max(o.anneal ** steps, MIN_FACTOR) if o.anneal < 1 else o.temperature

    def forward(self, x: Tensor) -> Tensor:
        tau = self.temperature  # pass p (from 0) runs at tau_0 * anneal ** (p // anneal_every)
        if is_training(self):
            self.passes += 1
        return torch.softmax((x @ self.weight.t()) / tau, dim=-1)
