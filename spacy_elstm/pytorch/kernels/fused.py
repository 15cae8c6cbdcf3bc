"""The fused recurrence of the cells with a cell state (lstm, elstm, elstm2).

Forward and backward through time are written out by hand, so a step costs a
handful of in-place kernels and no autograd graph is built per step. The maths
is exactly that of ``cells.step``; tests check the two against each other and
the gradients with ``torch.autograd.gradcheck``. Which of its kernels runs is
decided by the registry (``kernels.select``) and handed in by name:

- ``cpp`` and ``cpp-onednn``: the C++ kernels of ``csrc/cell_state.cpp`` (see
  ``extension``), one fused pass per step; with ``cpp-onednn`` each step's
  recurrent product runs on oneDNN with the weight reordered once per pass.
- ``triton``: two persistent Triton kernels, every step forward in one launch
  and every step backward in another (``triton_cell``; CUDA, gates="recurrent").
- ``torch``: PyTorch ops per step (gates="recurrent").
- ``scan``: with ``gates="input"`` every gate is known before the loop starts,
  so gates, nonlinearities and all parameter gradients are computed for all
  steps at once, and the linear recurrence c_t = f_t * c_(t-1) + u_t runs as a
  parallel scan (``scan``).

The gates are read where the cell table (``cells.TABLE``) puts them; the C++
kernels receive the same offsets. All tensors are packed (see ``packing``):
step t owns ``sizes[t]`` rows, right after those of step t - 1; padding is
never stored or read.
"""
from typing import Optional, Tuple

import torch
from torch import Tensor

from . import extension
from ..cells import Cell
from ..packing import Packing
from . import onednn
from .scan import linear_scan


def _triton():
    """The Triton kernels, imported on first use (Triton is optional)."""
    from . import triton_cell

    return triton_cell


def _activate(a: Tensor, g: slice) -> Tensor:
    acts = torch.sigmoid(a)
    acts[..., g] = torch.tanh(a[..., g])
    return acts


def _derivatives(acts: Tensor, g: slice) -> Tensor:
    """d act / d pre-activation, from the activations: s(1-s), or 1 - tanh^2."""
    deriv = acts * (1 - acts)
    deriv[..., g] = 1 - acts[..., g] ** 2
    return deriv


def _scale_rows(scale: Tensor, seq_len: int) -> Tensor:
    """s_ts for t = 0..seq_len-1 (t_s - 1 = t mod Ts), shape (seq_len, N)."""
    return scale[torch.arange(seq_len, device=scale.device) % scale.shape[0]]


class CellStateRecurrence(torch.autograd.Function):
    """proj: (n_tokens, n_gates * N), the packed input projection incl. bias.
    weight_h: (n_gates * N, N) or None (gates="input"). scale: (Ts, N) or None.
    state_bias: (N,) or None. c0: the cell state before the first step, one row
    per sequence of length >= 1 in packed order, (sizes[0], N), or None for
    zeros (an initial h enters through proj: its W_h h_0 is added to the rows of
    step 0 by the caller). packing: where each row lives (``packing.Packing``).
    cell: the cell's table entry. kernel: "cpp", "cpp-onednn", "triton", "torch" or "scan".
    Returns h: (n_tokens, N), packed, and each sequence's last c, (sizes[0], N),
    packed order; both carry gradient."""

    @staticmethod
    def forward(ctx, proj: Tensor, weight_h: Optional[Tensor], scale: Optional[Tensor],
                state_bias: Optional[Tensor], c0: Optional[Tensor], packing: Packing,
                cell: Cell, kernel: str) -> Tuple[Tensor, Tensor]:
        ctx.packing, ctx.cell, ctx.kernel = packing, cell, kernel
        ctx.set_materialize_grads(False)
        sizes = packing.sizes
        scales = None if scale is None else _scale_rows(scale, len(sizes))
        ctx.scales = scales  # derived from scale; backward reuses it
        if kernel == "triton":
            if c0 is not None:
                raise ValueError("The Triton kernels take no initial state.")
            hs, cs, tcs, acts = _triton().forward(proj, weight_h, scales, state_bias, packing,
                                                  cell)
        elif kernel in ("cpp", "cpp-onednn"):
            packed = onednn.reorder_weight(weight_h, sizes[0]) if kernel == "cpp-onednn" else None
            hs, cs, tcs, acts = extension.get().forward(proj, weight_h, packed, scales,
                                                        state_bias, c0, sizes, cell.state_gates)
        else:
            hs, cs, tcs, acts = _ops_forward(proj, weight_h, scales, state_bias, c0, packing,
                                             cell, kernel)
        ctx.save_for_backward(acts, cs, tcs, hs, weight_h, scale, state_bias, c0)
        return hs, cs.index_select(0, packing.last_rows)

    @staticmethod
    def backward(ctx, d_hs: Optional[Tensor], d_c_last: Optional[Tensor]):
        acts, cs, tcs, hs, weight_h, scale, state_bias, c0 = ctx.saved_tensors
        packing, cell = ctx.packing, ctx.cell
        sizes = packing.sizes
        n = cs.shape[1]
        has_forget = cell.index("f") >= 0
        i, f, g, o = (cell.block(q, n) for q in "ifgo")
        scales = ctx.scales
        d_hs = torch.zeros_like(hs) if d_hs is None else d_hs.contiguous()
        if ctx.kernel == "triton":
            if d_c_last is not None:
                raise ValueError("The Triton kernels take no gradient of the last cell state.")
            d_pre, d_cs, d_tc_pre = _triton().backward(d_hs, acts, cs, tcs, weight_h, scales,
                                                       packing, cell)
            return _parameter_grads(ctx, d_pre, _scale_grads(scale, d_cs, acts, i, g), d_tc_pre,
                                    hs, weight_h, scale, state_bias, None)
        if ctx.kernel in ("cpp", "cpp-onednn"):
            packed_t = (onednn.reorder_weight(weight_h.t(), sizes[0])
                        if ctx.kernel == "cpp-onednn" else None)
            d_pre, d_su, d_tc_pre, d_c0 = extension.get().backward(
                d_hs, acts, cs, tcs, weight_h, packed_t, scales, c0, d_c_last, sizes,
                cell.state_gates)
            return _parameter_grads(ctx, d_pre, d_su, d_tc_pre, hs, weight_h, scale, state_bias,
                                    None if c0 is None else d_c0)
        offsets = packing.offsets
        deriv = _derivatives(acts, g)
        d_act = torch.empty_like(acts)
        if ctx.kernel == "scan":
            d_act[:, o] = d_hs * tcs
            d_tc_pre = d_hs * acts[:, o] * (1 - tcs**2)  # through h_t only
            # dc_t = d_tc_pre_t + f_(t+1) * dc_(t+1), every step at once: a scan
            # backwards in time, with f = 0 past each sequence's end
            forget = acts[:, f] if has_forget else torch.ones_like(cs)
            forget_0 = forget[: sizes[0]]
            forget = packing.to_time_major(forget)
            f_next = torch.cat([forget[1:], torch.zeros_like(forget[:1])])
            d_c_own = d_tc_pre
            if d_c_last is not None:
                d_c_own = d_tc_pre.index_add(0, packing.last_rows, d_c_last)
            d_cs = packing.from_time_major(linear_scan(
                f_next.flip(0), packing.to_time_major(d_c_own).flip(0)).flip(0))
            # every gate's gradient, all steps at once
            step_scales = None if scales is None else scales[packing.steps]
            _gate_grads(d_act, acts, d_cs, step_scales, i, g)
            if has_forget:
                d_act[: sizes[0], f] = 0 if c0 is None else d_cs[: sizes[0]] * c0
                d_act[sizes[0] :, f] = d_cs[sizes[0] :] * cs[packing.previous]
            d_pre = d_act * deriv
            d_c0 = None if c0 is None else d_cs[: sizes[0]] * forget_0
        else:
            d_cs = torch.empty_like(cs)
            # f_(t+1) * dc_(t+1) per running row; a row's slot is first read at
            # its last step, where it holds dL/dc_last, and ends as dL/dc0
            d_c = cs.new_zeros(sizes[0], n) if d_c_last is None else d_c_last.clone()
            d_tc_pre = torch.empty_like(cs)
            d_pre = torch.empty_like(acts)
            for t in range(len(sizes) - 1, -1, -1):
                k, rows = sizes[t], slice(offsets[t], offsets[t] + sizes[t])
                dh = d_hs[rows].clone()
                k1 = sizes[t + 1] if t + 1 < len(sizes) else 0
                if k1:
                    dh[:k1].addmm_(d_pre[offsets[t + 1] : offsets[t + 1] + k1], weight_h)
                dc = d_c[:k]
                act, tc, da = acts[rows], tcs[rows], d_act[rows]
                torch.mul(dh, tc, out=da[:, o])
                dz = d_tc_pre[rows]
                torch.mul(dh, act[:, o], out=dz)
                dz.mul_(1 - tc * tc)
                dc.add_(dz)
                d_cs[rows] = dc
                _gate_grads(da, act, dc, None if scales is None else scales[t], i, g)
                if has_forget:
                    c_prev = cs[offsets[t - 1] : offsets[t - 1] + k] if t > 0 else c0
                    if c_prev is not None:
                        torch.mul(dc, c_prev, out=da[:, f])
                    else:
                        da[:, f] = 0
                    dc.mul_(act[:, f])
                torch.mul(da, deriv[rows], out=d_pre[rows])
            d_c0 = None if c0 is None else d_c
        return _parameter_grads(ctx, d_pre, _scale_grads(scale, d_cs, acts, i, g), d_tc_pre,
                                hs, weight_h, scale, state_bias, d_c0)


def _ops_forward(proj: Tensor, weight_h: Optional[Tensor], scales: Optional[Tensor],
                 state_bias: Optional[Tensor], c0: Optional[Tensor], packing: Packing,
                 cell: Cell, kernel: str) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """The forward pass of the PyTorch-ops kernels ("scan" and "torch"): h, c,
    tanh(c + b) and the activated gates, as the C++ and Triton kernels return them."""
    sizes = packing.sizes
    n = proj.shape[1] // cell.n_gates
    has_forget = cell.index("f") >= 0
    i, f, g, o = (cell.block(q, n) for q in "ifgo")
    offsets = packing.offsets
    if kernel == "scan":
        acts = _activate(proj, g)
        u = acts[:, i] * acts[:, g]
        if scales is not None:
            u.mul_(scales[packing.steps])
        # c_t = f_t * c_(t-1) + u_t (f = 1 for ELSTM-II), every step at once
        forget = acts[:, f] if has_forget else torch.ones_like(u)
        if c0 is not None:  # c_(-1) = c0 enters as f_0 * c0 in u_0
            u[: sizes[0]].addcmul_(forget[: sizes[0]], c0)
        cs = packing.from_time_major(linear_scan(packing.to_time_major(forget),
                                                 packing.to_time_major(u)))
        tcs = torch.tanh(cs if state_bias is None else cs + state_bias)
        hs = acts[:, o] * tcs
    else:
        acts = torch.empty_like(proj)
        cs = proj.new_empty(proj.shape[0], n)
        tcs = proj.new_empty(proj.shape[0], n)
        hs = proj.new_empty(proj.shape[0], n)
        w_t = weight_h.t()
        for t, k in enumerate(sizes):
            rows = slice(offsets[t], offsets[t] + k)
            prev = slice(offsets[t - 1], offsets[t - 1] + k) if t > 0 else None
            a = proj[rows] if t == 0 else torch.addmm(proj[rows], hs[prev], w_t)
            act = acts[rows]
            torch.sigmoid(a, out=act)
            act[:, g] = torch.tanh(a[:, g])
            c = cs[rows]
            torch.mul(act[:, i], act[:, g], out=c)
            if scales is not None:
                c.mul_(scales[t])
            c_prev = cs[prev] if t > 0 else c0
            if c_prev is not None:
                if has_forget:
                    c.addcmul_(act[:, f], c_prev)
                else:
                    c.add_(c_prev)
            tc = tcs[rows]
            if state_bias is None:
                torch.tanh(c, out=tc)
            else:
                torch.add(c, state_bias, out=tc).tanh_()
            torch.mul(act[:, o], tc, out=hs[rows])
    return hs, cs, tcs, acts


def _scale_grads(scale: Optional[Tensor], d_cs: Tensor, acts: Tensor, i: slice,
                 g: slice) -> Optional[Tensor]:
    """dc * i * g per row, the gradient of s_ts (u = s * i * g); None without s."""
    return None if scale is None else d_cs * acts[:, i] * acts[:, g]


def _parameter_grads(ctx, d_pre: Tensor, d_su: Optional[Tensor], d_tc_pre: Tensor, hs: Tensor,
                     weight_h: Optional[Tensor], scale: Optional[Tensor],
                     state_bias: Optional[Tensor], d_c0: Optional[Tensor]):
    """Gradients of all inputs of CellStateRecurrence.forward from the per-row
    gradients (d_pre: pre-activations; d_su: dc * i * g, the gradient of s_ts per
    row; d_tc_pre: of c + b; d_c0: of the initial cell state), each parameter's
    one reduction over all rows."""
    packing = ctx.packing
    d_weight_h = d_scale = d_state_bias = None
    if weight_h is not None and ctx.needs_input_grad[1]:
        h_prev = hs.index_select(0, packing.previous)
        d_weight_h = onednn.weight_grad(d_pre[packing.sizes[0] :], h_prev)
    if scale is not None and ctx.needs_input_grad[2]:
        steps = packing.steps % scale.shape[0]
        d_scale = torch.zeros_like(scale).index_add_(0, steps, d_su)
    if state_bias is not None and ctx.needs_input_grad[3]:
        d_state_bias = d_tc_pre.sum(0)
    return d_pre, d_weight_h, d_scale, d_state_bias, d_c0, None, None, None


def _gate_grads(d_act: Tensor, acts: Tensor, d_c: Tensor, scales: Optional[Tensor],
                i: slice, g: slice) -> None:
    """d/d i and d/d g of u = s * i * g, written into d_act."""
    d_u = d_c if scales is None else d_c * scales
    torch.mul(d_u, acts[..., g], out=d_act[..., i])
    torch.mul(d_u, acts[..., i], out=d_act[..., g])
