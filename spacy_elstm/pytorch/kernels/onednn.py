"""Dense matrix products through oneDNN, the library torch.nn.LSTM runs on.

PyTorch sends ``torch.mm`` on the CPU to its BLAS (MKL in the official wheels);
its recurrent layers use oneDNN instead, which on some CPUs (AMD with AVX-512,
for one) is about twice as fast for the products a recurrent layer makes. The
products here run on oneDNN for float32 CPU tensors where ``unavailable()``
finds nothing against it, and on the plain PyTorch ops everywhere else
(float64 in the gradient checks, CUDA, builds without oneDNN, or
SPACY_ELSTM_NO_ONEDNN=1). Both compute the same product; the tests check one
against the other.

The oneDNN entry points are private PyTorch operators
(``mkldnn::_linear_pointwise`` and ``_reorder_linear_weight``) whose schemas
may change between releases. They are probed once, with tiny calls of every
form this package makes (the C++ kernels' included); on any failure the
products fall back to public ops with one warning, never an error inside a
forward pass.
"""
import os
import warnings
from typing import Optional

import torch
from torch import Tensor

_probe: Optional[str] = None
_probed = False


def _ops():
    ops = torch.ops.mkldnn
    return ops._linear_pointwise, ops._linear_pointwise.binary, ops._reorder_linear_weight


def _run_probe() -> Optional[str]:
    """None where every form of call answers correctly on a tiny problem, else why not."""
    try:
        linear, binary, reorder = _ops()
        gen = torch.Generator().manual_seed(0)
        x, w, b = (torch.randn(*s, generator=gen) for s in ((3, 4), (5, 4), (5,)))
        other = torch.randn(3, 5, generator=gen)
        want = x @ w.t()
        packed = reorder(w, 3)
        got = {
            "_linear_pointwise": linear(x, w, b, "none", [], "") - b,
            "_linear_pointwise with a reordered weight": linear(x, packed, None, "none", [], ""),
            "_linear_pointwise.binary": binary(x, other, packed, None, "add") - other,
        }
        for form, value in got.items():
            if not torch.allclose(value, want, rtol=1e-4, atol=1e-4):
                return f"mkldnn::{form} gave a wrong answer on a probe"
    except Exception as err:  # a missing operator, a changed schema: all fall back
        return f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    return None


def unavailable() -> Optional[str]:
    """None where the products may run on oneDNN, else the reason they do not."""
    global _probe, _probed
    if os.environ.get("SPACY_ELSTM_NO_ONEDNN", "") not in ("", "0"):
        return "SPACY_ELSTM_NO_ONEDNN is set"
    if not torch.backends.mkldnn.is_available():
        return "this PyTorch build has no oneDNN"
    if not torch.backends.mkldnn.enabled:
        return "torch.backends.mkldnn.enabled is False"
    if not _probed:
        _probed = True
        _probe = _run_probe()
        if _probe is not None:
            warnings.warn(f"spacy-elstm: oneDNN products unavailable in torch "
                          f"{torch.__version__} ({_probe}); using PyTorch's own products.")
    return _probe


def runs_on(device: torch.device, dtype: torch.dtype) -> bool:
    """Whether products of tensors on ``device`` of ``dtype`` run on oneDNN."""
    return dtype == torch.float32 and device.type == "cpu" and unavailable() is None


def usable(t: Tensor) -> bool:
    """Whether products with ``t`` run on oneDNN (never for an empty ``t``:
    oneDNN refuses a product with no rows, which a batch of one-token
    sequences asks of the recurrent weight's gradient)."""
    return t.numel() > 0 and runs_on(t.device, t.dtype)


def linear(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
           onednn: Optional[bool] = None) -> Tensor:
    """x @ weight.T + bias, for x: (M, K), weight: (N, K), bias: (N,); on oneDNN
    where ``onednn`` (default: ``usable(x)``)."""
    if usable(x) if onednn is None else onednn:
        return _ops()[0](x, weight, bias, "none", [], "")
    return torch.addmm(bias, x, weight.t()) if bias is not None else x @ weight.t()


def reorder_weight(weight: Tensor, rows: int) -> Tensor:
    """``weight`` (N, K) reordered into oneDNN's own blocked layout, for the C++
    kernels that multiply up to ``rows`` rows by it at every step."""
    return _ops()[2](weight.detach().contiguous(), rows)


def weight_grad(d_y: Tensor, x: Tensor) -> Tensor:
    """d_y.T @ x, for d_y: (M, N), x: (M, K): the gradient of a linear layer's
    weight. oneDNN is fastest at it as (x.T @ d_y).T, on contiguous rows (a
    column slice takes it some 50 times longer)."""
    if usable(x):
        return _ops()[0](x.contiguous().t(), d_y.contiguous().t(), None, "none", [], "").t()
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
