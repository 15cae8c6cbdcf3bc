"""A thinc layer from docs to one vector per token, read from the token's UTF-8
bytes by a ``CharRecurrence`` (a bidirectional recurrent layer over bytes).

A word longer than ``max_bytes`` bytes is read as its first and last
``max_bytes // 2`` bytes (the first half one longer when ``max_bytes`` is odd):
prefixes and suffixes carry what a tagger needs from a long word, and the
cost of a batch stays bounded.
"""
import threading
from typing import Callable, Dict, List, Tuple

import numpy
import torch
from spacy.tokens import Doc
from thinc.api import ArgsKwargs, Model, torch2xp, xp2torch
from thinc.types import Floats2d

from ..pytorch.chars import CharRecurrence
from .torch_shim import torch_layer
from .word_cache import WordCache, register


def word_bytes(text: str, max_bytes: int) -> bytes:
    """The bytes a word is read as: its UTF-8 encoding, or the two ends of it."""
    data = text.encode("utf8") or b"\0"
    if len(data) <= max_bytes:
        return data
    tail = max_bytes // 2
    return data[:max_bytes - tail] + data[len(data) - tail:]


# words whose vectors a layer keeps between inference batches (word_cache.py):
# 20,000 rows of a 128-wide layer are 10 MB
CACHE_WORDS = 20_000


def with_char_recurrence(module: CharRecurrence, *, max_bytes: int,
                         name: str) -> Model[List[Doc], List[Floats2d]]:
    """Docs -> each token's vector from its bytes. A batch's distinct words are
    read once; at inference their vectors are kept in a ``WordCache`` of
    ``CACHE_WORDS`` words between batches (one per layer, behind a lock, so
    threads share it safely)."""
    wrapped = torch_layer(module, convert_inputs=_convert_inputs,
                          convert_outputs=_convert_outputs)
    cache, lock = WordCache(CACHE_WORDS), threading.Lock()

    def forward(model: Model, docs: List[Doc], is_train: bool):
        if is_train:
            return _forward(model, docs, is_train)
        with lock:
            return _predict_cached(model, docs, cache)

    model = Model(name, forward, layers=[wrapped], attrs={"max_bytes": max_bytes},
                  dims={"nO": module.width})
    register(model, cache)
    return model


def _distinct_words(model: Model, docs: List[Doc]) -> Tuple[List[bytes], List[int]]:
    """The distinct words of ``docs`` as the layer reads them, and each token's
    index among them."""
    max_bytes = model.attrs["max_bytes"]
    distinct: Dict[bytes, int] = {}
    occurrence = [distinct.setdefault(word_bytes(token.text, max_bytes), len(distinct))
                  for doc in docs for token in doc]
    return list(distinct), occurrence


def read_words(model: Model, words: List[bytes], is_train: bool):
    """The recurrence over ``words``: (n_words, nO) vectors and their backprop."""
    lengths = numpy.array([len(w) for w in words], dtype=numpy.int64)
    byte_ids = numpy.frombuffer(b"".join(words), dtype=numpy.uint8).astype(numpy.int64)
    return model.layers[0]((byte_ids, lengths), is_train)


def _forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], Callable]:
    words, occurrence = _distinct_words(model, docs)
    return _read_distinct(model, docs, words, occurrence, is_train)


def _read_distinct(model: Model, docs: List[Doc], words: List[bytes], occurrence: List[int],
                   is_train: bool) -> Tuple[List[Floats2d], Callable]:
    # a word's vector depends on its bytes only: each distinct word of the batch
    # is read once, and its gradient is the sum over its occurrences
    n_out = model.get_dim("nO")
    if not words:
        return [model.ops.alloc2f(0, n_out) for _ in docs], lambda dYs: []
    Y_distinct, backprop = read_words(model, words, is_train)
    which = model.ops.asarray1i(occurrence)
    Ys = model.ops.unflatten(Y_distinct[which], [len(doc) for doc in docs])

    def backprop_docs(dYs: List[Floats2d]) -> List:
        dY = model.ops.flatten(dYs)
        dY_distinct = model.ops.xp.zeros((len(words), n_out), dtype=dY.dtype)
        model.ops.scatter_add(dY_distinct, which, dY)
        backprop(dY_distinct)
        return []

    return Ys, backprop_docs


def _weights_fingerprint(model: Model) -> Tuple[float, ...]:
    """Per torch parameter of the layer, its sum and sum of squares: any update
    changes them."""
    module = model.layers[0].shims[0]._model
    with torch.no_grad():
        sums = [torch.stack([p.double().sum(), p.double().square().sum()])
                for p in module.parameters()]
    return tuple(torch.cat(sums).tolist())


def _predict_cached(model: Model, docs: List[Doc], cache: WordCache):
    words, occurrence = _distinct_words(model, docs)
    if not words or len(words) > cache.size:  # nothing, or more than the cache: read it all
        return _read_distinct(model, docs, words, occurrence, is_train=False)
    n_out = model.get_dim("nO")
    cache.check_weights(_weights_fingerprint(model))
    if cache.table is None:
        cache.table = model.ops.alloc2f(cache.size, n_out)
    rows, missing = cache.assign(words)
    if missing:
        Y_missing, _ = read_words(model, [words[i] for i in missing], False)
        cache.table[model.ops.asarray1i([rows[i] for i in missing])] = Y_missing
    which = model.ops.asarray1i(rows)[model.ops.asarray1i(occurrence)]
    Ys = model.ops.unflatten(cache.table[which], [len(doc) for doc in docs])
    return Ys, lambda dYs: []


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
