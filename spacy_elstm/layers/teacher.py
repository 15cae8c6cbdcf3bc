"""A thinc layer running a pure-PyTorch sequence module that also reads the gold
labels: a labeller fed its previous labels (teacher forcing while training).

The input is a pair (vectors, gold): vectors a list of (n_tokens, input_width)
arrays, one per doc, and gold either None (the module feeds back its own
predictions) or one sequence per doc of label ids, -1 where a label is
missing. The module is called as ``module(x, lengths, flat=True, gold=g)``
with x and g the docs one after another; gold reaches it as data, not as a
gradient path, so backprop returns the vectors' gradient only.

An optional third element, one list of sentence lengths per doc (summing to
the doc's length), makes each sentence its own sequence: x and g are the same
rows, only ``lengths`` lists the sentences instead of the docs.
"""
from typing import Callable, List, Optional, Sequence, Tuple, Union

import torch
from thinc.api import ArgsKwargs, Model, torch2xp, xp2torch
from thinc.types import Floats2d

from .torch_shim import torch_layer

Gold = Optional[Sequence[Sequence[int]]]
# (vectors, gold) or (vectors, gold, sentence lengths per doc)
Inputs = Union[Tuple[List[Floats2d], Gold], Tuple[List[Floats2d], Gold, List[List[int]]]]


def with_torch_teacher(
    module: torch.nn.Module, *, input_width: int, width: int, name: str
) -> Model[Inputs, List[Floats2d]]:
    """Wrap a module taking ``gold`` as a layer from (vectors, gold) to a list
    of (n_tokens, width) arrays (see the module docstring)."""
    wrapped = torch_layer(module, convert_inputs=_convert_inputs, convert_outputs=_convert_outputs)
    return Model(name, _forward, layers=[wrapped], dims={"nI": input_width, "nO": width})


def _forward(model: Model, X: Inputs, is_train: bool) -> Tuple[List[Floats2d], Callable]:
    Xs, gold = X[:2]
    if len(X) > 2 and [sum(s) for s in X[2]] != [len(x) for x in Xs]:
        raise ValueError(f"{model.name}: sentences of {[sum(s) for s in X[2]]} tokens, but "
                         f"the docs have {[len(x) for x in Xs]} tokens.")
    if gold is not None and [len(g) for g in gold] != [len(x) for x in Xs]:
        raise ValueError(f"{model.name}: gold labels for docs of lengths "
                         f"{[len(g) for g in gold]}, but the docs have "
                         f"{[len(x) for x in Xs]} tokens.")
    if sum(len(x) for x in Xs) == 0:
        Ys = [model.ops.alloc2f(0, model.get_dim("nO")) for _ in Xs]
        return Ys, lambda dYs: [model.ops.alloc2f(0, model.get_dim("nI")) for _ in Xs]
    return model.layers[0](X, is_train)


def _convert_inputs(model: Model, X: Inputs, is_train: bool):
    Xs, gold = X[:2]
    lengths = [len(x) for x in Xs]
    sequences = [n for sents in X[2] for n in sents] if len(X) > 2 else lengths
    kwargs = {"flat": True}
    if gold is not None:
        ids = [int(i) for g in gold for i in g]
        kwargs["gold"] = xp2torch(model.ops.asarray1i(ids)).long()
    args = ArgsKwargs(
        args=(xp2torch(model.ops.flatten(Xs), requires_grad=is_train),
              torch.tensor(sequences, dtype=torch.int64)),
        kwargs=kwargs,
    )

    def backprop(d_args: ArgsKwargs) -> List[Floats2d]:
        return model.ops.unflatten(torch2xp(d_args.args[0]), lengths)

    return args, backprop


def _convert_outputs(model: Model, inputs_outputs, is_train: bool):
    Xs, y = inputs_outputs[0][0], inputs_outputs[1]
    lengths = [len(x) for x in Xs]
    Ys = model.ops.unflatten(torch2xp(y), lengths)

    def backprop(dYs: List[Floats2d]) -> ArgsKwargs:
        return ArgsKwargs(args=(y,), kwargs={"grad_tensors": xp2torch(model.ops.flatten(dYs))})

    return Ys, backprop
