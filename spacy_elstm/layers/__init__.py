"""thinc layers wrapping the pure-PyTorch modules."""
from .recurrent import with_padded_torch, with_torch_sequences

__all__ = ["with_torch_sequences", "with_padded_torch"]
