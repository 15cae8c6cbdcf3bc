"""Moving padded batches between the public layout (batch, seq_len, width), in
any order, and the internal one: time-major and sorted by decreasing length, so
that step t runs the first ``batch_sizes(lengths)[t]`` rows and no step reads
padding."""
from typing import Callable, List, Optional, Tuple

import torch
from torch import Tensor


def sort_time_major(x: Tensor, lengths: Tensor) -> Tuple[Tensor, Tensor, Optional[Tensor]]:
    """x: (batch, seq_len, width), lengths: (batch,). Returns x as
    (max_length, batch, width) sorted by decreasing length, the sorted lengths
    (int64, on the CPU) and the order used (None where x was already sorted)."""
    lengths = lengths.to(torch.int64).cpu()
    max_length = int(lengths.max()) if lengths.numel() else 0
    x = x[:, :max_length]
    order = None
    if bool((lengths[:-1] < lengths[1:]).any()):
        order = torch.argsort(lengths, descending=True, stable=True)
        lengths = lengths[order]
        x = x[order.to(x.device)]
    return x.transpose(0, 1), lengths, order


def restore_batch_first(y: Tensor, order: Optional[Tensor], seq_len: int) -> Tensor:
    """The inverse of ``sort_time_major`` for an output y: (max_length, batch, width);
    returns (batch, seq_len, width), zero-padded."""
    y = y.transpose(0, 1)
    if order is not None:
        y = y[torch.argsort(order).to(y.device)]
    if y.shape[1] < seq_len:
        y = torch.nn.functional.pad(y, (0, 0, 0, seq_len - y.shape[1]))
    return y


def reverse_padded(x: Tensor, lengths: Tensor) -> Tensor:
    """Reverse each sequence within its own length; padding stays where it is.
    x: time-major, (seq_len, batch, width); lengths: (batch,). An involution."""
    seq_len, batch = x.shape[:2]
    t = torch.arange(seq_len, device=x.device).unsqueeze(1)
    lens = lengths.to(x.device).unsqueeze(0)
    index = torch.where(t < lens, lens - 1 - t, t)
    return x.gather(0, index.unsqueeze(2).expand(seq_len, batch, x.shape[2]))


def batch_sizes(lengths: Tensor) -> List[int]:
    """How many sequences are still running at each step, for lengths sorted
    in decreasing order; one entry per step up to the longest length."""
    lengths = lengths.cpu()
    seq_len = int(lengths.max()) if lengths.numel() else 0
    counts = torch.bincount(lengths, minlength=seq_len + 1)
    return counts.flip(0).cumsum(0).flip(0)[1:].tolist()


def run_batch_first(run: Callable[[Tensor, Tensor], Tensor], x: Tensor, lengths: Tensor, width: int) -> Tensor:
    """Sort and transpose once, ``run`` on the internal layout, and undo it."""
    if x.shape[0] == 0 or x.shape[1] == 0 or int(lengths.max()) == 0:
        return x.new_zeros(x.shape[0], x.shape[1], width)
    xt, sorted_lengths, order = sort_time_major(x, lengths)
    return restore_batch_first(run(xt, sorted_lengths), order, x.shape[1])
