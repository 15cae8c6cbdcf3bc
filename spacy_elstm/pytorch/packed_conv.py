"""1-D convolutions over packed sequences (``packing``), none of their work
spent on padding.

A convolution of kernel k at token t of a sequence reads the tokens t + o for
the k offsets o (e.g. -1, 0, 1 centred, or -2, -1, 0 causal), zeros where
t + o falls outside the sequence: what ``nn.Conv1d`` computes on the sequence
alone, zero-padded. On the packed layout the window of every row is gathered
(``window_rows``) and the convolution is one matrix product over all rows, so a
batch costs its tokens, not its number of sequences times the longest length
(about 2.8 times more for batches of 20 EWT sentences).
"""
from typing import Sequence

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from .packing import Packing


def window_rows(packing: Packing, offsets: Sequence[int]) -> Tensor:
    """(n_tokens, k) int64: for each packed row (step t of the r-th running
    sequence) the packed row of step t + o of the same sequence for each offset
    o, or n_tokens where the sequence has no such step. Row i of step t + o
    belongs to the same sequence as row i of step t (the r-th longest), and
    exists iff r < sizes[t + o]."""
    device = packing.steps.device
    n, steps = packing.n_tokens, packing.steps
    sizes = torch.tensor(packing.sizes + [0], device=device)
    starts = torch.tensor(packing.offsets, device=device)
    rank = torch.arange(n, device=device) - starts[steps]
    columns = []
    for offset in offsets:
        other = steps + offset
        inside = (other >= 0) & (other < packing.seq_len)
        other = other.clamp(0, max(packing.seq_len - 1, 0))
        inside &= rank < sizes[other]
        columns.append(torch.where(inside, starts[other] + rank, torch.full_like(rank, n)))
    return torch.stack(columns, dim=1) if columns else rank.new_zeros(n, 0)


def convolve(conv: nn.Conv1d, x: Tensor, rows: Tensor) -> Tensor:
    """``conv`` (no padding, dilation or groups of its own) applied to packed x
    (n_tokens, in_channels) over the windows ``rows`` (``window_rows``) ->
    (n_tokens, out_channels)."""
    padded = torch.cat([x, x.new_zeros(1, x.shape[1])])  # row n_tokens: outside
    windows = padded.index_select(0, rows.reshape(-1)).reshape(len(x), rows.shape[1], -1)
    return convolve_windows(conv, windows)


def convolve_windows(conv: nn.Conv1d, windows: Tensor) -> Tensor:
    """``conv`` at one position per window: windows (n, k, in_channels), the k
    tokens each output reads in order -> (n, out_channels). Weight column [j, c]
    multiplies channel c of the window's j-th token, as nn.Conv1d's weight
    [:, c, j] does."""
    weight = conv.weight.permute(0, 2, 1).reshape(conv.out_channels, -1)
    return F.linear(windows.reshape(len(windows), -1), weight, conv.bias)
