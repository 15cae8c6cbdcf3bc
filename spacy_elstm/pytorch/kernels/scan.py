"""A parallel scan for the linear recurrence x_t = a_t * x_(t-1) + b_t.

With ``gates="input"`` every gate is known before the recurrence starts, and
the cell state is exactly this recurrence (a = f, b = s * i * g; and back
through time, dc). Composing two steps gives another step of the same form,
(a2, b2) after (a1, b1) = (a2 * a1, a2 * b1 + b2), so all steps can be combined
in ceil(log2 T) rounds of elementwise products over the whole sequence
(Hillis and Steele) instead of T dependent steps: a few large kernels instead
of T small ones, which is what a GPU wants. The work grows by a factor of
log2 T, so on the CPU the C++ kernels' sequential loop stays faster.
"""
import torch
from torch import Tensor


def linear_scan(a: Tensor, b: Tensor) -> Tensor:
    """x_t = a_t * x_(t-1) + b_t along dim 0, with x_(-1) = 0; a and b have one
    shape, (T, ...). Differentiable (it is made of PyTorch ops)."""
    step = 1
    while step < a.shape[0]:
        b = torch.cat([b[:step], torch.addcmul(b[step:], a[step:], b[:-step])])
        a = torch.cat([a[:step], a[step:] * a[:-step]])
        step *= 2
    return b
