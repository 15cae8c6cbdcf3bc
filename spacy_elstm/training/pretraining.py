"""A `spacy pretrain` objective for recurrent tok2vecs: the forward direction
predicts the next word and the backward direction the previous word (ELMo's
arrangement), ``spacy-elstm.PretrainNextWord.v1``.

It is valid only where neither direction sees its own target, so it asks the
tok2vec for a ``spacy-elstm.RecurrentEncoder.v2`` with ``separate_directions =
true``: the first half of its output at token t has read tokens <= t, the
second half tokens >= t (``pytorch.encoder.RecurrentEncoder``). Any other
encoder is refused with the reason; in a stacked BRNN the forward state of the
second layer has read the backward state of the first, which has read the whole
sentence, so "predicting" the next word from it is copying it.

The words are predicted as ``n_buckets`` classes: a word's class is its NORM's
hash modulo ``n_buckets`` (so no vocabulary has to be fixed before the text is
seen, at the price of a few collisions), plus one class for "no word" beyond
the doc's first and last token. The head is two linear softmax layers, one per
half; the loss is the mean cross-entropy over both predictions of every token.
``spacy pretrain`` saves the tok2vec's weights; ``spacy train`` loads them with
``[initialize] init_tok2vec`` (see configs/pretrain/).
"""
from typing import Callable, List, Tuple

import numpy
import torch
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model, chain, torch2xp, with_array, xp2torch
from thinc.types import Floats2d

from ..architectures import DIRECTIONS_ATTR, RECURRENT_ENCODER_V2
from ..architectures.validation import config_error
from ..pytorch.encoder import half_width

PRETRAIN_NEXT_WORD = "spacy-elstm.PretrainNextWord.v1"
NAMES = ("next", "prev")  # the head's two softmax layers, in the order of the output's halves


@registry.architectures(PRETRAIN_NEXT_WORD)
def create_pretrain_next_word(n_buckets: int = 20000) -> Callable[[object, Model], Model]:
    """n_buckets (int): word classes (hashed NORMs), besides the class of "no word"."""
    if isinstance(n_buckets, bool) or not isinstance(n_buckets, int) or n_buckets < 2:
        raise config_error(PRETRAIN_NEXT_WORD, f"n_buckets must be an integer >= 2, "
                                               f"got {n_buckets!r}.", "n_buckets", n_buckets)

    def create_objective(vocab, tok2vec: Model) -> Model:
        check_directions(tok2vec)
        width = tok2vec.get_dim("nO") if tok2vec.has_dim("nO") else None
        model = chain(tok2vec, with_array(next_word_head(width, n_buckets + 1)))
        model.set_ref("tok2vec", tok2vec)  # what `spacy pretrain` saves
        model.attrs["loss"] = lambda ops, docs, predictions: next_word_loss(
            ops, docs, predictions, n_buckets)
        return model

    return create_objective


def check_directions(tok2vec: Model) -> None:
    """Refuse a tok2vec whose output halves do not each read one direction."""
    found = [node.attrs[DIRECTIONS_ATTR] for node in tok2vec.walk()
             if DIRECTIONS_ATTR in node.attrs]
    if found != ["separate"]:
        what = ("no recurrent encoder of spacy-elstm" if not found else
                "an encoder whose directions read each other" if found == ["joint"] else
                f"{len(found)} recurrent encoders")
        raise ValueError(
            f"{PRETRAIN_NEXT_WORD} needs a tok2vec whose encoder is {RECURRENT_ENCODER_V2} "
            f"with separate_directions = true (and nothing after it), so that neither "
            f"direction reads the word it predicts; this tok2vec has {what}.")


def targets(doc: Doc, n_buckets: int) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """The classes of each token's next and previous word (n_buckets: none)."""
    norms = numpy.fromiter((t.norm for t in doc), dtype=numpy.uint64, count=len(doc))
    classes = (norms % numpy.uint64(n_buckets)).astype(numpy.int64)
    none = numpy.array([n_buckets], dtype=numpy.int64)
    return (numpy.concatenate([classes[1:], none]), numpy.concatenate([none, classes[:-1]]))


def next_word_loss(ops, docs: List[Doc], predictions: List[Floats2d],
                   n_buckets: int) -> Tuple[float, List[Floats2d]]:
    """Mean cross-entropy of both predictions of every token, and its gradient
    with respect to the logits (each prediction row: [next | previous] probabilities)."""
    n_classes = n_buckets + 1
    total = max(1, 2 * sum(len(doc) for doc in docs))
    loss, grads = 0.0, []
    for doc, probs in zip(docs, predictions):
        d = xp2torch(probs).clone()
        rows = torch.arange(len(doc), device=d.device)
        for half, gold in enumerate(targets(doc, n_buckets)):
            cols = torch.from_numpy(gold).to(d.device) + half * n_classes
            loss -= float(torch.log(torch.clamp(d[rows, cols], min=1e-12)).sum())
            d[rows, cols] -= 1.0
        grads.append(torch2xp(d.div_(total), ops=ops))
    return loss / total, grads


def next_word_head(width, n_classes: int) -> Model[Floats2d, Floats2d]:
    """Two softmax layers: the first half of each row predicts the next word's
    class, the second half the previous word's. Its backprop takes the gradient
    with respect to the logits (softmax and cross-entropy together). The
    products run in torch (its BLAS is several times faster than thinc's gemm on
    these wide outputs), on thinc's arrays without copying them."""
    return Model("next_word_head", _head_forward, init=_head_init,
                 dims={"nI": width, "nO": 2 * n_classes},
                 params={"W_next": None, "b_next": None, "W_prev": None, "b_prev": None},
                 attrs={"n_classes": n_classes})


def _head_init(model: Model, X=None, Y=None) -> None:
    if X is not None and not model.has_dim("nI"):
        model.set_dim("nI", X.shape[1])
    width, n = model.get_dim("nI"), model.attrs["n_classes"]
    try:
        half = half_width(width, "the tok2vec's width")
    except ValueError as err:
        raise ValueError(f"{PRETRAIN_NEXT_WORD}: {err}") from None
    for name in NAMES:
        model.set_param(f"W_{name}", model.ops.alloc2f(n, half))
        model.set_param(f"b_{name}", model.ops.alloc1f(n))


def _head_forward(model: Model, X: Floats2d, is_train: bool):
    half, n = model.get_dim("nI") // 2, model.attrs["n_classes"]
    x = xp2torch(X)
    W = [xp2torch(model.get_param(f"W_{name}")) for name in NAMES]
    b = [xp2torch(model.get_param(f"b_{name}")) for name in NAMES]
    logits = torch.empty((x.shape[0], 2, n), dtype=x.dtype, device=x.device)
    for i in range(2):
        torch.addmm(b[i], x[:, i * half : (i + 1) * half], W[i].t(), out=logits[:, i])
    # the softmax in place, so that a batch holds one (tokens, 2 * n) array, not two
    logits.sub_(logits.amax(dim=-1, keepdim=True)).exp_()
    probs = logits.div_(logits.sum(dim=-1, keepdim=True)).reshape(x.shape[0], 2 * n)

    def backprop(dY: Floats2d) -> Floats2d:
        d = xp2torch(dY).reshape(-1, 2, n)
        dX = torch.empty_like(x)
        for i, name in enumerate(NAMES):
            x_i = x[:, i * half : (i + 1) * half]
            model.inc_grad(f"W_{name}", torch2xp(d[:, i].t() @ x_i, ops=model.ops))
            model.inc_grad(f"b_{name}", torch2xp(d[:, i].sum(0), ops=model.ops))
            torch.mm(d[:, i], W[i], out=dX[:, i * half : (i + 1) * half])
        return torch2xp(dX, ops=model.ops)

    return torch2xp(probs, ops=model.ops), backprop
