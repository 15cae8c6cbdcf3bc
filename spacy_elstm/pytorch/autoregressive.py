"""What the labellers fed their own previous labels share: the recurrent
seq2seq (``seq2seq.Seq2SeqLabeller``) and the convolutional one
(``conv_seq2seq.ConvSeq2SeqLabeller``).

Gold labels beside the input. ``forward(x, lengths, flat, gold)`` takes the
gold label ids in the layout of x without its last dimension, -1 where a label
is missing; ``run(x, packing, gold)`` reads them packed, checked by
``checked_gold``. A subclass feeds step t the gold label of step t-1 where it
is known (teacher forcing) and its own most probable label there otherwise.
Each subclass embeds the previous label in ``self.label_embed``, row 0 the
start symbol fed at the first step and row l + 1 label l, so that resizing the
labels resizes that table too.

Interleaved output (``interleaved=True``; the paper's dependency-parsing target,
Sec. 5): the decoder runs 2T steps over one label vocabulary, emitting for
each token t two labels in turn, y_(2t-1) then y_(2t) (for the parser: the
relation of word t, then the position of its head), each step fed the label
before it and reading the same T encoded tokens. The output keeps one row per
token: (n_tokens, 2 * n_labels), step 2t-1's log-probabilities followed by
step 2t's, as two heads sharing one softmax layer. A token's gold pair (a, b)
is handed over as the one id a * n_labels + b (-1 where either is missing, and
then both steps feed back the model's own prediction). ``interleave`` makes
the decoder's steps and their gold labels, ``fold`` puts the steps' outputs
back in one row per token.
"""
from typing import Optional, Tuple

import torch
from torch import Tensor, nn

from .labeller import _Labeller
from .packing import Packing, run_packed


class AutoregressiveLabeller(_Labeller):
    """Base class of the labellers fed their previous labels (see the module
    docstring); one softmax layer, read once per step."""

    needs_gold = True  # the thinc layer hands it the gold labels while training
    label_embed: nn.Embedding  # set by the subclass: (n_labels + 1, label_width)

    def __init__(self, *, head_width: int, n_labels: int, interleaved: bool = False):
        # interleaved: two output blocks per token from one softmax layer
        self.steps_per_token = 2 if interleaved else 1
        self.n_heads = self.steps_per_token
        super().__init__(head_width=head_width, n_labels=n_labels)

    def _n_linear_heads(self) -> int:
        return 1

    @property
    def interleaved(self) -> bool:
        return self.steps_per_token == 2

    def resize_labels(self, n_labels: int) -> None:
        if n_labels == self.n_labels:
            return
        super().resize_labels(n_labels)
        like = self.label_embed.weight
        self.label_embed = nn.Embedding(n_labels + 1, like.shape[1], device=like.device,
                                        dtype=like.dtype)

    def forward(self, x: Tensor, lengths: Tensor, flat: bool = False,
                gold: Optional[Tensor] = None) -> Tensor:
        """As ``SequenceModule.forward``, with ``gold`` in the layout of x
        without its last dimension: (n_tokens,) or (batch, seq_len)."""
        if gold is not None and gold.shape != x.shape[:-1]:
            raise ValueError(f"Expected gold labels of shape {tuple(x.shape[:-1])}, got "
                             f"{tuple(gold.shape)}.")

        def run(x: Tensor, packing: Packing) -> Tensor:
            if gold is None:
                return self.run(x, packing)
            pack = packing.from_flat if flat else packing.from_padded
            return self.run(x, packing, pack(gold.to(x.device).unsqueeze(-1)).squeeze(-1))

        return run_packed(run, x, lengths, self.output_width, flat)

    def run(self, x: Tensor, packing: Packing, gold: Optional[Tensor] = None) -> Tensor:
        """x: (n_tokens, input_width), packed, and gold: (n_tokens,), packed, or
        None -> log p (n_tokens, output_width), packed."""
        raise NotImplementedError

    def checked_gold(self, gold: Optional[Tensor], packing: Packing,
                     device: torch.device) -> Optional[Tensor]:
        """``gold`` as int64 on ``device``, after checking that it has one id per
        token, each in [-1, n_labels ** steps_per_token)."""
        if gold is None:
            return None
        gold = gold.to(device=device, dtype=torch.int64)
        if gold.shape != (packing.n_tokens,):
            raise ValueError(f"Expected {packing.n_tokens} gold labels, got shape "
                             f"{tuple(gold.shape)}.")
        top = self.n_labels ** self.steps_per_token
        if gold.numel() and (int(gold.min()) < -1 or int(gold.max()) >= top):
            raise ValueError(f"Gold label ids must be in [-1, {top}), got "
                             f"{int(gold.min())}..{int(gold.max())}.")
        return gold

    def interleave(self, packing: Packing,
                   gold: Optional[Tensor]) -> Tuple[Packing, Optional[Tensor]]:
        """The decoder's steps for the interleaved output: each sequence twice as
        long, and the gold pairs a * n_labels + b as a, b at steps 2t-1, 2t.
        Doubling every length keeps the sequences' order (the sort is stable),
        so the running sequences of a step are the encoder's."""
        steps = Packing(packing.lengths * 2, packing.steps.device)
        if gold is None:
            return steps, None
        pairs = torch.stack([gold // self.n_labels, gold % self.n_labels], dim=-1)
        pairs[gold < 0] = -1
        padded = packing.to_padded(pairs + 1, packing.seq_len)  # 0 at padding
        doubled = padded.reshape(padded.shape[0], 2 * packing.seq_len, 1)
        return steps, steps.from_padded(doubled).squeeze(-1) - 1

    @staticmethod
    def fold(packing: Packing, steps: Packing, log_p: Tensor) -> Tensor:
        """The interleaved output, (2 n_tokens, n_labels) packed on the doubled
        ``steps`` -> (n_tokens, 2 n_labels) packed on ``packing``."""
        padded = steps.to_padded(log_p, 2 * packing.seq_len)
        return packing.from_padded(padded.reshape(padded.shape[0], packing.seq_len, -1))
