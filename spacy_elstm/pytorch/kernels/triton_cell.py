"""The recurrence of the cells with a cell state on a GPU, in two persistent
Triton kernels: one launch runs every step forward, one every step backward.

A per-step loop costs a dozen kernel launches a step, each far longer than its
arithmetic at these sizes; cuDNN runs the whole recurrence in one call. Here
each program owns a block of ``BB`` packed rows (the same sequences at every
step, since the packed layout keeps sequences in order of decreasing length)
and a group of hidden columns, and walks through time itself: the step's
recurrent product ``h_(t-1) W_h^T`` with ``tl.dot``, then the gates, the cell
state and h, written where the PyTorch kernels write them (``fused``), so the
rest of ``CellStateRecurrence`` (saved tensors, parameter gradients) is shared.

Where the columns are split among ``groups`` programs, every program of a row
block needs all of h_(t-1), so the programs of a row block meet at a barrier
after each step (an atomic counter; the grid never exceeds the multiprocessor
count, so all its programs run at once). With one group the barrier is the
program's own. The Triton interpreter (``TRITON_INTERPRET=1``) runs the same
kernels on the CPU, one program after another, so there ``groups`` is 1; the
tests run them there against the float64 reference.

The recurrent products follow the setting PyTorch gives cuDNN's RNNs, which
these kernels stand in for: TF32 where ``torch.backends.cudnn.allow_tf32`` is
on (PyTorch's default), full float32 otherwise.
"""
from typing import Optional, Tuple

import torch
import triton
import triton.language as tl
from torch import Tensor

from ..cells import Cell
from ..packing import Packing

# tl.dot needs at least 16 in every dimension. Chosen on an H100 among
# (rows, cols, k) in {16, 32} x {32, 64, 128} x {32, 64} (docs/gpu.md): narrow
# column tiles give a step more programs
BLOCK_ROWS = 16
BLOCK_COLS = 32
BLOCK_K = 32


# the kernels call only Triton's core operations: its standard library
# (tl.sigmoid and the like) is compiled when Triton is imported, so under an
# interpreter switched on later it would not run

@triton.jit
def _sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))


@triton.jit
def _tanh(x):
    return 2.0 * _sigmoid(2.0 * x) - 1.0


@triton.jit
def _meet(sync, meets, GROUPS: tl.constexpr):
    """Wait until every program of this row block has finished its step
    (``meets`` counts the steps the row block has run, this one included)."""
    tl.debug_barrier()
    if GROUPS > 1:
        tl.atomic_add(sync, 1, sem="release")
        seen = tl.atomic_add(sync, 0, sem="acquire")
        while seen < meets * GROUPS:
            seen = tl.atomic_add(sync, 0, sem="acquire")
        tl.debug_barrier()


@triton.jit
def _forward(proj, w, scales, state_bias, sizes, offsets, hs, cs, tcs, acts, sync, T,
             N: tl.constexpr, NG: tl.constexpr, I: tl.constexpr, F: tl.constexpr, G: tl.constexpr,
             O: tl.constexpr, HAS_SCALE: tl.constexpr, HAS_BIAS: tl.constexpr,
             BB: tl.constexpr, BJ: tl.constexpr, BK: tl.constexpr, GROUPS: tl.constexpr,
             PRECISION: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    rows = pid_r * BB + tl.arange(0, BB)
    width = NG * N
    t = 0
    meets = 0
    while t < T:  # a while loop: the interpreter cannot range over a run-time bound
        k = tl.load(sizes + t)
        off = tl.load(offsets + t)
        off_p = tl.load(offsets + tl.maximum(t - 1, 0))
        if pid_r * BB < k:
            rmask = rows < k
            for j in range(0, N, BJ):
              if (j // BJ) % GROUPS == pid_c:
                cols = j + tl.arange(0, BJ)
                cmask = cols < N
                m = rmask[:, None] & cmask[None, :]
                at = (off + rows)[:, None] * width + cols[None, :]
                a_i = tl.load(proj + at + I * N, mask=m, other=0.0)
                a_g = tl.load(proj + at + G * N, mask=m, other=0.0)
                a_o = tl.load(proj + at + O * N, mask=m, other=0.0)
                if F >= 0:
                    a_f = tl.load(proj + at + F * N, mask=m, other=0.0)
                if t > 0:
                    for kk in range(0, N, BK):
                        ks = kk + tl.arange(0, BK)
                        kmask = ks < N
                        h = tl.load(hs + (off_p + rows)[:, None] * N + ks[None, :],
                                    mask=rmask[:, None] & kmask[None, :], other=0.0,
                                    cache_modifier=".cg")
                        # W_h[q * N + col, k] as a (BK, BJ) block: W_h^T of gate q
                        wt = w + cols[None, :] * N + ks[:, None]
                        wm = kmask[:, None] & cmask[None, :]
                        a_i += tl.dot(h, tl.load(wt + I * N * N, mask=wm, other=0.0),
                                      input_precision=PRECISION)
                        a_g += tl.dot(h, tl.load(wt + G * N * N, mask=wm, other=0.0),
                                      input_precision=PRECISION)
                        a_o += tl.dot(h, tl.load(wt + O * N * N, mask=wm, other=0.0),
                                      input_precision=PRECISION)
                        if F >= 0:
                            a_f += tl.dot(h, tl.load(wt + F * N * N, mask=wm, other=0.0),
                                          input_precision=PRECISION)
                i_ = _sigmoid(a_i)
                g_ = _tanh(a_g)
                o_ = _sigmoid(a_o)
                c = i_ * g_
                if HAS_SCALE:
                    c = c * tl.load(scales + t * N + cols, mask=cmask, other=0.0)[None, :]
                if F >= 0:
                    f_ = _sigmoid(a_f)
                if t > 0:
                    c_prev = tl.load(cs + (off_p + rows)[:, None] * N + cols[None, :], mask=m,
                                     other=0.0)
                    if F >= 0:
                        c += f_ * c_prev
                    else:
                        c += c_prev
                cb = c
                if HAS_BIAS:
                    cb = c + tl.load(state_bias + cols, mask=cmask, other=0.0)[None, :]
                tc = _tanh(cb)
                out = (off + rows)[:, None] * N + cols[None, :]
                tl.store(acts + at + I * N, i_, mask=m)
                tl.store(acts + at + G * N, g_, mask=m)
                tl.store(acts + at + O * N, o_, mask=m)
                if F >= 0:
                    tl.store(acts + at + F * N, f_, mask=m)
                tl.store(cs + out, c, mask=m)
                tl.store(tcs + out, tc, mask=m)
                tl.store(hs + out, o_ * tc, mask=m)
            meets += 1
            _meet(sync + pid_r, meets, GROUPS)
        t += 1


@triton.jit
def _backward(d_hs, acts, cs, tcs, w, scales, sizes, offsets, d_pre, d_tc_pre, d_cs, carry,
              sync, T, N: tl.constexpr, NG: tl.constexpr, I: tl.constexpr, F: tl.constexpr,
              G: tl.constexpr, O: tl.constexpr, HAS_SCALE: tl.constexpr,
              BB: tl.constexpr, BJ: tl.constexpr, BK: tl.constexpr, GROUPS: tl.constexpr,
              PRECISION: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    rows = pid_r * BB + tl.arange(0, BB)
    width = NG * N
    step = 0
    meets = 0  # a row block starts late here: its sequences end before the longest
    while step < T:
        t = T - 1 - step
        k = tl.load(sizes + t)
        k1 = tl.load(sizes + t + 1)  # sizes ends with a 0
        off = tl.load(offsets + t)
        off_n = tl.load(offsets + t + 1)
        off_p = tl.load(offsets + tl.maximum(t - 1, 0))
        if pid_r * BB < k:
            rmask = rows < k
            nmask = rows < k1  # sequences that go on to step t + 1
            for j in range(0, N, BJ):
              if (j // BJ) % GROUPS == pid_c:
                cols = j + tl.arange(0, BJ)
                cmask = cols < N
                m = rmask[:, None] & cmask[None, :]
                out = (off + rows)[:, None] * N + cols[None, :]
                dh = tl.load(d_hs + out, mask=m, other=0.0)
                if pid_r * BB < k1:
                    # + d_pre(t + 1) W_h: the gradient through the next step's gates
                    for kk in range(0, NG * N, BK):
                        ks = kk + tl.arange(0, BK)
                        kmask = ks < width
                        dp = tl.load(d_pre + (off_n + rows)[:, None] * width + ks[None, :],
                                     mask=nmask[:, None] & kmask[None, :], other=0.0,
                                     cache_modifier=".cg")
                        wv = tl.load(w + ks[:, None] * N + cols[None, :],
                                     mask=kmask[:, None] & cmask[None, :], other=0.0)
                        dh += tl.dot(dp, wv, input_precision=PRECISION)
                at = (off + rows)[:, None] * width + cols[None, :]
                i_ = tl.load(acts + at + I * N, mask=m, other=0.0)
                g_ = tl.load(acts + at + G * N, mask=m, other=0.0)
                o_ = tl.load(acts + at + O * N, mask=m, other=0.0)
                tc = tl.load(tcs + out, mask=m, other=0.0)
                d_o = dh * tc
                dz = dh * o_ * (1.0 - tc * tc)
                tl.store(d_tc_pre + out, dz, mask=m)
                cm = nmask[:, None] & cmask[None, :]
                held = carry + rows[:, None] * N + cols[None, :]
                dc = dz + tl.load(held, mask=cm, other=0.0)
                tl.store(d_cs + out, dc, mask=m)
                du = dc
                if HAS_SCALE:
                    du = dc * tl.load(scales + t * N + cols, mask=cmask, other=0.0)[None, :]
                tl.store(d_pre + at + I * N, du * g_ * i_ * (1.0 - i_), mask=m)
                tl.store(d_pre + at + G * N, du * i_ * (1.0 - g_ * g_), mask=m)
                tl.store(d_pre + at + O * N, d_o * o_ * (1.0 - o_), mask=m)
                if F >= 0:
                    f_ = tl.load(acts + at + F * N, mask=m, other=0.0)
                    d_f = dc * 0.0
                    if t > 0:
                        c_prev = tl.load(cs + (off_p + rows)[:, None] * N + cols[None, :],
                                         mask=m, other=0.0)
                        d_f = dc * c_prev
                    tl.store(d_pre + at + F * N, d_f * f_ * (1.0 - f_), mask=m)
                    tl.store(held, dc * f_, mask=m)
                else:
                    tl.store(held, dc, mask=m)
            meets += 1
            _meet(sync + pid_r, meets, GROUPS)
        step += 1


def _grid(packing: Packing, n: int, device: torch.device) -> Tuple[int, int]:
    """(row blocks, column groups): as many groups as the columns and the
    multiprocessors allow, all programs resident at once; 1 in the interpreter."""
    row_blocks = triton.cdiv(packing.sizes[0], BLOCK_ROWS)
    if device.type != "cuda":
        return row_blocks, 1
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    tiles = triton.cdiv(n, BLOCK_COLS)
    return row_blocks, max(1, min(tiles, sms // row_blocks))


def _precision() -> str:
    return "tf32" if torch.backends.cudnn.allow_tf32 else "ieee"


def _gates(cell: Cell) -> dict:
    i, f, g, o = cell.state_gates
    return dict(NG=cell.n_gates, I=i, F=f, G=g, O=o)


def forward(proj: Tensor, weight_h: Tensor, scales: Optional[Tensor],
            state_bias: Optional[Tensor], packing: Packing, cell: Cell
            ) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """(hs, cs, tcs, acts) of the packed projection ``proj``, as ``fused`` makes them."""
    n = weight_h.shape[1]
    proj, weight_h = proj.contiguous(), weight_h.contiguous()
    sizes, offsets = packing.step_table(proj.device)
    rows, groups = _grid(packing, n, proj.device)
    acts = torch.empty_like(proj)
    hs, cs, tcs = (proj.new_empty(proj.shape[0], n) for _ in range(3))
    sync = torch.zeros(rows, dtype=torch.int32, device=proj.device)
    _forward[(rows, groups)](
        proj, weight_h, proj if scales is None else scales.contiguous(),
        proj if state_bias is None else state_bias.contiguous(), sizes, offsets, hs, cs, tcs,
        acts, sync, len(packing.sizes), n, **_gates(cell), HAS_SCALE=scales is not None,
        HAS_BIAS=state_bias is not None, BB=BLOCK_ROWS, BJ=BLOCK_COLS, BK=BLOCK_K,
        GROUPS=groups, PRECISION=_precision())
    return hs, cs, tcs, acts


def backward(d_hs: Tensor, acts: Tensor, cs: Tensor, tcs: Tensor, weight_h: Tensor,
             scales: Optional[Tensor], packing: Packing, cell: Cell
             ) -> Tuple[Tensor, Tensor, Tensor]:
    """(d_pre, d_cs, d_tc_pre) from the gradient of hs, as ``fused`` makes them."""
    n = weight_h.shape[1]
    sizes, offsets = packing.step_table(d_hs.device)
    rows, groups = _grid(packing, n, d_hs.device)
    d_pre = torch.empty_like(acts)
    d_tc_pre, d_cs = torch.empty_like(cs), torch.empty_like(cs)
    carry = cs.new_empty(packing.sizes[0], n)
    sync = torch.zeros(rows, dtype=torch.int32, device=d_hs.device)
    _backward[(rows, groups)](
        d_hs.contiguous(), acts, cs, tcs, weight_h.contiguous(),
        cs if scales is None else scales.contiguous(), sizes, offsets, d_pre, d_tc_pre, d_cs,
        carry, sync, len(packing.sizes), n, **_gates(cell), HAS_SCALE=scales is not None,
        BB=BLOCK_ROWS, BJ=BLOCK_COLS, BK=BLOCK_K, GROUPS=groups, PRECISION=_precision())
    return d_pre, d_cs, d_tc_pre
