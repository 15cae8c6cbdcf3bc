"""A thinc layer from docs to biaffine arc and label scores per sentence: a
tok2vec, then ``pytorch.biaffine.BiaffineParserScorer`` on its vectors.

The sentences are those the docs have (``sentence_lengths``): the doc's
sentence boundaries, or the whole doc where it has none. The output is one
``(arcs, labels, lengths)`` triple for the batch, the sentences of all docs in
order: arcs (n_sents, T, T + 1), labels (n_sents, T, T + 1, n_labels), lengths
the sentences' word counts (see the torch module for the layout); backprop
takes ``(d_arcs, d_labels)`` of the same shapes.

The label weights are sized by the number of labels, which a component knows
only in ``initialize`` or from its saved cfg: ``set_n_labels`` sizes them then,
before weights are trained or loaded.
"""
from typing import Callable, List, Sequence, Tuple

import torch
from spacy.tokens import Doc
from thinc.api import ArgsKwargs, Model, torch2xp, xp2torch

from .labeller import init_sized
from .torch_shim import torch_layer

BiaffineScores = Tuple  # (Floats3d arcs, Floats4d labels, List[int] lengths)


def sentence_lengths(doc: Doc) -> List[int]:
    """The word counts of the doc's sentences; the whole doc if it has no
    sentence boundaries, nothing for an empty doc."""
    if len(doc) == 0:
        return []
    if not doc.has_annotation("SENT_START"):
        return [len(doc)]
    return [len(sent) for sent in doc.sents]


def with_torch_biaffine(tok2vec: Model, module: torch.nn.Module, *, name: str) -> Model:
    """Model[List[Doc], BiaffineScores] (see the module docstring); the dim nO
    is the number of labels."""
    wrapped = torch_layer(module, convert_inputs=_convert_inputs,
                          convert_outputs=_convert_outputs)
    return Model(name, _forward, init=init_sized, layers=[tok2vec, wrapped],
                 dims={"nO": module.n_labels or None})


def biaffine_module(model: Model) -> torch.nn.Module:
    """The torch module inside ``model``."""
    return model.layers[1].shims[0]._model


def set_n_labels(model: Model, n_labels: int) -> None:
    """Size the label weights for ``n_labels`` labels (new weights where it changes)."""
    if model.has_dim("nO") and model.get_dim("nO") == n_labels:
        return
    biaffine_module(model).resize_labels(n_labels)
    model.set_dim("nO", n_labels, force=True)


def _forward(model: Model, docs: Sequence[Doc], is_train: bool) -> Tuple[BiaffineScores, Callable]:
    vectors, backprop_tok2vec = model.layers[0](docs, is_train)
    lengths = [n for doc in docs for n in sentence_lengths(doc)]
    if not lengths:
        # no words at all: nothing to score, and a zero gradient for the (empty) vectors
        n_labels = model.get_dim("nO")
        empty = (model.ops.alloc3f(0, 0, 1), model.ops.alloc4f(0, 0, 1, n_labels), [])
        return empty, lambda d: backprop_tok2vec([model.ops.alloc2f(*v.shape) for v in vectors])
    (arcs, labels), backprop_scores = model.layers[1]((vectors, lengths), is_train)

    def backprop(d_scores):
        return backprop_tok2vec(backprop_scores(tuple(d_scores)))

    return (arcs, labels, lengths), backprop


def _convert_inputs(model: Model, inputs, is_train: bool):
    vectors, lengths = inputs
    doc_lengths = [len(v) for v in vectors]
    args = ArgsKwargs(args=(xp2torch(model.ops.flatten(vectors), requires_grad=is_train),
                            torch.tensor(lengths, dtype=torch.int64)), kwargs={})

    def backprop(d_args: ArgsKwargs):
        return model.ops.unflatten(torch2xp(d_args.args[0]), doc_lengths)

    return args, backprop


def _convert_outputs(model: Model, inputs_outputs, is_train: bool):
    _, (arcs, labels) = inputs_outputs

    def backprop(d_scores) -> ArgsKwargs:
        d_arcs, d_labels = d_scores
        return ArgsKwargs(args=((arcs, labels),),
                          kwargs={"grad_tensors": (xp2torch(d_arcs), xp2torch(d_labels))})

    return (torch2xp(arcs), torch2xp(labels)), backprop
