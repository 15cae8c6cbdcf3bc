"""thinc's PyTorch wrapper with parameter averages that take effect, and a
training mode that belongs to each call.

thinc's ``PyTorchShim`` hands each torch parameter to the optimiser under the
key ``(shim id, parameter name)``, so with ``use_averages = true`` the
optimiser keeps the parameter's running average there; but the shim's
``use_params`` looks averages up under string keys (``"pytorch_<id>_<name>"``)
and finds none. spaCy evaluates and saves a pipeline inside
``nlp.use_params(optimizer.averages)``, so the thinc layers around the encoder
were averaged and the torch parameters inside it were not. This shim looks them
up where the optimiser put them.

thinc's shim also switches the module to eval mode for a prediction and back
to train mode after it, and to train mode for an update: a flag shared by every
thread, so a prediction that overlaps another thread's ran with dropout on from
the moment the other one ended (web services call spaCy from thread pools).
This shim never touches the flag: each forward pass runs inside
``pytorch.mode.training_mode(is_train)``, which the package's modules read
(``is_training``) for the calling thread only. ``torch_layer`` refuses a
module holding a PyTorch layer that reads its own flag (``nn.Dropout``,
batch norm, ...), which that could not reach.
"""
import contextlib
from typing import Callable, Optional

import torch
from thinc.api import ArgsKwargs, Model, PyTorchShim, PyTorchWrapper_v2, xp2torch

from ..pytorch.mode import mode_dependent_modules, training_mode


class AveragedPyTorchShim(PyTorchShim):
    """thinc's shim, with ``use_params`` finding the averages and each forward
    pass in its own training mode, the module's flag untouched (see the module
    docstring). No mixed precision (``torch_layer`` never asks for it), so
    backprop needs no gradient scaling."""

    def predict(self, inputs: ArgsKwargs):
        with training_mode(False), torch.no_grad():
            return self._model(*inputs.args, **inputs.kwargs)

    def begin_update(self, inputs: ArgsKwargs):
        with training_mode(True):
            output = self._model(*inputs.args, **inputs.kwargs)

        def backprop(grads: ArgsKwargs) -> ArgsKwargs:
            torch.autograd.backward(*grads.args, **grads.kwargs)
            # the gradients of the inputs, in the inputs' structure (None where none)
            return ArgsKwargs(args=tuple(_grad(a) for a in inputs.args),
                              kwargs={k: _grad(v) for k, v in inputs.kwargs.items()})

        return output, backprop

    @contextlib.contextmanager
    def use_params(self, params):
        state = {name: xp2torch(params[(self.id, name)], device=self.device)
                 for name, _ in self._model.named_parameters() if (self.id, name) in params}
        if not state:
            yield
            return
        backup = {name: value.detach().clone() for name, value in self._model.state_dict().items()}
        self._model.load_state_dict(state, strict=False)
        try:
            yield
        finally:
            self._model.load_state_dict(backup)


def torch_layer(module: torch.nn.Module, *, convert_inputs: Optional[Callable],
                convert_outputs: Optional[Callable]) -> Model:
    """``PyTorchWrapper_v2(module, ...)`` whose shim honours ``use_params`` and
    runs each call in its own training mode (see the module docstring)."""
    found = mode_dependent_modules(module)
    if found:
        name, sub = found[0]
        raise ValueError(
            f"{type(module).__name__} holds {type(sub).__name__} at '{name or '(root)'}', "
            f"which reads the module-wide train/eval flag, shared by all threads: use "
            f"spacy_elstm.pytorch.mode.Dropout (or is_training) instead.")
    wrapped = PyTorchWrapper_v2(module, convert_inputs=convert_inputs,
                                convert_outputs=convert_outputs)
    wrapped.shims[0] = AveragedPyTorchShim(module)
    return wrapped


def _grad(value):
    if isinstance(value, torch.Tensor):
        return value.grad
    if isinstance(value, (list, tuple)):
        return type(value)(_grad(v) for v in value)
    return None
