"""Whether a forward pass trains, decided per call rather than per module.

``nn.Module.training`` is one flag per module, shared by every thread that
runs it: a thread that switches it to predict (or to train) switches it for
every other thread's forward pass under way, and dropout or teacher forcing
then turns on or off halfway through someone else's prediction. Every place
in this package that behaves differently while training (dropout, word
dropout, scheduled sampling, teacher forcing, beam search) asks
``is_training(module)`` instead of reading the flag. Inside
``training_mode(flag)`` the answer is ``flag`` for the calling thread (and
asyncio task) only, whatever the modules' flags say; outside it, the module's
own flag, so plain PyTorch use (``module.train()``, ``module.eval()``) works
as it always has. The thinc layers run every forward pass inside it.

A module holds no state for this, so saved weights are unchanged.
"""
import contextlib
from contextvars import ContextVar
from typing import Iterator, Optional

from torch import Tensor, nn
from torch.nn import functional as F

_TRAINING: ContextVar[Optional[bool]] = ContextVar("spacy_elstm_training", default=None)


def is_training(module: nn.Module) -> bool:
    """True if ``module`` runs in training mode in this call: the mode of the
    innermost ``training_mode`` of this thread, else ``module.training``."""
    mode = _TRAINING.get()
    return module.training if mode is None else mode


@contextlib.contextmanager
def training_mode(training: bool) -> Iterator[None]:
    """Run every module of this package in training mode (``training`` true)
    or prediction mode in this thread until the block ends."""
    token = _TRAINING.set(bool(training))
    try:
        yield
    finally:
        _TRAINING.reset(token)


class Dropout(nn.Dropout):
    """``nn.Dropout`` whose mode is ``is_training(self)``."""

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout(x, self.p, is_training(self), self.inplace)


def mode_dependent_modules(module: nn.Module):
    """(name, module) of every submodule of ``module`` that reads its own
    ``training`` flag in forward, which ``training_mode`` cannot reach:
    PyTorch's dropout, batch and instance norms, and recurrent layers and
    attention with dropout. The package's own modules are built without them."""
    found = []
    for name, sub in module.named_modules():
        if isinstance(sub, Dropout):
            continue
        if isinstance(sub, (nn.modules.dropout._DropoutNd, nn.modules.batchnorm._NormBase)):
            found.append((name, sub))
        elif isinstance(sub, (nn.RNNBase, nn.MultiheadAttention)) and getattr(sub, "dropout", 0):
            found.append((name, sub))
        elif isinstance(sub, (nn.TransformerEncoderLayer, nn.TransformerDecoderLayer)):
            found.append((name, sub))
    return found
