"""A thinc layer running a pure-PyTorch sequence encoder over a list of docs.

With the environment variable SPACY_ELSTM_CHECK_FINITE=1 the layer checks every
batch's input, and in backprop the gradient it is given and the one it returns,
for NaN and inf (one ``isfinite().all()`` per array per batch), and raises a
ValueError naming the layer and the doc; torch itself would carry them silently
into every gradient. Off by default.
"""
import os
from typing import Callable, List, Tuple

import torch
from thinc.api import ArgsKwargs, Model, torch2xp, xp2torch
from thinc.types import Floats2d

from .torch_shim import torch_layer


def with_torch_sequences(
    module: torch.nn.Module, *, input_width: int, width: int, name: str
) -> Model[List[Floats2d], List[Floats2d]]:
    """Wrap a ``SequenceModule`` (``module(x, lengths, flat=True) -> y``, x:
    (n_tokens, input_width), the docs one after another; y: (n_tokens, width))
    as a layer from a list of (n_tokens, input_width) arrays to a list of
    (n_tokens, width) arrays. The lengths travel with the batch, so nothing is
    padded. Empty docs give (0, width) arrays.
    """
    wrapped = torch_layer(module, convert_inputs=_convert_inputs, convert_outputs=_convert_outputs)
    return Model(
        name,
        _forward,
        init=_init,
        layers=[wrapped],
        dims={"nI": input_width, "nO": width},
    )


def _init(model: Model, X=None, Y=None) -> None:
    if X is not None:
        _check_width(model, X)


def _check_width(model: Model, Xs: List[Floats2d]) -> None:
    n_in = model.get_dim("nI")
    for X in Xs:
        if X.ndim != 2 or X.shape[1] != n_in:
            raise ValueError(
                f"{model.name} expects arrays of shape (n_tokens, {n_in}), got {tuple(X.shape)}: "
                f"the embedding's width must equal the encoder's input width."
            )


def _forward(
    model: Model, Xs: List[Floats2d], is_train: bool
) -> Tuple[List[Floats2d], Callable]:
    _check_width(model, Xs)
    n_out = model.get_dim("nO")
    if sum(len(X) for X in Xs) == 0:
        # nothing to run: every doc is empty, and so is its gradient
        Ys = [model.ops.alloc2f(0, n_out) for _ in Xs]
        return Ys, lambda dYs: [model.ops.alloc2f(0, model.get_dim("nI")) for _ in Xs]
    if not _check_finite_enabled():
        return model.layers[0](Xs, is_train)
    _check_finite(model, Xs, "forward input")
    Ys, backprop = model.layers[0](Xs, is_train)

    def backprop_checked(dYs: List[Floats2d]) -> List[Floats2d]:
        _check_finite(model, dYs, "gradient it was given")
        dXs = backprop(dYs)
        _check_finite(model, dXs, "gradient it computed")
        return dXs

    return Ys, backprop_checked


def _check_finite_enabled() -> bool:
    return os.environ.get("SPACY_ELSTM_CHECK_FINITE", "") not in ("", "0")


def _check_finite(model: Model, arrays: List[Floats2d], what: str) -> None:
    """Raise a ValueError naming the first doc whose array holds a NaN or inf."""
    xp = model.ops.xp
    if bool(xp.isfinite(model.ops.flatten(arrays)).all()):
        return
    i = next(i for i, a in enumerate(arrays) if not bool(xp.isfinite(a).all()))
    raise ValueError(
        f"{model.name}: NaN or inf in the {what} of doc {i} of the batch "
        f"(of {len(arrays)} docs; checked because SPACY_ELSTM_CHECK_FINITE is set)."
    )


def _convert_inputs(model: Model, Xs: List[Floats2d], is_train: bool):
    lengths = [len(X) for X in Xs]
    flat = model.ops.flatten(Xs)
    args = ArgsKwargs(
        args=(xp2torch(flat, requires_grad=is_train), torch.tensor(lengths, dtype=torch.int64)),
        kwargs={"flat": True},
    )

    def backprop(d_args: ArgsKwargs) -> List[Floats2d]:
        return model.ops.unflatten(torch2xp(d_args.args[0]), lengths)

    return args, backprop


def _convert_outputs(model: Model, inputs_outputs, is_train: bool):
    (Xs, y) = inputs_outputs
    lengths = [len(X) for X in Xs]
    Ys = model.ops.unflatten(torch2xp(y), lengths)

    def backprop(dYs: List[Floats2d]) -> ArgsKwargs:
        dy = xp2torch(model.ops.flatten(dYs))
        return ArgsKwargs(args=(y,), kwargs={"grad_tensors": dy})

    return Ys, backprop


with_padded_torch = with_torch_sequences  # the name of releases up to 0.1
