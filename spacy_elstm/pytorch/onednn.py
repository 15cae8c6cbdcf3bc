"""Dense matrix products through oneDNN, the library torch.nn.LSTM runs on.

PyTorch sends ``torch.mm`` on the CPU to its BLAS (MKL in the official wheels);
its recurrent layers use oneDNN instead, which on some CPUs (AMD with AVX-512,
for one) is about twice as fast for the products a recurrent layer makes. The
products here run on oneDNN for float32 CPU tensors, and on the plain PyTorch
ops everywhere else (float64 in the gradient checks, CUDA, builds without
oneDNN, or SPACY_ELSTM_NO_ONEDNN=1). Both compute the same product; the tests
check one against the other.
"""
import os
from typing import List, Optional

import torch
from torch import Tensor


def _op(name: str):
    try:
        return getattr(torch.ops.mkldnn, name)
    except (AttributeError, RuntimeError):
        return None


_LINEAR = _op("_linear_pointwise")
_PACK = _op("_reorder_linear_weight")
# multiply-adds per layer and direction below which the per-step products run on
# the C++ kernels' own blocked products instead: packing a weight costs a few
# hundred microseconds, and below about 1e8 multiply-adds the blocked products
# were as fast or faster (measured on 2 cores)
PACK_MIN_MACS = 100_000_000


def enabled(t: Tensor) -> bool:
    """Whether products with ``t`` run on oneDNN."""
    return (
        _LINEAR is not None
        and t.dtype == torch.float32
        and t.device.type == "cpu"
        and torch.backends.mkldnn.is_available()
        and torch.backends.mkldnn.enabled
        and os.environ.get("SPACY_ELSTM_NO_ONEDNN", "") in ("", "0")
    )


def linear(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """x @ weight.T + bias, for x: (M, K), weight: (N, K), bias: (N,)."""
    if enabled(x):
        return _LINEAR(x, weight, bias, "none", [], "")
    return torch.addmm(bias, x, weight.t()) if bias is not None else x @ weight.t()


def packed(weight: Optional[Tensor], sizes: List[int]) -> Optional[Tensor]:
    """``weight`` (N, K) in oneDNN's own layout, for the C++ kernels that multiply
    the running rows of every step (``sizes``) by it; None where those products
    do not run on oneDNN, or where too few to repay the reordering."""
    if weight is None or _PACK is None or not enabled(weight):
        return None
    if sum(sizes) * weight.shape[0] * weight.shape[1] < PACK_MIN_MACS:
        return None
    return _PACK(weight.detach().contiguous(), sizes[0])


def weight_grad(d_y: Tensor, x: Tensor) -> Tensor:
    """d_y.T @ x, for d_y: (M, N), x: (M, K): the gradient of a linear layer's
    weight. oneDNN is fastest at it as (x.T @ d_y).T."""
    if enabled(x):
        return _LINEAR(x.t(), d_y.t(), None, "none", [], "").t()
    return d_y.t() @ x


class Linear(torch.autograd.Function):
    """``linear`` with its backward through the same products: the input
    projection of every step at once."""

    @staticmethod
    def forward(ctx, x: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None
        return linear(x, weight, bias)

    @staticmethod
    def backward(ctx, d_y: Tensor):
        x, weight = ctx.saved_tensors
        d_y = d_y.contiguous()
        d_x = d_weight = d_bias = None
        if ctx.needs_input_grad[0]:
            d_x = linear(d_y, weight.t())
        if ctx.needs_input_grad[1]:
            d_weight = weight_grad(d_y, x)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            d_bias = d_y.sum(0)
        return d_x, d_weight, d_bias
