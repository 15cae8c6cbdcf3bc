"""The contract every sequence module keeps: packed in, packed out.

A module implements ``run(x, packing)`` on the packed layout (see
``packing``): x is (n_tokens, input_width), the rows where ``packing`` puts
them, and the result is (n_tokens, output_width) in the same places. The
lengths travel in ``packing``, so no module ever sees padding. ``forward``
is the way in from outside, for a zero-padded batch or for the sequences one
after another (``flat``), and is the same for every module. Recurrent layers,
the stacked encoders and the DBRNN implement it; a module that stacks others
calls their ``run``, never their ``forward``, so a batch is packed once.
"""
from torch import Tensor, nn

from .packing import Packing, run_packed


class SequenceModule(nn.Module):
    """Base class of the modules that map packed sequences to packed sequences."""

    @property
    def output_width(self) -> int:
        raise NotImplementedError

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        """x: (n_tokens, input_width), packed -> (n_tokens, output_width), packed."""
        raise NotImplementedError

    def forward(self, x: Tensor, lengths: Tensor, flat: bool = False) -> Tensor:
        """x: (batch, seq_len, input_width), zero-padded, and lengths: (batch,)
        int64, any order; returns (batch, seq_len, output_width), zero at padded
        positions. With ``flat``, x is (n_tokens, input_width), the sequences
        one after another, and so is the result."""
        return run_packed(self.run, x, lengths, self.output_width, flat)
