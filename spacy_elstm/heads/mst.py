"""The highest-scoring dependency tree of a sentence: the maximum spanning
arborescence (Chu-Liu/Edmonds) rooted in an artificial ROOT, with exactly one
word attached to ROOT.

Scores are an (n, n + 1) matrix for n words: ``scores[i, j]`` scores head j
for word i, where head 0 is ROOT and head j >= 1 is word j - 1. The result is
one head per word in the same numbering (0 = ROOT).

Chu-Liu/Edmonds: every word takes its best head; if that makes no cycle, it is
the best arborescence. Otherwise a cycle C is contracted into one node c: an
arc from outside into c scores ``scores[d, h] - scores[d, head(d)]`` for the
best word d of C (entering C at d breaks d's cycle arc), an arc from c to a
word outside scores the best of C's words as its head; the best arborescence
of the smaller graph, expanded, is the best of the larger one.

It runs as Tarjan's dense version, iteratively: nodes (words, and contracted
cycles as they form) choose their best entering arc one after the other along
a path; a choice that closes a cycle on the path contracts it at once, its
row of entering scores the best of its members' adjusted rows. Each node
keeps one row of ``n + 1`` scores (a contracted node reuses a member's), and
each contraction records its members and their cycle arcs, so memory is
O(n^2) and time O(n^2) numpy work over at most 2n choices and n contractions,
however the cycles nest. Expanding goes from the last contraction to the
first: a contracted node's entering arc goes to the member holding its
dependent, every other member keeps its cycle arc.

One root: an unconstrained arborescence may attach several words to ROOT. A
penalty M larger than the score range of any two trees, subtracted from every
ROOT arc, makes each extra ROOT arc cost more than any tree can gain, so the
best arborescence of the penalised scores has exactly one ROOT arc and is the
best such tree of the original scores (every tree pays M once).

Ties go to the lowest head index at each choice; the result is one of the best
trees.

A batch (``batch_mst_heads``): most sentences of a trained parser need no
search, since every word's best head already makes a tree with one ROOT arc.
Where each word's best head (self-arcs excluded) is its only best one, and
these heads form a tree with one ROOT arc, that tree scores strictly more than
any other head assignment, so it is the one best one-root tree and the one
``mst_heads`` returns. The batch finds those sentences with numpy over all
words at once (row maxima by segment, the ROOT count per sentence, cycles by
pointer doubling) and runs ``mst_heads`` only on the others. A word with tied
best heads sends its sentence to ``mst_heads``, so ties are broken as there.
"Strictly more" holds in exact arithmetic on the given (float32) scores;
``mst_heads`` computes in float64, whose rounding, even after the ROOT penalty,
stays far below the spacing of float32 scores, so both give the same heads
(tests/test_mst.py checks this on random batches, ties and near-ties included).
"""
from typing import List, Sequence

import numpy

_UNSEEN, _ON_PATH, _DONE = 0, 1, 2


def mst_heads(scores) -> List[int]:
    """The heads (0 = ROOT, j = word j - 1) of the best tree with exactly one
    word attached to ROOT, for an (n, n + 1) score matrix (see the module)."""
    scores = numpy.asarray(scores, dtype="float64")
    n = scores.shape[0] if scores.ndim else 0
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
    return arborescence(graph)[1:].tolist()


def arborescence(graph: numpy.ndarray) -> numpy.ndarray:
    """The best arborescence rooted in node 0 of ``graph`` ((m, m), graph[d, h]
    the score of arc h -> d, -inf where there is none; every node but 0 needs
    a finite arc from node 0): heads[d] for every node, heads[0] = -1. ``graph``
    is not changed."""
    m = graph.shape[0]
    # rows[slot[v]]: the scores of the arcs into node v from each original node,
    # adjusted for v's inner cycle arcs; deps: the original dependent of each
    rows = numpy.array(graph, dtype="float64")
    deps = numpy.repeat(numpy.arange(m, dtype=numpy.int64)[:, None], m, axis=1)
    top = numpy.arange(m)  # the outermost node holding each original node
    size = 2 * m  # original nodes, then at most m - 1 contracted ones
    slot = numpy.arange(size)
    parent = numpy.full(size, -1)
    state = numpy.zeros(size, dtype=numpy.int8)
    position = numpy.zeros(size, dtype=numpy.int64)  # on the path
    enter_dep = numpy.full(size, -1)
    enter_head = numpy.full(size, -1)
    enter_score = numpy.zeros(size)
    members: List[numpy.ndarray] = []  # of node m + k, the k-th contraction
    state[0] = _DONE
    for start in range(1, m):
        v = int(top[start])
        if state[v] == _DONE:
            continue
        path: List[int] = []
        while True:
            row = rows[slot[v]]
            h = int(row.argmax())
            enter_dep[v], enter_head[v], enter_score[v] = deps[slot[v], h], h, row[h]
            position[v] = len(path)
            path.append(v)
            state[v] = _ON_PATH
            u = int(top[h])
            if state[u] == _DONE:
                break
            if state[u] == _UNSEEN:
                v = u
                continue
            # u is on the path: path[u..v] is a cycle, contract it into node c
            cycle = numpy.asarray(path[position[u]:])
            del path[position[u]:]
            c = m + len(members)
            members.append(cycle)
            parent[cycle] = c
            slots = slot[cycle]
            adjusted = rows[slots] - enter_score[cycle][:, None]
            best = adjusted.argmax(axis=0)
            columns = numpy.arange(m)
            slot[c] = slots[0]
            rows[slot[c]] = adjusted[best, columns]
            deps[slot[c]] = deps[slots[best], columns]
            in_cycle = numpy.zeros(size, dtype=bool)
            in_cycle[cycle] = True
            inside = in_cycle[top]  # the original nodes now in c
            top[inside] = c
            rows[slot[c], inside] = -numpy.inf
            v = c
        state[path] = _DONE
    return _expand(m, len(members), members, parent, enter_dep, enter_head)


def _expand(m: int, n_contracted: int, members, parent, enter_dep, enter_head) -> numpy.ndarray:
    """Each original node's head: from the last contraction to the first, a
    node's final entering arc goes down to the members holding its dependent,
    every other member keeps the arc it chose (its cycle arc)."""
    final_dep = numpy.full(m + n_contracted, -1)
    final_head = numpy.full(m + n_contracted, -1)
    for v in range(m + n_contracted - 1, 0, -1):
        if parent[v] == -1:  # outermost: its own choice is final
            final_dep[v], final_head[v] = enter_dep[v], enter_head[v]
        if v < m:
            continue
        d = int(final_dep[v])
        x = d
        while x != v and final_dep[x] == -1:
            final_dep[x], final_head[x] = d, final_head[v]
            x = int(parent[x])
        for member in members[v - m]:
            if final_dep[member] == -1:
                final_dep[member], final_head[member] = enter_dep[member], enter_head[member]
    heads = final_head[:m].copy()
    heads[0] = -1
    return heads


def batch_mst_heads(flat, lengths: Sequence[int]) -> numpy.ndarray:
    """The heads (0 = ROOT, j = word j - 1 of its sentence) of every word of a
    batch of sentences, as ``mst_heads`` gives them sentence by sentence:
    ``flat`` holds the sentences' (n, n + 1) score matrices one after another,
    each row by row (``numpy.concatenate([s.ravel() for s in scores])``), and
    ``lengths`` their word counts. Returns an int64 array over the words."""
    flat = numpy.asarray(flat)
    lengths = numpy.asarray(lengths, dtype="int64").reshape(-1)
    sizes = lengths * (lengths + 1)
    if flat.ndim != 1 or flat.shape[0] != int(sizes.sum()) or (lengths < 0).any():
        raise ValueError(f"batch_mst_heads needs the sentences' (n, n + 1) scores flattened "
                         f"into one array of {int(sizes.sum())} numbers for lengths "
                         f"{lengths.tolist()[:10]}, got shape {flat.shape}.")
    cell_starts = numpy.cumsum(sizes) - sizes
    heads, greedy = greedy_heads(flat, lengths) if numpy.isfinite(flat).all() else (
        numpy.zeros(int(lengths.sum()), dtype="int64"), numpy.zeros(len(lengths), dtype=bool))
    word_starts = numpy.cumsum(lengths) - lengths
    for s in numpy.flatnonzero(~greedy & (lengths > 0)):
        n, cell = int(lengths[s]), int(cell_starts[s])
        sentence = flat[cell:cell + n * (n + 1)].reshape(n, n + 1)
        heads[word_starts[s]:word_starts[s] + n] = mst_heads(sentence)
    return heads


def greedy_heads(flat: numpy.ndarray, lengths: numpy.ndarray):
    """Each word's best head other than itself (the lowest index among ties)
    over a batch flattened as for ``batch_mst_heads`` (finite scores), and per
    sentence whether these heads are its one best one-root tree: each word's
    best head is unique and they form a tree with one ROOT arc."""
    n_words = int(lengths.sum())
    sentence = numpy.repeat(numpy.arange(len(lengths)), lengths)
    if n_words == 0:
        return numpy.zeros(0, dtype="int64"), lengths == 0
    n = lengths[sentence]  # of each word's sentence
    word_starts = numpy.cumsum(lengths) - lengths
    position = numpy.arange(n_words) - word_starts[sentence]
    sizes = lengths * (lengths + 1)
    row_starts = (numpy.cumsum(sizes) - sizes)[sentence] + position * (n + 1)
    scores = flat.copy()
    scores[row_starts + position + 1] = -numpy.inf  # no word heads itself
    best = numpy.maximum.reduceat(scores, row_starts)
    row_lengths = n + 1
    hits = numpy.flatnonzero(scores == numpy.repeat(best, row_lengths))
    # every row has at least one hit (its maximum), and the hits come in row order
    row_of_hit = numpy.repeat(numpy.arange(n_words), row_lengths)[hits]
    first = numpy.ones(len(hits), dtype=bool)
    first[1:] = row_of_hit[1:] != row_of_hit[:-1]
    heads = (hits[first] - row_starts).astype("int64")
    unique = numpy.bincount(row_of_hit, minlength=n_words) == 1
    # pointer doubling over the batch's words, ROOT a sink at index n_words
    parent = numpy.append(numpy.where(heads == 0, n_words,
                                      word_starts[sentence] + heads - 1), n_words)
    steps = 1
    while steps < int(lengths.max()) + 1:
        parent = parent[parent]
        steps *= 2
    reaches_root = parent[:n_words] == n_words
    n_sents = len(lengths)
    bad_words = numpy.bincount(sentence, weights=~(unique & reaches_root), minlength=n_sents)
    roots = numpy.bincount(sentence, weights=heads == 0, minlength=n_sents)
    return heads, (bad_words == 0) & (roots == 1)
