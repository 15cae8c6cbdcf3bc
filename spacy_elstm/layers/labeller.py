"""A thinc layer from docs to per-head log-probabilities: a tok2vec, then a
pure-PyTorch labeller (``pytorch.labeller``) on its vectors.

The labeller's heads are sized by the number of labels, which a component
knows only once it has collected them (``initialize``) or read them back
(``from_disk``): ``set_n_labels`` sizes them then, before any weights are
trained or loaded, so the torch module always has its final size when its
weights are read.

Gold labels in the model (teacher forcing). A labeller that reads gold labels
while it trains (``pytorch.label_recurrence``) declares
``model.attrs[NEEDS_GOLD] = True``. Its component then wraps each update in
``with teaching(model, gold): ...``, which puts one int array per doc (the
label index of each token, -1 where the gold label is missing) in
``model.attrs[GOLD]`` for the forward pass and clears it afterwards. The model
reads it only when ``is_train``; without it (an update outside a component,
or ``predict``) the model feeds its own predictions everywhere.
"""
from contextlib import contextmanager
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

import torch
from thinc.api import ArgsKwargs, Model, PyTorchWrapper_v2, torch2xp, xp2torch
from thinc.types import Floats2d, Ints1d

from .recurrent import with_torch_sequences

NEEDS_GOLD = "needs_gold"
GOLD = "gold"


def with_torch_labeller(
    tok2vec: Model, module, *, input_width: int, loss_weights: Sequence[float], name: str,
    needs_gold: bool = False
) -> Model:
    """Model[List[Doc], List[Floats2d]]: for each doc, (n_tokens, n_heads *
    n_labels) log-probabilities, the heads side by side (head 0 is the one a
    component predicts with). ``module`` is a ``pytorch.labeller`` module;
    ``loss_weights`` holds one weight per head, kept in ``attrs`` for the
    component's loss. The dim ``nO`` is the number of labels. With
    ``needs_gold``, the module's ``forward`` takes a ``gold`` keyword (see
    ``teaching``).
    """
    if len(loss_weights) != module.n_heads:
        raise ValueError(f"{name}: expected {module.n_heads} loss weights, got "
                         f"{list(loss_weights)}.")
    n_labels = module.n_labels or None
    attrs = {"n_heads": module.n_heads, "loss_weights": [float(w) for w in loss_weights]}
    if needs_gold:
        encoder = _with_torch_teacher(module, input_width=input_width,
                                      width=module.output_width or None, name=f"{name}_torch")
        attrs.update({NEEDS_GOLD: True, GOLD: None})
    else:
        encoder = with_torch_sequences(module, input_width=input_width,
                                       width=module.output_width or None, name=f"{name}_torch")
    return Model(name, _forward, init=_init, layers=[tok2vec, encoder],
                 dims={"nO": n_labels}, attrs=attrs)


@contextmanager
def teaching(model: Model, gold: List[Ints1d]) -> Iterator[None]:
    """Hand ``gold`` (per doc, each token's label index, -1 where missing) to a
    model that declares ``attrs[NEEDS_GOLD]``, for the updates inside the block."""
    model.attrs[GOLD] = gold
    try:
        yield
    finally:
        model.attrs[GOLD] = None


def torch_module(model: Model):
    """The pure-PyTorch labeller inside ``model``."""
    return model.layers[1].layers[0].shims[0]._model


def set_n_labels(model: Model, n_labels: int) -> None:
    """Size the heads for ``n_labels`` labels (new weights where the size changes)."""
    if model.has_dim("nO") and model.get_dim("nO") == n_labels:
        return
    torch_module(model).resize_labels(n_labels)
    model.set_dim("nO", n_labels, force=True)
    model.layers[1].set_dim("nO", model.attrs["n_heads"] * n_labels, force=True)


def weighted_nll(model: Model, scores: List[Floats2d], gold: Sequence[int], *,
                 name: Optional[str] = None) -> Tuple[float, List[Floats2d]]:
    """The loss a component trains the heads on: sum_k w_k * NLL(head k), summed
    over the tokens whose gold label index is >= 0 (-1: missing, no loss, no
    gradient), and its gradient w.r.t. the log-probabilities ``scores`` (-w_k at
    the gold label). ``gold`` holds one index per token of all docs in order;
    the weights w_k are ``model.attrs["loss_weights"]``.
    """
    ops = model.ops
    weights = model.attrs["loss_weights"]
    n_labels = model.get_dim("nO")
    lengths = [len(s) for s in scores]
    flat = ops.flatten(scores).reshape(-1, len(weights), n_labels)
    if len(gold) != flat.shape[0]:
        raise ValueError(f"{name or model.name}: {len(gold)} gold labels for {flat.shape[0]} "
                         f"scored tokens.")
    rows = ops.xp.asarray([r for r, g in enumerate(gold) if g >= 0], dtype="i")
    cols = ops.xp.asarray([g for g in gold if g >= 0], dtype="i")
    d_flat = ops.alloc3f(*flat.shape)
    loss = 0.0
    for k, weight in enumerate(weights):
        loss -= weight * float(flat[rows, k, cols].sum())
        d_flat[rows, k, cols] = -weight
    return loss, ops.unflatten(d_flat.reshape(flat.shape[0], -1), lengths)


def _init(model: Model, X=None, Y=None) -> None:
    if not model.has_dim("nO"):
        raise ValueError(f"{model.name}: the number of labels is not set; a component sets "
                         f"it with set_n_labels before initializing the model.")
    model.layers[0].initialize(X=X)
    model.layers[1].initialize()


def _forward(model: Model, docs, is_train: bool) -> Tuple[List[Floats2d], Callable]:
    vectors, backprop_tok2vec = model.layers[0](docs, is_train)
    if model.attrs.get(NEEDS_GOLD):
        gold = model.attrs.get(GOLD) if is_train else None
        if gold is not None and [len(g) for g in gold] != [len(v) for v in vectors]:
            raise ValueError(f"{model.name}: gold labels for docs of lengths "
                             f"{[len(g) for g in gold]}, got docs of lengths "
                             f"{[len(v) for v in vectors]}.")
        scores, backprop_encoder = model.layers[1]((vectors, gold), is_train)
    else:
        scores, backprop_encoder = model.layers[1](vectors, is_train)

    def backprop(d_scores: List[Floats2d]):
        return backprop_tok2vec(backprop_encoder(d_scores))

    return scores, backprop


def _with_torch_teacher(module, *, input_width: int, width: Optional[int], name: str) -> Model:
    """Like ``with_torch_sequences``, from (vectors, gold or None) per batch:
    the gold label ids go to the module's ``forward`` as its ``gold`` keyword."""
    wrapped = PyTorchWrapper_v2(module, convert_inputs=_teacher_inputs,
                                convert_outputs=_teacher_outputs)
    return Model(name, _teacher_forward, layers=[wrapped], dims={"nI": input_width, "nO": width})


def _teacher_forward(model: Model, inputs, is_train: bool):
    vectors, _ = inputs
    if sum(len(v) for v in vectors) == 0:
        n_in, n_out = model.get_dim("nI"), model.get_dim("nO")
        return ([model.ops.alloc2f(0, n_out) for _ in vectors],
                lambda d_scores: [model.ops.alloc2f(0, n_in) for _ in vectors])
    return model.layers[0](inputs, is_train)


def _teacher_inputs(model: Model, inputs, is_train: bool):
    vectors, gold = inputs
    lengths = [len(v) for v in vectors]
    kwargs = {"flat": True}
    if gold is not None:
        ids = model.ops.xp.concatenate([model.ops.asarray(g, dtype="int64") for g in gold])
        kwargs["gold"] = xp2torch(ids)
    args = ArgsKwargs(args=(xp2torch(model.ops.flatten(vectors), requires_grad=is_train),
                            torch.tensor(lengths, dtype=torch.int64)), kwargs=kwargs)

    def backprop(d_args: ArgsKwargs) -> List[Floats2d]:
        return model.ops.unflatten(torch2xp(d_args.args[0]), lengths)

    return args, backprop


def _teacher_outputs(model: Model, inputs_outputs, is_train: bool):
    (vectors, _), y = inputs_outputs
    lengths = [len(v) for v in vectors]
    scores = model.ops.unflatten(torch2xp(y), lengths)

    def backprop(d_scores: List[Floats2d]) -> ArgsKwargs:
        return ArgsKwargs(args=(y,), kwargs={"grad_tensors": xp2torch(model.ops.flatten(d_scores))})

    return scores, backprop
