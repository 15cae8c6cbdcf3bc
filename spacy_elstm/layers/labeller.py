"""A thinc layer from docs to per-head log-probabilities: a tok2vec, then a
pure-PyTorch labeller (``pytorch.labeller``) on its vectors.

The labeller's heads are sized by the number of labels, which a component
knows only once it has collected them (``initialize``) or read them back
(``from_disk``): ``set_n_labels`` sizes them then, before any weights are
trained or loaded, so the torch module always has its final size when its
weights are read.

Gold labels into the model (teacher forcing). A torch module with
``needs_gold = True`` (e.g. ``pytorch.seq2seq``) is fed its previous labels, so
in training it must see the gold ones, which ``begin_update(docs)`` does not
carry. Such a model declares ``attrs["needs_gold"] = True``; the component
calls ``set_teacher(model, gold_ids_per_doc)`` right before ``begin_update``,
and the next forward pass takes them out of ``attrs["teacher"]`` (used by that
one call, in training only; a forward pass at inference drops them unread, so
predictions never see gold). Without a teacher, and at every label id -1, the
module feeds back its own prediction. Models without ``needs_gold`` are built
and run exactly as before.

Sentences as sequences. A module with ``per_sentence = True`` (the seq2seq
labellers of Seq2SeqTagger.v2, whose attention costs O(T^2) in the sequence
length T) reads each sentence of a doc as its own sequence, in training and at
inference alike; a doc without sentence boundaries is one sequence. The tok2vec
still reads whole docs.
"""
from typing import Callable, List, Optional, Sequence, Tuple

from thinc.api import Model
from thinc.types import Floats2d

from .recurrent import with_torch_sequences
from .teacher import with_torch_teacher


def with_torch_labeller(
    tok2vec: Model, module, *, input_width: int, loss_weights: Sequence[float], name: str
) -> Model:
    """Model[List[Doc], List[Floats2d]]: for each doc, (n_tokens, n_heads *
    n_labels) log-probabilities, the heads side by side (head 0 is the one a
    component predicts with). ``module`` is a ``pytorch.labeller`` module;
    ``loss_weights`` holds one weight per head, kept in ``attrs`` for the
    component's loss. The dim ``nO`` is the number of labels.
    """
    if len(loss_weights) != module.n_heads:
        raise ValueError(f"{name}: expected {module.n_heads} loss weights, got "
                         f"{list(loss_weights)}.")
    n_labels = module.n_labels or None
    needs_gold = getattr(module, "needs_gold", False)
    wrap = with_torch_teacher if needs_gold else with_torch_sequences
    encoder = wrap(module, input_width=input_width, width=module.output_width or None,
                   name=f"{name}_torch")
    attrs = {"n_heads": module.n_heads, "loss_weights": [float(w) for w in loss_weights]}
    if needs_gold:
        attrs["needs_gold"] = True
    if hasattr(module, "per_sentence"):
        # a model whose cost is quadratic in a sequence's length: each sentence one
        # sequence (sentence_lengths), or each whole doc
        attrs["per_sentence"] = module.per_sentence
    if getattr(module, "interleaved", False):
        attrs["interleaved"] = True  # two labels per token, one after the other
    return Model(name, _forward, init=init_sized, layers=[tok2vec, encoder], dims={"nO": n_labels},
                 attrs=attrs)


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


def set_teacher(model: Model, gold_ids_per_doc: Sequence[Sequence[int]]) -> None:
    """Hand a ``needs_gold`` model the gold label ids of the docs its next
    forward pass reads: one sequence per doc, one index into the component's
    labels per token, -1 where the label is missing (the model feeds back its
    own prediction there). Kept in ``model.attrs["teacher"]`` until that pass."""
    if not model.attrs.get("needs_gold"):
        raise ValueError(f"{model.name} does not read gold labels (no attrs['needs_gold']).")
    model.attrs["teacher"] = [[int(i) for i in ids] for ids in gold_ids_per_doc]


def weighted_nll(model: Model, scores: List[Floats2d], gold: Sequence, *,
                 name: Optional[str] = None,
                 normalize: bool = False) -> Tuple[float, List[Floats2d]]:
    """The loss a component trains the heads on: sum_k w_k * NLL(head k), summed
    over the tokens whose gold label index is >= 0 (-1: missing, no loss, no
    gradient), and its gradient w.r.t. the log-probabilities ``scores`` (-w_k at
    the gold label); with ``normalize``, both divided by the number of tokens
    with a gold label for some head (the mean per token). ``gold`` holds, for
    each token of all docs in order, one index (the gold label of every head)
    or a tuple of one index per head (heads that predict different things, as
    the interleaved seq2seq's two steps); the weights w_k are
    ``model.attrs["loss_weights"]``.
    """
    ops = model.ops
    weights = model.attrs["loss_weights"]
    n_labels = model.get_dim("nO")
    lengths = [len(s) for s in scores]
    flat = ops.flatten(scores).reshape(-1, len(weights), n_labels)
    if len(gold) != flat.shape[0]:
        raise ValueError(f"{name or model.name}: {len(gold)} gold labels for {flat.shape[0]} "
                         f"scored tokens.")
    per_head = [tuple(g) if isinstance(g, (tuple, list)) else (g,) * len(weights) for g in gold]
    if any(len(g) != len(weights) for g in per_head):
        raise ValueError(f"{name or model.name}: gold labels must give one index per head "
                         f"({len(weights)}).")
    d_flat = ops.alloc3f(*flat.shape)
    loss = 0.0
    for k, weight in enumerate(weights):
        rows = ops.xp.asarray([r for r, g in enumerate(per_head) if g[k] >= 0], dtype="i")
        cols = ops.xp.asarray([g[k] for g in per_head if g[k] >= 0], dtype="i")
        loss -= weight * float(flat[rows, k, cols].sum())
        d_flat[rows, k, cols] = -weight
    if normalize:
        n_labelled = max(1, sum(1 for g in per_head if max(g) >= 0))
        loss /= n_labelled
        d_flat /= n_labelled
    return loss, ops.unflatten(d_flat.reshape(flat.shape[0], -1), lengths)


def sentence_lengths(doc) -> List[int]:
    """The lengths of a doc's sentences, in order; [len(doc)] if it has no
    sentence boundaries."""
    if len(doc) and doc.has_annotation("SENT_START"):
        return [len(sent) for sent in doc.sents]
    return [len(doc)]


def init_sized(model: Model, X=None, Y=None) -> None:
    """Initialize a (tok2vec, torch module) model whose label count a component
    has set (``set_n_labels``): the tok2vec on X, then the module."""
    if not model.has_dim("nO"):
        raise ValueError(f"{model.name}: the number of labels is not set; a component sets "
                         f"it with set_n_labels before initializing the model.")
    model.layers[0].initialize(X=X)
    model.layers[1].initialize()


def _forward(model: Model, docs, is_train: bool) -> Tuple[List[Floats2d], Callable]:
    vectors, backprop_tok2vec = model.layers[0](docs, is_train)
    if model.attrs.get("needs_gold"):
        # the teacher serves one forward pass, and only a training one
        teacher = model.attrs.pop("teacher", None)
        inputs = (vectors, teacher if is_train else None)
        if model.attrs.get("per_sentence"):
            inputs += ([sentence_lengths(doc) for doc in docs],)
        scores, backprop_encoder = model.layers[1](inputs, is_train)
    else:
        scores, backprop_encoder = model.layers[1](vectors, is_train)

    def backprop(d_scores: List[Floats2d]):
        return backprop_tok2vec(backprop_encoder(d_scores))

    return scores, backprop
