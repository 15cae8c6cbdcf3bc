"""The second-order LSTM (``solstm``) on the C++ kernels, backward by hand.

The maths is that of ``cells._second_order_step``: S LSTM steps from the same
(h, c), their new states mixed by the weights alpha that close each row of the
projection. The C++ kernels (``csrc/cell_state.cpp``, ``second_order_*``) run
every step forward and every step back through time without an autograd graph
per step; this module hands them the packed tensors and reduces W_h's
gradient over all rows in one product. Tests check it against the reference
loop and with ``torch.autograd.gradcheck``.
"""
from typing import Optional, Tuple

import torch
from torch import Tensor

from . import extension, onednn
from ..cells import Cell
from ..packing import Packing


class SecondOrderRecurrence(torch.autograd.Function):
    """proj: (n_tokens, S * n_gates * N + S), packed: the S cells'
    pre-activations (bias included) and alpha. weight_h: (S * n_gates * N, N).
    c0: the mixed cell state before the first step,
    (sizes[0], N), or None for zeros (an initial h enters through proj, as in
    ``fused``). Returns h (n_tokens, N), packed, and each sequence's last c
    (sizes[0], N), packed order; both carry gradient."""

    @staticmethod
    def forward(ctx, proj: Tensor, weight_h: Optional[Tensor], c0: Optional[Tensor],
                packing: Packing, cell: Cell, hidden: int, cells: int) -> Tuple[Tensor, Tensor]:
        ctx.packing, ctx.cell = packing, cell
        ctx.set_materialize_grads(False)
        hs, cs, acts, ccs, tcs = extension.get().second_order_forward(
            proj, weight_h, c0, packing.sizes, cell.state_gates, hidden, cells)
        ctx.save_for_backward(hs, cs, acts, ccs, tcs, proj[:, -cells:], weight_h, c0)
        return hs, cs.index_select(0, packing.last_rows)

    @staticmethod
    def backward(ctx, d_hs: Optional[Tensor], d_c_last: Optional[Tensor]):
        hs, cs, acts, ccs, tcs, alphas, weight_h, c0 = ctx.saved_tensors
        packing = ctx.packing
        d_hs = torch.zeros_like(hs) if d_hs is None else d_hs
        d_proj, d_c0 = extension.get().second_order_backward(
            d_hs, acts, cs, ccs, tcs, alphas, weight_h, c0, d_c_last, packing.sizes,
            ctx.cell.state_gates)
        d_weight_h = None
        if weight_h is not None and ctx.needs_input_grad[1]:
            d_pre = d_proj[packing.sizes[0]:, :acts.shape[1]]
            d_weight_h = onednn.weight_grad(d_pre, hs.index_select(0, packing.previous))
        return (d_proj, d_weight_h, None if c0 is None else d_c0, None, None, None, None)


def run(cell: Cell, proj: Tensor, packing: Packing, weight_h: Tensor,
        c0: Optional[Tensor]) -> Tuple[Tensor, Tensor]:
    """h (n_tokens, N), packed, and each sequence's last c; proj with any
    initial h already in it, and c0, as ``kernels.run`` hands them on."""
    hidden = weight_h.shape[1]
    cells = weight_h.shape[0] // (cell.n_gates * hidden)
    return SecondOrderRecurrence.apply(proj, weight_h, c0, packing, cell, hidden, cells)
