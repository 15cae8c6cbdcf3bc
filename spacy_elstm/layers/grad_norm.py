"""Clipping all of a model's gradients together, by their global L2 norm.

thinc's optimisers clip each parameter's gradient on its own (``grad_clip``):
they are handed one parameter at a time. Gehring et al.'s convolutional
seq2seq model (and fairseq, torch.nn.utils.clip_grad_norm_) clip them
together: every gradient is scaled by max_norm / ||g||, ||g|| the L2 norm of
all of them as one vector, where that norm is larger than max_norm. Clipped
one at a time to the same bound, k parameters may move up to sqrt(k) times as
far in a step, and a small one (a weight norm's gain) as far as a large one.

The gradients are those of the thinc layers of the model and of the torch
modules inside its PyTorch shims, each counted once.
"""
import math
from typing import List, Tuple

import torch
from thinc.api import Model


def _thinc_gradients(model: Model) -> List[Tuple[Model, str]]:
    """(layer, parameter name) of each thinc parameter of ``model`` with a gradient."""
    return [(node, name) for node in model.walk() for name in node.param_names
            if node.has_grad(name)]


def _torch_gradients(model: Model) -> List[torch.Tensor]:
    """The gradient of each torch parameter inside ``model``'s shims, once each."""
    grads, seen = [], set()
    for node in model.walk():
        for shim in node.shims:
            module = getattr(shim, "_model", None)
            if isinstance(module, torch.nn.Module):
                for param in module.parameters():
                    if param.grad is not None and id(param) not in seen:
                        seen.add(id(param))
                        grads.append(param.grad)
    return grads


def clip_grad_norm(model: Model, max_norm: float) -> float:
    """Scale every gradient of ``model`` in place by min(1, max_norm / norm),
    norm being the L2 norm of all of them together; returns that norm (before
    clipping)."""
    thinc_grads, torch_grads = _thinc_gradients(model), _torch_gradients(model)
    total = sum(float((node.get_grad(name) ** 2).sum()) for node, name in thinc_grads)
    total += sum(float(grad.pow(2).sum()) for grad in torch_grads)
    norm = math.sqrt(total)
    if norm > max_norm:
        scale = max_norm / (norm + 1e-6)
        for node, name in thinc_grads:
            node.set_grad(name, node.get_grad(name) * scale)
        for grad in torch_grads:
            grad.mul_(scale)
    return norm
