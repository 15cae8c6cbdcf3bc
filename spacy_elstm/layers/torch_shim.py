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

thinc's ``finish_update`` hands the optimiser a numpy (or cupy) view of each
parameter and then sets the parameter's ``.data`` to a tensor made from the
array it got back: on the CPU the same memory, but each update wraps the
previous wrapper, so every parameter grows a chain of Python objects by one
link per step. They hold no tensor memory of their own, yet these small objects
live forever among the allocations of each step's activations, and the heap
cannot give that memory back: Table 8's convolutional seq2seq (some sixty torch
parameters, wide activations) grew to 20 GB in 2,800 steps and was killed. This
shim lets the optimiser update each parameter where it lies and keeps the
parameter's tensor, copying only where an optimiser returns other memory.
"""
import contextlib
from typing import Callable, Optional

import torch
from thinc.api import (ArgsKwargs, Model, Optimizer, PyTorchShim, PyTorchWrapper_v2, torch2xp,
                       xp2torch)

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

    def finish_update(self, optimizer: Optimizer) -> None:
        """thinc's update, each parameter updated in place (see the module docstring)."""
        for name, param in self._model.named_parameters():
            if param.grad is None:
                continue
            if not self._grad_scaler.found_inf:  # as thinc's: no step where a gradient overflowed
                weights, _ = optimizer((self.id, name), torch2xp(param.data), torch2xp(param.grad))
                updated = xp2torch(weights, device=param.device)
                if updated.data_ptr() != param.data.data_ptr():
                    param.data.copy_(updated)
            param.grad.zero_()
        self._grad_scaler.update()

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
