"""thinc's PyTorch wrapper with parameter averages that take effect.

thinc's ``PyTorchShim`` hands each torch parameter to the optimiser under the
key ``(shim id, parameter name)``, so with ``use_averages = true`` the
optimiser keeps the parameter's running average there; but the shim's
``use_params`` looks averages up under string keys (``"pytorch_<id>_<name>"``)
and finds none. spaCy evaluates and saves a pipeline inside
``nlp.use_params(optimizer.averages)``, so the thinc layers around the encoder
were averaged and the torch parameters inside it were not. This shim looks them
up where the optimiser put them.
"""
import contextlib
from typing import Callable, Optional

import torch
from thinc.api import Model, PyTorchShim, PyTorchWrapper_v2, xp2torch


class AveragedPyTorchShim(PyTorchShim):
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
    """``PyTorchWrapper_v2(module, ...)`` whose shim honours ``use_params``."""
    wrapped = PyTorchWrapper_v2(module, convert_inputs=convert_inputs,
                                convert_outputs=convert_outputs)
    wrapped.shims[0] = AveragedPyTorchShim(module)
    return wrapped
