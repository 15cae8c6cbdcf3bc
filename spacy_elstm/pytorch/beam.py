"""Beam search for the label-fed decoders (``seq2seq.Seq2SeqLabeller``) at
inference, over a batch in the packed layout (``packing.Packing``).

Each sequence keeps the ``width`` label prefixes of highest total log-probability
sum_t log p(y_t | y_<t, x). A step extends every kept prefix by every label and
keeps the ``width`` best extensions; the decoder's state follows its prefix. At
the first step only one prefix (the start symbol) is alive, so no two kept
prefixes are the same. All outputs have the same length (one label per decoder
step), so the totals need no length normalisation.

The output is, per step, the distribution of that step's label over the final
beam: each kept hypothesis weighted by its share of the beam's total probability,
p_beam(y_t = l) = sum_b softmax(score)_b [y_t^b = l], floored at ``FLOOR`` and
renormalised, as log-probabilities. Its argmax per step is the label the final
beam most believes in (minimum Bayes risk per step over the beam); with one
label per step and a beam that holds every sequence it is the exact marginal.
A parser's tree decoding reads these as it reads the greedy scores.

Rows: sequence-major, row ``s * width + b`` holds hypothesis b of the s-th
running sequence (packed order), so the first ``k * width`` rows are those of the
k sequences still running at a step, and the state shrinks by slicing as in
greedy decoding.
"""
from typing import Callable, Optional, Tuple

import torch
from torch import Tensor

from .packing import Packing

FLOOR = 1e-6  # the least beam probability of a label, so that every score is finite

# step(previous label ids (m,), h (m, N), c (m, N) or None, step t, memory rows (m,))
#   -> (log p (m, n_labels), h, c): one decoder step of m hypotheses
Step = Callable[[Tensor, Tensor, Optional[Tensor], int, Tensor],
                Tuple[Tensor, Tensor, Optional[Tensor]]]


def beam_search(step: Step, packing: Packing, h: Tensor, c: Optional[Tensor], *,
                width: int, n_labels: int) -> Tensor:
    """h, c: the decoder's initial state, one row per running sequence in packed
    order (c None for cells without a cell state). ``step`` is fed label ids
    (the labels' own ids, -1 for the start symbol). Returns the beam's per-step
    log-probabilities (n_tokens, n_labels), packed."""
    if not (isinstance(width, int) and width >= 1):
        raise ValueError(f"The beam width must be a positive integer, got {width!r}.")
    n_seq = packing.sizes[0] if packing.sizes else 0
    device = h.device
    if n_seq == 0:
        return h.new_zeros((0, n_labels))
    h = h.repeat_interleave(width, dim=0)
    c = None if c is None else c.repeat_interleave(width, dim=0)
    scores = torch.full((n_seq, width), float("-inf"), device=device, dtype=h.dtype)
    scores[:, 0] = 0.0  # one live prefix per sequence at the start
    previous = torch.full((n_seq * width,), -1, dtype=torch.int64, device=device)
    parents, labels = [], []
    for t, k in enumerate(packing.sizes):
        m = k * width
        rows = torch.arange(k, device=device).repeat_interleave(width)
        log_p, h, c = step(previous[:m], h[:m], None if c is None else c[:m], t, rows)
        total = (scores[:k].reshape(m, 1) + log_p.detach()).reshape(k, width * n_labels)
        # dead prefixes (-inf) stay dead: at the first step, with fewer labels
        # than beams, some kept extensions are dead, and weigh nothing at the end
        best, index = total.topk(width, dim=1)
        parent, label = index // n_labels, index % n_labels
        parents.append(parent)
        labels.append(label)
        scores = torch.cat([best, scores[k:]])
        follow = (torch.arange(k, device=device)[:, None] * width + parent).reshape(-1)
        h = h.index_select(0, follow)
        c = None if c is None else c.index_select(0, follow)
        previous = label.reshape(-1)
    return _beam_distribution(packing, scores, parents, labels, n_labels)


def _beam_distribution(packing: Packing, scores: Tensor, parents, labels,
                       n_labels: int) -> Tensor:
    """Trace every final hypothesis back through the steps and weigh its labels
    by softmax(final scores) (see the module docstring)."""
    n_seq, width = scores.shape
    device = scores.device
    weights = torch.softmax(scores, dim=1)  # (n_seq, width); dead beams weigh 0
    # the beam each final hypothesis occupies at the current step, going back
    at = torch.arange(width, device=device).expand(n_seq, width).clone()
    out = torch.zeros(packing.n_tokens, n_labels, device=device, dtype=scores.dtype)
    for t in range(len(packing.sizes) - 1, -1, -1):
        k = packing.sizes[t]
        label = labels[t].gather(1, at[:k])                          # (k, width)
        rows = out[packing.offsets[t]: packing.offsets[t] + k]
        rows.scatter_add_(1, label, weights[:k])
        at[:k] = parents[t].gather(1, at[:k])
    out = out.clamp_min(FLOOR)
    return torch.log(out / out.sum(dim=1, keepdim=True))
