"""The reference recurrence: ``cells.step`` one step at a time under autograd.

Every cell runs on it; it is the slowest path and the one the fused kernels
are tested against.
"""
from typing import Optional

import torch
from torch import Tensor

from ..cells import Cell, step
from ..packing import Packing


def loop(cell: Cell, proj: Tensor, packing: Packing, weight_h: Optional[Tensor],
         scale: Optional[Tensor], state_bias: Optional[Tensor],
         bias_hn: Optional[Tensor]) -> Tensor:
    """proj: (n_tokens, n_gates * N), packed, bias included. scale: (Ts, N) or
    None. Returns h: (n_tokens, N), packed."""
    sizes, offsets = packing.sizes, packing.offsets
    n = proj.shape[1] // cell.n_gates
    h = proj.new_zeros(sizes[0], n)
    c = h if cell.cell_state else None
    outputs = []
    for t, k in enumerate(sizes):
        h, c = step(cell, proj[offsets[t] : offsets[t] + k], h[:k],
                    None if c is None else c[:k], weight_h=weight_h,
                    scale=None if scale is None else scale[t % scale.shape[0]],
                    state_bias=state_bias, bias_hn=bias_hn)
        outputs.append(h)
    return torch.cat(outputs)
