"""thinc layers wrapping the pure-PyTorch modules."""
from .recurrent import with_padded_torch

__all__ = ["with_padded_torch"]
