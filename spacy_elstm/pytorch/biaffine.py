"""Biaffine arc and label scores over sentences (Dozat & Manning 2017, "Deep
Biaffine Attention for Neural Dependency Parsing").

For a sentence of n words with vectors x_1..x_n, and a learned ROOT vector x_0,
four one-layer MLPs (linear, ReLU, dropout) give each position a dependent and
a head representation for arcs and for labels:

    a_i = MLP_arc-dep(x_i),   b_j = MLP_arc-head(x_j),
    p_i = MLP_lab-dep(x_i),   q_j = MLP_lab-head(x_j).

The score of head j (0 = ROOT) for word i is biaffine, with a head bias (how
likely j is to be anyone's head), and of label l for the arc j -> i a biaffine
classifier with linear terms and a bias, written with a 1 appended to both sides:

    s_arc[i, j]    = a_i^T U b_j + u^T b_j,
    s_lab[i, j, l] = [p_i; 1]^T W_l [q_j; 1].

U, u and W start at zero, so every tree and label starts equally likely. Words
attend only to the words of their own sentence and ROOT: scores are computed
per sentence, padded to the longest one of the batch; the padded positions are
never read by the real ones.
"""
import warnings

import torch
from torch import Tensor, nn

from .mode import Dropout


def _mlp(input_width: int, width: int, dropout: float) -> nn.Sequential:
    return nn.Sequential(nn.Linear(input_width, width), nn.ReLU(), Dropout(dropout))


class BiaffineParserScorer(nn.Module):
    """Arc and label scores for each sentence of a batch (see the module)."""

    def __init__(self, *, input_width: int, arc_width: int, label_width: int,
                 n_labels: int, dropout: float):
        super().__init__()
        if n_labels < 0:
            raise ValueError(f"n_labels must be >= 0, got {n_labels}.")
        self.input_width = input_width
        self.label_width = label_width
        self.root = nn.Parameter(torch.randn(input_width) * 0.1)
        self.arc_dep = _mlp(input_width, arc_width, dropout)
        self.arc_head = _mlp(input_width, arc_width, dropout)
        self.label_dep = _mlp(input_width, label_width, dropout)
        self.label_head = _mlp(input_width, label_width, dropout)
        self.arc_weight = nn.Parameter(torch.zeros(arc_width, arc_width))
        self.arc_head_bias = nn.Parameter(torch.zeros(arc_width))
        self.label_weight = self._label_weight(n_labels)

    @property
    def n_labels(self) -> int:
        return self.label_weight.shape[0]

    def _label_weight(self, n_labels: int, **device_dtype) -> nn.Parameter:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Initializing zero-element tensors")
            return nn.Parameter(torch.zeros(n_labels, self.label_width + 1,
                                            self.label_width + 1, **device_dtype))

    def resize_labels(self, n_labels: int) -> None:
        """New zero label weights for ``n_labels`` labels, where the number
        differs (a component knows its labels only in ``initialize``)."""
        if n_labels != self.n_labels:
            old = self.label_weight
            self.label_weight = self._label_weight(n_labels, device=old.device, dtype=old.dtype)

    def forward(self, x: Tensor, lengths: Tensor):
        """x: the words of all sentences one after another, shape (n_words,
        input_width); lengths: each sentence's number of words, shape (n_sents,),
        summing to n_words. Returns the arc scores, shape (n_sents, T, T + 1),
        and the label scores, shape (n_sents, T, T + 1, n_labels), T the longest
        sentence: [s, i, j] is head j (0 = ROOT, j >= 1 word j - 1) for word i
        of sentence s; entries past a sentence's length are padding."""
        n_sents = len(lengths)
        longest = int(lengths.max()) if n_sents else 0
        lengths = lengths.to(x.device)
        sent = torch.repeat_interleave(torch.arange(n_sents, device=x.device), lengths)
        starts = torch.cumsum(lengths, 0) - lengths
        position = torch.arange(x.shape[0], device=x.device) - starts[sent]
        words = x.new_zeros(n_sents, longest, x.shape[1]).index_put((sent, position), x)
        root = self.root.to(x.dtype).expand(n_sents, 1, x.shape[1])
        padded = torch.cat([root, words], dim=1)  # position 0 is ROOT
        arc_dep, arc_head = self.arc_dep(words), self.arc_head(padded)
        arcs = torch.einsum("sia,ab,sjb->sij", arc_dep, self.arc_weight, arc_head)
        arcs = arcs + (arc_head @ self.arc_head_bias)[:, None, :]
        label_dep = _with_one(self.label_dep(words))
        label_head = _with_one(self.label_head(padded))
        labels = torch.einsum("sip,lpq,sjq->sijl", label_dep, self.label_weight, label_head)
        return arcs, labels


def _with_one(x: Tensor) -> Tensor:
    return torch.cat([x, x.new_ones(x.shape[:-1] + (1,))], dim=-1)
