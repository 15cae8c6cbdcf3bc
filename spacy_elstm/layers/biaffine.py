"""A thinc layer from docs to biaffine arc and label scores per sentence: a
tok2vec, then ``pytorch.biaffine.BiaffineParserScorer`` on its vectors.

The sentences are those the docs have (``sentence_lengths``): the doc's
sentence boundaries, or the whole doc where it has none. The output is one
``BiaffineScores`` for the batch, the sentences of all docs in order: each
sentence's arc scores (n, n + 1), and ``labels(heads)``, the label scores of
every word at one head each (n_words, n_labels), computed when asked for, so
that no batch ever holds scores for every (word, head, label). Backprop takes
``(d_arcs, d_labels)``: one gradient per sentence's arcs, and the gradient of
the last ``labels`` call's scores (or None).

The label weights are sized by the number of labels, which a component knows
only in ``initialize`` or from its saved cfg: ``set_n_labels`` sizes them then,
before weights are trained or loaded.
"""
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

import numpy
import torch
from spacy.tokens import Doc
from thinc.api import ArgsKwargs, Model, torch2xp, xp2torch
from thinc.types import Floats2d, Ints1d

from .labeller import init_sized
from .torch_shim import torch_layer


@dataclass
class BiaffineScores:
    """The scores of a batch's sentences, in order (see the module).

    arcs: per sentence of n words, (n, n + 1): [i, j] scores head j for word i,
        0 = ROOT, j >= 1 word j - 1 of the sentence.
    lengths: the sentences' word counts.
    label_scorer: heads -> label scores; use ``labels``.
    label_chooser: heads -> best label ids, or None; use ``best_labels``.
    """

    arcs: List[Floats2d]
    lengths: List[int]
    label_scorer: Callable[[Ints1d], Floats2d]
    label_chooser: Optional[Callable[[Ints1d], Ints1d]] = None

    def labels(self, heads: Ints1d) -> Floats2d:
        """The label scores (n_words, n_labels) of every word of the batch at
        its head in ``heads`` (n_words,), numbered as in ``arcs``."""
        return self.label_scorer(heads)

    def best_labels(self, heads: Ints1d) -> Ints1d:
        """The best label id of every word at its head in ``heads`` (as for
        ``labels``), computed without the (n_words, n_labels) scores where the
        model can (``BiaffineParserScorer.best_labels``)."""
        if self.label_chooser is None:
            return self.labels(heads).argmax(-1)
        return self.label_chooser(heads)


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
        empty = BiaffineScores([], [], lambda heads: model.ops.alloc2f(0, n_labels))
        return empty, lambda d: backprop_tok2vec([model.ops.alloc2f(*v.shape) for v in vectors])
    scores, backprop_scores = model.layers[1]((vectors, lengths), is_train)

    def backprop(d_scores):
        return backprop_tok2vec(backprop_scores(tuple(d_scores)))

    return scores, backprop


def _convert_inputs(model: Model, inputs, is_train: bool):
    vectors, lengths = inputs
    doc_lengths = [len(v) for v in vectors]
    args = ArgsKwargs(args=(xp2torch(model.ops.flatten(vectors), requires_grad=is_train),
                            list(lengths)), kwargs={})

    def backprop(d_args: ArgsKwargs):
        return model.ops.unflatten(torch2xp(d_args.args[0]), doc_lengths)

    return args, backprop


def _convert_outputs(model: Model, inputs_outputs, is_train: bool):
    (_, lengths), output = inputs_outputs
    module = model.shims[0]._model
    last = []  # the label scores of the last labels() call, for backprop

    def label_scores(heads: Ints1d) -> Floats2d:
        rows = model.ops.asarray1i(_candidate_rows(model.ops.to_numpy(heads), lengths))
        with torch.set_grad_enabled(is_train):
            scores = module.label_scores(output.label_dep, output.label_head,
                                         xp2torch(rows).long())
        last[:] = [scores]
        return torch2xp(scores)

    def best_labels(heads: Ints1d) -> Ints1d:
        rows = model.ops.asarray1i(_candidate_rows(model.ops.to_numpy(heads), lengths))
        with torch.no_grad():
            best = module.best_labels(output.label_dep, output.label_head, xp2torch(rows).long())
        return torch2xp(best)

    def backprop(d_scores) -> ArgsKwargs:
        d_arcs, d_labels = d_scores
        tensors, grads = list(output.arcs), [xp2torch(d) for d in d_arcs]
        if d_labels is not None:
            if not last:
                raise ValueError("biaffine scores: a label gradient, but no labels were scored.")
            tensors.append(last[0])
            grads.append(xp2torch(d_labels))
        return ArgsKwargs(args=(tensors,), kwargs={"grad_tensors": grads})

    arcs = [torch2xp(a) for a in output.arcs]
    return BiaffineScores(arcs, list(lengths), label_scores, best_labels), backprop


def _candidate_rows(heads: numpy.ndarray, lengths: Sequence[int]) -> numpy.ndarray:
    """Each word's head (0 = ROOT, j = word j - 1 of its sentence) as a row of
    the module's head candidates: the sentences' ROOTs, then all words."""
    lengths = numpy.asarray(lengths, dtype="int64")
    if heads.shape != (int(lengths.sum()),):
        raise ValueError(f"biaffine labels: expected one head per word ({int(lengths.sum())}), "
                         f"got shape {heads.shape}.")
    sentence = numpy.repeat(numpy.arange(len(lengths)), lengths)
    if len(heads) and ((heads < 0) | (heads > lengths[sentence])).any():
        raise ValueError("biaffine labels: a head outside its sentence (heads are 0 for "
                         "ROOT, j for word j - 1 of the sentence).")
    starts = numpy.cumsum(lengths) - lengths
    return numpy.where(heads == 0, sentence,
                       len(lengths) + starts[sentence] + heads - 1).astype("int32")
