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
attend only to the words of their own sentence and ROOT.

Memory. Arc scores are computed sentence by sentence, (n, n + 1) each, so a
batch takes the sum over its sentences of n^2 scores, never batch x longest^2.
Label scores are computed only where they are needed, for one head per word
(the gold head in training, the decoded one in prediction): ``forward`` gives
the label MLPs' outputs, and ``label_scores`` the (n_words, n_labels) scores at
the given heads, in blocks of words whose intermediate (words x labels x
label_width) stays under ``cell_budget`` numbers.
"""
import warnings
from typing import List, NamedTuple, Sequence

import torch
from torch import Tensor, nn

from .mode import Dropout


def _mlp(input_width: int, width: int, dropout: float) -> nn.Sequential:
    return nn.Sequential(nn.Linear(input_width, width), nn.ReLU(), Dropout(dropout))


class BiaffineOutput(NamedTuple):
    """What ``BiaffineParserScorer.forward`` gives for a batch of sentences.

    arcs: one (n, n + 1) tensor per sentence: [i, j] scores head j (0 = ROOT,
        j >= 1 word j - 1) for word i.
    label_dep: [p_i; 1] for every word, shape (n_words, label_width + 1).
    label_head: [q_j; 1] for every head candidate, shape (n_sents + n_words,
        label_width + 1): first each sentence's ROOT, then the words.
    """

    arcs: List[Tensor]
    label_dep: Tensor
    label_head: Tensor


class BiaffineParserScorer(nn.Module):
    """Arc and label scores for each sentence of a batch (see the module)."""

    cell_budget = 2 ** 22  # numbers in one block of the label scores' intermediate

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

    def forward(self, x: Tensor, lengths: Sequence[int]) -> BiaffineOutput:
        """x: the words of all sentences one after another, shape (n_words,
        input_width); lengths: each sentence's number of words, summing to
        n_words. Returns the arc scores of each sentence and the label MLPs'
        outputs (see ``BiaffineOutput``)."""
        lengths = [int(n) for n in lengths]
        n_sents = len(lengths)
        # the head candidates: each sentence's ROOT (its own row, so its own
        # dropout mask), then the words
        candidates = torch.cat([self.root.to(x.dtype).expand(n_sents, x.shape[1]), x])
        arc_dep = self.arc_dep(x) @ self.arc_weight
        arc_head = self.arc_head(candidates)
        head_bias = arc_head @ self.arc_head_bias
        arcs = []
        start = n_sents  # of the sentence's words among the candidates
        for s, n in enumerate(lengths):
            rows = torch.cat([arc_head[s:s + 1], arc_head[start:start + n]])
            bias = torch.cat([head_bias[s:s + 1], head_bias[start:start + n]])
            words = arc_dep[start - n_sents:start - n_sents + n]
            arcs.append(torch.addmm(bias, words, rows.T))
            start += n
        label_dep = _with_one(self.label_dep(x))
        label_head = _with_one(self.label_head(candidates))
        return BiaffineOutput(arcs, label_dep, label_head)

    def label_scores(self, label_dep: Tensor, label_head: Tensor, heads: Tensor) -> Tensor:
        """The scores of each label for each word at one head: label_dep and
        label_head as ``forward`` gives them, heads (n_words,) the row of
        label_head that is each word's head. Shape (n_words, n_labels)."""
        n_labels, width = self.n_labels, self.label_width + 1
        # weight[p, l * width + q] = W_l[p, q]: p_i^T W_l for every l in one product
        weight = self.label_weight.permute(1, 0, 2).reshape(width, n_labels * width)
        block = max(1, self.cell_budget // max(1, n_labels * width))
        scores = []
        for start in range(0, label_dep.shape[0], block):
            dep = label_dep[start:start + block]
            head = label_head[heads[start:start + block]]
            left = (dep @ weight).view(-1, n_labels, width)
            scores.append(torch.bmm(left, head.unsqueeze(-1)).squeeze(-1))
        if not scores:
            return label_dep.new_zeros(0, n_labels)
        return torch.cat(scores)

    def best_labels(self, label_dep: Tensor, label_head: Tensor, heads: Tensor) -> Tensor:
        """The best label of each word at one head (arguments as for
        ``label_scores``), shape (n_words,). For prediction: the same scores
        computed from the head side, W_l [q_j; 1] once per distinct head (a
        third of the words in a treebank) rather than [p_i; 1]^T W_l once per
        word, so the product costs a third; the scores differ from
        ``label_scores``'s only by float rounding.

        Each head's dependents are scored together, (k, width) @ (width,
        n_labels) for a head with k of them, so no (word, label, width) array
        is ever gathered: the heads are sorted by their number of dependents,
        and those with up to 1, 2, 4, 8, ... dependents scored in one batched
        product each, their dependents padded to that size (at most twice the
        words). Heads go in blocks of at most ``cell_budget`` numbers of W_l q."""
        n_words = label_dep.shape[0]
        n_labels, width = self.n_labels, self.label_width + 1
        if n_words == 0 or n_labels == 0:
            return heads.new_zeros(n_words)
        distinct, inverse, counts = torch.unique(heads, return_inverse=True, return_counts=True)
        by_count = torch.argsort(counts, stable=True)  # the distinct heads, fewest dependents first
        position = torch.empty_like(by_count)
        position[by_count] = torch.arange(len(by_count), device=heads.device)
        group = position[inverse]  # each word's head's place in that order
        order = torch.argsort(group, stable=True)  # the words, grouped by head in that order
        sizes = counts[by_count]
        group_starts = torch.cumsum(sizes, 0) - sizes  # of each head's words in ``order``
        rank = torch.arange(n_words, device=heads.device) - group_starts[group[order]]
        # padded size of each head's dependents: the next power of two
        padded = (2 ** torch.ceil(torch.log2(sizes.double()))).long()
        # weight[q, l * width + p] = W_l[p, q]: W_l q for every l in one product
        weight = self.label_weight.permute(2, 0, 1).reshape(width, n_labels * width)
        block = max(1, self.cell_budget // max(1, n_labels * width))
        best = heads.new_empty(n_words)
        bounds = torch.cat([torch.nonzero(padded[1:] != padded[:-1]).flatten() + 1,
                            torch.arange(0, len(sizes), block, device=heads.device),
                            torch.tensor([len(sizes)], device=heads.device)]).unique().tolist()
        for a, b in zip(bounds, bounds[1:]):  # heads a..b-1 (in order): one padded size
            k = int(padded[a])
            right = (label_head[distinct[by_count[a:b]]] @ weight).view(b - a, n_labels, width)
            first, last = int(group_starts[a]), int(group_starts[b - 1] + sizes[b - 1])
            words = order[first:last]
            head_of, rank_of = group[words] - a, rank[first:last]
            deps = label_dep.new_zeros(b - a, k, width)
            deps[head_of, rank_of] = label_dep[words]
            scores = torch.bmm(deps, right.transpose(1, 2))  # (heads, k, n_labels)
            best[words] = scores[head_of, rank_of].argmax(-1)
        return best


def _with_one(x: Tensor) -> Tensor:
    return torch.cat([x, x.new_ones(x.shape[:-1] + (1,))], dim=-1)
