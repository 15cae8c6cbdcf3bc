"""A fast path for the cells with a cell state (lstm, elstm, elstm2).

Forward and backward through time are written out by hand, so a step costs a
handful of in-place kernels and no autograd graph is built per step. The maths
is exactly that of ``cells.step``; tests check the two against each other and
the gradients with ``torch.autograd.gradcheck``.

With ``gates="input"`` every gate is known before the loop starts, so gates,
nonlinearities and all parameter gradients are computed for all steps at once,
and only the linear recurrence c_t = f_t * c_(t-1) + u_t runs step by step.

On the CPU the steps run in the C++ kernels of ``csrc/cell_state.cpp`` (see
``extension``): one matrix product and one fused loop per step. Elsewhere, or
where they cannot be built, the same steps run as PyTorch ops below.

All tensors are time-major and sorted by decreasing length: at step t the
first ``sizes[t]`` rows are running, the rest are padding and never read.
"""
from typing import List, Optional, Tuple

import torch
from torch import Tensor

from . import extension, onednn


def gate_slices(n: int, has_forget: bool) -> Tuple[slice, Optional[slice], slice, slice]:
    """(i, f, g, o) column slices of the projection; f is None for ELSTM-II."""
    if has_forget:
        return slice(0, n), slice(n, 2 * n), slice(2 * n, 3 * n), slice(3 * n, 4 * n)
    return slice(0, n), None, slice(n, 2 * n), slice(2 * n, 3 * n)


def _activate(a: Tensor, g: slice) -> Tensor:
    acts = torch.sigmoid(a)
    acts[..., g] = torch.tanh(a[..., g])
    return acts


def _derivatives(acts: Tensor, g: slice) -> Tensor:
    """d act / d pre-activation, from the activations: s(1-s), or 1 - tanh^2."""
    deriv = acts * (1 - acts)
    deriv[..., g] = 1 - acts[..., g] ** 2
    return deriv


def _scale_index(scale: Tensor, seq_len: int) -> Tensor:
    """t_s - 1 = t mod Ts for the steps t = 0..seq_len-1."""
    return torch.arange(seq_len, device=scale.device) % scale.shape[0]


def _scale_rows(scale: Tensor, seq_len: int) -> Tensor:
    """s_ts for t = 0..seq_len-1, shape (seq_len, 1, N)."""
    return scale[_scale_index(scale, seq_len)].unsqueeze(1)


class CellStateRecurrence(torch.autograd.Function):
    """proj: (seq_len, batch, n_gates * N), the input projection incl. bias.
    weight_h: (n_gates * N, N) or None (gates="input"). scale: (Ts, N) or None.
    state_bias: (N,) or None. sizes: running sequences per step.
    Returns h: (seq_len, batch, N), zero at padding."""

    @staticmethod
    def forward(ctx, proj: Tensor, weight_h: Optional[Tensor], scale: Optional[Tensor],
                state_bias: Optional[Tensor], sizes: List[int], has_forget: bool) -> Tensor:
        ctx.sizes, ctx.has_forget = sizes, has_forget
        kernels = extension.get() if proj.device.type == "cpu" else None
        ctx.kernels = kernels
        if kernels is not None:
            scales = None if scale is None else _scale_rows(scale, proj.shape[0]).squeeze(1)
            hs, cs, tcs, acts = kernels.forward(proj, weight_h, onednn.packed(weight_h, sizes[0]),
                                                scales, state_bias, sizes, has_forget)
            ctx.save_for_backward(acts, cs, tcs, hs, weight_h, scale, state_bias)
            return hs
        seq_len, batch, width = proj.shape
        n = width // (4 if has_forget else 3)
        i, f, g, o = gate_slices(n, has_forget)
        scales = None if scale is None else _scale_rows(scale, seq_len)
        cs = proj.new_zeros(seq_len, batch, n)
        if weight_h is None:
            acts = _activate(proj, g)
            u = acts[..., i] * acts[..., g]
            if scales is not None:
                u.mul_(scales)
            for t, k in enumerate(sizes):
                if t == 0:
                    cs[0, :k] = u[0, :k]
                elif has_forget:
                    torch.addcmul(u[t, :k], acts[t, :k, f], cs[t - 1, :k], out=cs[t, :k])
                else:
                    torch.add(u[t, :k], cs[t - 1, :k], out=cs[t, :k])
            tcs = torch.tanh(cs if state_bias is None else cs + state_bias)
            hs = acts[..., o] * tcs
            hs.mul_(_mask(sizes, batch, proj))
        else:
            acts = torch.zeros_like(proj)
            tcs = proj.new_zeros(seq_len, batch, n)
            hs = proj.new_zeros(seq_len, batch, n)
            w_t = weight_h.t()
            for t, k in enumerate(sizes):
                a = proj[t, :k] if t == 0 else torch.addmm(proj[t, :k], hs[t - 1, :k], w_t)
                act = acts[t, :k]
                torch.sigmoid(a, out=act)
                act[:, g] = torch.tanh(a[:, g])
                c = cs[t, :k]
                torch.mul(act[:, i], act[:, g], out=c)
                if scales is not None:
                    c.mul_(scales[t])
                if t > 0:
                    if has_forget:
                        c.addcmul_(act[:, f], cs[t - 1, :k])
                    else:
                        c.add_(cs[t - 1, :k])
                tc = tcs[t, :k]
                if state_bias is None:
                    torch.tanh(c, out=tc)
                else:
                    torch.add(c, state_bias, out=tc).tanh_()
                torch.mul(act[:, o], tc, out=hs[t, :k])
        ctx.save_for_backward(acts, cs, tcs, hs, weight_h, scale, state_bias)
        return hs

    @staticmethod
    def backward(ctx, d_hs: Tensor):
        acts, cs, tcs, hs, weight_h, scale, state_bias = ctx.saved_tensors
        sizes, has_forget = ctx.sizes, ctx.has_forget
        seq_len, batch, n = cs.shape
        i, f, g, o = gate_slices(n, has_forget)
        scales = None if scale is None else _scale_rows(scale, seq_len)
        if ctx.kernels is not None:
            packed_t = None if weight_h is None else onednn.packed(weight_h.t(), sizes[0])
            d_pre, d_su, d_tc_pre = ctx.kernels.backward(
                d_hs, acts, cs, tcs, weight_h, packed_t,
                None if scales is None else scales.squeeze(1), sizes, has_forget)
            return _parameter_grads(ctx, d_pre, d_su, d_tc_pre, hs, weight_h, scale, state_bias)
        d_hs = d_hs * _mask(sizes, batch, d_hs)
        deriv = _derivatives(acts, g)
        d_act = torch.zeros_like(acts)
        if weight_h is None:
            d_act[..., o] = d_hs * tcs
            d_cz = d_hs * acts[..., o] * (1 - tcs**2)  # through h_t only
            d_cs = torch.zeros_like(cs)
            for t in range(len(sizes) - 1, -1, -1):
                k = sizes[t]
                d_cs[t, :k] = d_cz[t, :k]
                if t + 1 < len(sizes):
                    k1 = sizes[t + 1]
                    nxt = d_cs[t + 1, :k1]
                    if has_forget:
                        d_cs[t, :k1].addcmul_(acts[t + 1, :k1, f], nxt)
                    else:
                        d_cs[t, :k1].add_(nxt)
            d_tc_pre = d_cz
            # every gate's gradient, all steps at once
            _gate_grads(d_act, acts, d_cs, scales, i, g)
            if has_forget:
                c_prev = torch.cat([cs.new_zeros(1, batch, n), cs[:-1]])
                d_act[..., f] = d_cs * c_prev
            d_pre = d_act * deriv
        else:
            d_cs = torch.zeros_like(cs)
            d_tc_pre = torch.zeros_like(cs)
            d_pre = torch.zeros_like(acts)
            d_c = torch.zeros_like(cs[0])
            for t in range(len(sizes) - 1, -1, -1):
                k = sizes[t]
                dh = d_hs[t, :k].clone()
                # rows that ran at t+1 carry f_(t+1) * dc_(t+1) in d_c; rows
                # that ended at t were never written and are still zero
                dc = d_c[:k]
                if t + 1 < len(sizes):
                    k1 = sizes[t + 1]
                    dh[:k1].addmm_(d_pre[t + 1, :k1], weight_h)
                act = acts[t, :k]
                tc = tcs[t, :k]
                da = d_act[t, :k]
                torch.mul(dh, tc, out=da[:, o])
                dz = d_tc_pre[t, :k]
                torch.mul(dh, act[:, o], out=dz)
                dz.mul_(1 - tc * tc)
                dc.add_(dz)
                d_cs[t, :k] = dc
                _gate_grads(da, act, dc, None if scales is None else scales[t], i, g)
                if has_forget:
                    if t > 0:
                        torch.mul(dc, cs[t - 1, :k], out=da[:, f])
                    dc.mul_(act[:, f])
                torch.mul(da, deriv[t, :k], out=d_pre[t, :k])
        d_su = None if scale is None else d_cs * acts[..., i] * acts[..., g]
        return _parameter_grads(ctx, d_pre, d_su, d_tc_pre, hs, weight_h, scale, state_bias)


def _parameter_grads(ctx, d_pre: Tensor, d_su: Optional[Tensor], d_tc_pre: Tensor, hs: Tensor,
                     weight_h: Optional[Tensor], scale: Optional[Tensor],
                     state_bias: Optional[Tensor]):
    """Gradients of all inputs of CellStateRecurrence.forward from the per-step
    gradients (d_pre: pre-activations; d_su: dc * i * g, the gradient of s_ts per
    step and row; d_tc_pre: of c + b), each parameter's one reduction over steps."""
    seq_len, n = hs.shape[0], hs.shape[2]
    d_weight_h = d_scale = d_state_bias = None
    if weight_h is not None and ctx.needs_input_grad[1]:
        d_weight_h = onednn.weight_grad(d_pre[1:].reshape(-1, d_pre.shape[-1]), hs[:-1].reshape(-1, n))
    if scale is not None and ctx.needs_input_grad[2]:
        per_step = d_su.sum(1)
        d_scale = torch.zeros_like(scale).index_add_(0, _scale_index(scale, seq_len), per_step)
    if state_bias is not None and ctx.needs_input_grad[3]:
        d_state_bias = d_tc_pre.sum((0, 1))
    return d_pre, d_weight_h, d_scale, d_state_bias, None, None


def _gate_grads(d_act: Tensor, acts: Tensor, d_c: Tensor, scales: Optional[Tensor],
                i: slice, g: slice) -> None:
    """d/d i and d/d g of u = s * i * g, written into d_act."""
    d_u = d_c if scales is None else d_c * scales
    torch.mul(d_u, acts[..., g], out=d_act[..., i])
    torch.mul(d_u, acts[..., i], out=d_act[..., g])


def _mask(sizes: List[int], batch: int, like: Tensor) -> Tensor:
    """(seq_len, batch, 1): 1 where a sequence is running, 0 on padding."""
    counts = torch.tensor(sizes, device=like.device).unsqueeze(1)
    return (torch.arange(batch, device=like.device).unsqueeze(0) < counts).to(like.dtype).unsqueeze(2)
