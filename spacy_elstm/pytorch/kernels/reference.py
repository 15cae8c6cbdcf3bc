"""The reference recurrence: ``cells.step`` one step at a time under autograd.

Every cell runs on it; it is the slowest path and the one the fused kernels
are tested against.
"""
from typing import Optional, Tuple

import torch
from torch import Tensor

from ..cells import Cell, step
from ..packing import Packing


def loop(cell: Cell, proj: Tensor, packing: Packing, weight_h: Optional[Tensor],
         scale: Optional[Tensor], state_bias: Optional[Tensor], bias_hn: Optional[Tensor],
         h0: Optional[Tensor] = None,
         c0: Optional[Tensor] = None) -> Tuple[Tensor, Tensor, Optional[Tensor]]:
    """proj: (n_tokens, n_gates * N), packed, bias included. scale: (Ts, N) or
    None. h0, c0: the states before the first step, (sizes[0], N) in packed
    order, or None for zeros. Returns h: (n_tokens, N), packed, and each
    sequence's last h and c (packed order; c is None without a cell state)."""
    sizes, offsets = packing.sizes, packing.offsets
    # the hidden width: W_h's columns (a second-order cell's projection is wider
    # than n_gates * N), else the projection's blocks (gates="input")
    n = weight_h.shape[1] if weight_h is not None else proj.shape[1] // cell.n_gates
    h = proj.new_zeros(sizes[0], n) if h0 is None else h0
    c = (proj.new_zeros(sizes[0], n) if c0 is None else c0) if cell.cell_state else None
    outputs, states = [], []
    for t, k in enumerate(sizes):
        h, c = step(cell, proj[offsets[t] : offsets[t] + k], h[:k],
                    None if c is None else c[:k], weight_h=weight_h,
                    scale=None if scale is None else scale[t % scale.shape[0]],
                    state_bias=state_bias, bias_hn=bias_hn)
        outputs.append(h)
        states.append(c)
    hs = torch.cat(outputs)
    c_last = None if c is None else torch.cat(states).index_select(0, packing.last_rows)
    return hs, hs.index_select(0, packing.last_rows), c_last
