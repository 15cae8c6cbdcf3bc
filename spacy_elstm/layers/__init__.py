"""thinc layers wrapping the pure-PyTorch modules."""
from .labeller import (sentence_lengths, set_n_labels, set_teacher, torch_module, weighted_nll,
                       with_torch_labeller)
from .recurrent import with_padded_torch, with_torch_sequences
from .teacher import with_torch_teacher

__all__ = ["with_torch_sequences", "with_padded_torch", "with_torch_labeller", "set_n_labels",
           "torch_module", "weighted_nll", "set_teacher", "with_torch_teacher",
           "sentence_lengths"]
