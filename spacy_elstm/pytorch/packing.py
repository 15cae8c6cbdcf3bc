"""The packed layout the recurrences run on, and the way in and out of it.

A batch of sequences is packed time-major and by decreasing length, padding
left out (as in ``torch.nn.utils.rnn.PackedSequence``): step t owns the rows
``offsets[t] : offsets[t] + sizes[t]``, one per sequence still running, longest
sequence first. A step never sees a padded position, and no product or buffer
is spent on one. Callers hand over either a zero-padded batch, (batch, seq_len,
width), or the sequences one after another, (n_tokens, width).
"""
from typing import Callable, List, Tuple

import torch
from torch import Tensor


class Packing:
    """Where each token of a batch of sequences with these ``lengths`` (batch,),
    in any order, lives in the packed layout."""

    def __init__(self, lengths: Tensor, device: torch.device):
        lengths = lengths.to(torch.int64).cpu()
        if lengths.numel() and int(lengths.min()) < 0:
            raise ValueError(f"Sequence lengths must be >= 0, got {lengths.tolist()}.")
        self.lengths = lengths
        self.order = torch.argsort(lengths, descending=True, stable=True)
        sorted_lengths = lengths[self.order]
        max_length = int(sorted_lengths[0]) if lengths.numel() else 0
        counts = torch.bincount(sorted_lengths, minlength=max_length + 1)
        sizes = counts.flip(0).cumsum(0).flip(0)[1:]
        self.sizes: List[int] = sizes.tolist()
        offsets = torch.zeros(max_length + 1, dtype=torch.int64)
        offsets[1:] = sizes.cumsum(0)
        self.offsets: List[int] = offsets.tolist()
        self.n_tokens = self.offsets[-1]
        # for every packed row: its step t, its rank r among the running sequences
        steps = torch.repeat_interleave(torch.arange(max_length), sizes)
        rank = torch.arange(self.n_tokens) - offsets[steps]
        seq = self.order[rank]
        starts = torch.zeros_like(lengths)
        starts[1:] = lengths.cumsum(0)[:-1]
        mirror = sorted_lengths[rank] - 1 - steps
        self.steps = steps.to(device)
        self.seq_len = max_length
        # the batch index of each sequence of length >= 1, in packed order (row r of
        # step 0, and of every step it reaches, belongs to sequence running[r]), and
        # the packed row of each one's last step
        n_running = self.sizes[0] if self.sizes else 0
        self.running = self.order[:n_running].to(device)
        self.last_rows = (offsets[sorted_lengths[:n_running] - 1]
                          + torch.arange(n_running)).to(device)
        self._seq = seq
        self._flat_index = (starts[seq] + steps).to(device)
        self._reverse_index = (offsets[mirror] + rank).to(device)
        self._rank = rank
        self._flat_inverse = torch.empty_like(self._flat_index)
        self._flat_inverse[self._flat_index] = torch.arange(self.n_tokens, device=device)
        self._device = device

    @property
    def previous(self) -> Tensor:
        """For every packed row of the steps t >= 1, the row of the same sequence
        at t - 1: row i of step t follows row i - sizes[t - 1]."""
        if not hasattr(self, "_previous"):
            sizes = torch.tensor(self.sizes)
            back = torch.repeat_interleave(sizes[:-1], sizes[1:])
            self._previous = (torch.arange(self.sizes[0] if self.sizes else 0, self.n_tokens)
                              - back).to(self._device)
        return self._previous

    def step_table(self, device: torch.device) -> Tuple[Tensor, Tensor]:
        """sizes followed by a 0, and offsets (T + 1 of each), int32 on ``device``:
        for kernels that walk the steps themselves. Made once per device."""
        if getattr(self, "_step_table", None) is None or self._step_table[0].device != device:
            sizes = torch.tensor(self.sizes + [0], dtype=torch.int32, device=device)
            offsets = torch.tensor(self.offsets, dtype=torch.int32, device=device)
            self._step_table = (sizes, offsets)
        return self._step_table

    @property
    def _time_major_index(self) -> Tensor:
        """The row of each packed row in (seq_len, sizes[0], .) viewed as 2-d;
        only the scan on the PyTorch path needs it, so it is made on demand."""
        if not hasattr(self, "_time_major"):
            batch = self.sizes[0] if self.sizes else 0
            self._time_major = (self.steps.cpu() * batch + self._rank).to(self._device)
        return self._time_major

    def padded_index(self, seq_len: int) -> Tensor:
        """The row of each packed row in a padded batch viewed as (batch * seq_len, .).
        Made once per padded length (in and out of a batch use the same)."""
        if getattr(self, "_padded_len", None) != seq_len:
            self._padded_len = seq_len
            self._padded = (self._seq * seq_len + self.steps.cpu()).to(self._device)
        return self._padded

    def from_padded(self, x: Tensor) -> Tensor:
        """(batch, seq_len, width) -> (n_tokens, width)."""
        flat = x.reshape(-1, x.shape[-1])
        return flat.index_select(0, self.padded_index(x.shape[1]))

    def to_padded(self, y: Tensor, seq_len: int) -> Tensor:
        """(n_tokens, width) -> (batch, seq_len, width), zero at padding."""
        out = y.new_zeros(len(self.lengths) * seq_len, y.shape[-1])
        out = out.index_copy(0, self.padded_index(seq_len), y)
        return out.view(len(self.lengths), seq_len, y.shape[-1])

    def from_flat(self, x: Tensor) -> Tensor:
        """The sequences one after another, (n_tokens, width) -> packed."""
        return x.index_select(0, self._flat_index)

    def to_flat(self, y: Tensor) -> Tensor:
        """Packed -> the sequences one after another."""
        return y.index_select(0, self._flat_inverse)

    def to_time_major(self, y: Tensor) -> Tensor:
        """Packed (n_tokens, width) -> (seq_len, sizes[0], width), longest first,
        zero at padding: the layout of a scan over time."""
        out = y.new_zeros(self.seq_len * (self.sizes[0] if self.sizes else 0), y.shape[-1])
        out = out.index_copy(0, self._time_major_index, y)
        return out.view(self.seq_len, -1, y.shape[-1])

    def from_time_major(self, y: Tensor) -> Tensor:
        """The inverse of ``to_time_major``."""
        return y.reshape(-1, y.shape[-1]).index_select(0, self._time_major_index)

    def reverse(self, y: Tensor) -> Tensor:
        """Every sequence reversed within its own length, still packed. An involution."""
        return y.index_select(0, self._reverse_index)


def run_packed(run: Callable[[Tensor, Packing], Tensor], x: Tensor, lengths: Tensor,
               width: int, flat: bool = False) -> Tensor:
    """``run`` on the packed layout, for x zero-padded, (batch, seq_len, .), or
    with ``flat``, the sequences one after another, (n_tokens, .). The result
    comes back in the layout x came in, ``width`` features wide."""
    if flat:
        if x.shape[0] != int(lengths.sum()):
            raise ValueError(f"Expected {int(lengths.sum())} rows for lengths "
                             f"{lengths.tolist()}, got {x.shape[0]}.")
        if x.shape[0] == 0:
            return x.new_zeros(0, width)
        packing = Packing(lengths, x.device)
        return packing.to_flat(run(packing.from_flat(x), packing))
    if x.shape[0] != len(lengths) or (len(lengths) and int(lengths.max()) > x.shape[1]):
        raise ValueError(f"Lengths {lengths.tolist()} do not fit a padded batch of shape "
                         f"{tuple(x.shape)}.")
    if x.shape[0] == 0 or x.shape[1] == 0 or int(lengths.max()) == 0:
        return x.new_zeros(x.shape[0], x.shape[1], width)
    packing = Packing(lengths, x.device)
    return packing.to_padded(run(packing.from_padded(x), packing), x.shape[1])
