"""The highest-scoring dependency tree of a sentence: the maximum spanning
arborescence (Chu-Liu/Edmonds) rooted in an artificial ROOT, with exactly one
word attached to ROOT.

Scores are an (n, n + 1) matrix for n words: ``scores[i, j]`` scores head j
for word i, where head 0 is ROOT and head j >= 1 is word j - 1. The result is
one head per word in the same numbering (0 = ROOT).

Chu-Liu/Edmonds: every word takes its best head; if that makes no cycle, it is
the best arborescence. Otherwise the cycle C is contracted into one node c: an
arc from outside into c scores ``scores[d, h] - scores[d, head(d)]`` for the
best word d of C (entering C at d breaks d's cycle arc), an arc from c to a
word outside scores the best of C's words as its head; the best arborescence
of the smaller graph, expanded, is the best of the larger one.

One root: an unconstrained arborescence may attach several words to ROOT. A
penalty M larger than the score range of any two trees, subtracted from every
ROOT arc, makes each extra ROOT arc cost more than any tree can gain, so the
best arborescence of the penalised scores has exactly one ROOT arc and is the
best such tree of the original scores (every tree pays M once).
"""
from typing import List

import numpy

from .decoding import cycles


def mst_heads(scores) -> List[int]:
    """The heads (0 = ROOT, j = word j - 1) of the best tree with exactly one
    word attached to ROOT, for an (n, n + 1) score matrix (see the module)."""
    scores = numpy.asarray(scores, dtype="float64")
    n = scores.shape[0]
    if scores.ndim != 2 or scores.shape[1] != n + 1:
        raise ValueError(f"mst_heads needs an (n, n + 1) score matrix, got shape "
                         f"{scores.shape}.")
    if n == 0:
        return []
    if not numpy.isfinite(scores).all():
        raise ValueError("mst_heads needs finite scores; got NaN or inf.")
    # graph[d, h] for nodes 0..n (0 = ROOT); ROOT has no head and no word heads itself
    graph = numpy.full((n + 1, n + 1), -numpy.inf)
    graph[1:, :] = scores
    graph[numpy.arange(n + 1), numpy.arange(n + 1)] = -numpy.inf
    penalty = n * float(scores.max() - scores.min()) + 1.0
    graph[1:, 0] -= penalty
    heads = _arborescence(graph)
    return [int(h) for h in heads[1:]]


def _arborescence(graph: numpy.ndarray) -> numpy.ndarray:
    """The best arborescence rooted in node 0 of ``graph`` ((m, m), graph[d, h]
    the score of arc h -> d, -inf where there is none): heads[d] for every node,
    heads[0] = -1."""
    heads = graph.argmax(axis=1)
    heads[0] = -1
    found = cycles(heads, 0)  # node 0, the root, has no head to follow
    if not found:
        return heads
    cycle = found[0]
    m = graph.shape[0]
    in_cycle = numpy.zeros(m, dtype=bool)
    in_cycle[cycle] = True
    rest = numpy.flatnonzero(~in_cycle)  # node 0 is never in a cycle
    cyc = numpy.asarray(cycle)
    c = len(rest)  # the contracted node's index in the smaller graph
    small = numpy.full((c + 1, c + 1), -numpy.inf)
    small[:c, :c] = graph[numpy.ix_(rest, rest)]
    # arcs out of the cycle: the best word of C as head, for each word outside
    out_scores = graph[numpy.ix_(rest, cyc)]
    best_head_in_cycle = cyc[out_scores.argmax(axis=1)]
    small[:c, c] = out_scores.max(axis=1)
    # arcs into the cycle: entering at d replaces d's cycle arc
    gain = graph[numpy.ix_(cyc, rest)] - graph[cyc, heads[cyc]][:, None]
    entry = cyc[gain.argmax(axis=0)]
    small[c, :c] = gain.max(axis=0)
    small[0, :] = -numpy.inf  # ROOT (rest[0] == 0) takes no head
    small_heads = _arborescence(small)
    # expand
    result = heads.copy()  # the cycle's words keep their cycle arcs, but for one
    for k, node in enumerate(rest[1:], start=1):
        h = small_heads[k]
        result[node] = best_head_in_cycle[k] if h == c else rest[h]
    h = small_heads[c]
    result[entry[h]] = rest[h]
    result[0] = -1
    return result
