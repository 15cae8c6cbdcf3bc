"""A thinc layer from docs to one vector per token, read from the token's UTF-8
bytes by a ``CharRecurrence`` (a bidirectional recurrent layer over bytes).

A word longer than ``max_bytes`` bytes is read as its first and last
``max_bytes // 2`` bytes (the first half one longer when ``max_bytes`` is odd):
prefixes and suffixes carry what a tagger needs from a long word, and the
cost of a batch stays bounded.
"""
from typing import Callable, List, Tuple

import numpy
import torch
from spacy.tokens import Doc
from thinc.api import ArgsKwargs, Model, torch2xp, xp2torch
from thinc.types import Floats2d

from ..pytorch.chars import CharRecurrence
from .torch_shim import torch_layer


def word_bytes(text: str, max_bytes: int) -> bytes:
    """The bytes a word is read as: its UTF-8 encoding, or the two ends of it."""
    data = text.encode("utf8") or b"\0"
    if len(data) <= max_bytes:
        return data
    tail = max_bytes // 2
    return data[:max_bytes - tail] + data[len(data) - tail:]


def with_char_recurrence(module: CharRecurrence, *, max_bytes: int,
                         name: str) -> Model[List[Doc], List[Floats2d]]:
    wrapped = torch_layer(module, convert_inputs=_convert_inputs,
                          convert_outputs=_convert_outputs)
    return Model(name, _forward, layers=[wrapped], attrs={"max_bytes": max_bytes},
                 dims={"nO": module.width})


def _forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], Callable]:
    max_bytes = model.attrs["max_bytes"]
    n_out = model.get_dim("nO")
    words = [word_bytes(token.text, max_bytes) for doc in docs for token in doc]
    if not words:
        return [model.ops.alloc2f(0, n_out) for _ in docs], lambda dYs: []
    lengths = numpy.array([len(w) for w in words], dtype=numpy.int64)
    byte_ids = numpy.frombuffer(b"".join(words), dtype=numpy.uint8).astype(numpy.int64)
    Y, backprop = model.layers[0]((byte_ids, lengths), is_train)
    Ys = model.ops.unflatten(Y, [len(doc) for doc in docs])

    def backprop_docs(dYs: List[Floats2d]) -> List:
        backprop(model.ops.flatten(dYs))
        return []

    return Ys, backprop_docs


def _convert_inputs(model: Model, X, is_train: bool):
    byte_ids, lengths = X
    args = ArgsKwargs(args=(torch.from_numpy(byte_ids), torch.from_numpy(lengths)), kwargs={})
    return args, lambda d_args: None


def _convert_outputs(model: Model, inputs_outputs, is_train: bool):
    _, y = inputs_outputs

    def backprop(dY: Floats2d) -> ArgsKwargs:
        return ArgsKwargs(args=(y,), kwargs={"grad_tensors": xp2torch(dY)})

    return torch2xp(y), backprop


def token_dropout(rate: float) -> Model[Floats2d, Floats2d]:
    """Drop whole rows (tokens) of a batch in training, each with probability
    ``rate``, scaling the kept rows by 1 / (1 - rate); the identity otherwise."""
    return Model("token_dropout", _token_dropout_forward, attrs={"rate": rate})


def _token_dropout_forward(model: Model, X: Floats2d, is_train: bool):
    rate = model.attrs["rate"]
    if not is_train or rate == 0.0:
        return X, lambda dY: dY
    keep = model.ops.xp.random.uniform(0.0, 1.0, (X.shape[0], 1)) >= rate
    mask = model.ops.asarray2f(keep * (1.0 / (1.0 - rate)))
    return X * mask, lambda dY: dY * mask
