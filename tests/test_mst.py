"""The tree decoder (spacy_elstm.heads.mst): the best tree with one root, by
brute force on small sentences, and long adversarial sentences in bounded
memory without recursion; the batch decoder gives the per-sentence decoder's
heads, its greedy fast path included."""
import itertools
import subprocess
import sys
import textwrap
from functools import lru_cache

import numpy
import pytest

from spacy_elstm.heads import is_tree
from spacy_elstm.heads.mst import batch_mst_heads, greedy_heads, mst_heads


def _tree_score(scores, heads):
    return float(scores[numpy.arange(len(heads)), heads].sum())


def _as_spacy_heads(heads):
    """0 = ROOT, j = word j - 1  ->  a root is its own head (heads.is_tree's form)."""
    return [i if h == 0 else h - 1 for i, h in enumerate(heads)]


def _is_one_root_tree(heads):
    return sum(h == 0 for h in heads) == 1 and is_tree(_as_spacy_heads(heads))


@lru_cache(maxsize=None)
def _all_trees(n):
    """Every head list (0 = ROOT) of n words that is a tree with one ROOT arc,
    as an (n_trees, n) array: all (n + 1)^n lists, kept where following the
    heads from every word reaches ROOT within n steps."""
    heads = numpy.array(list(itertools.product(range(n + 1), repeat=n)), dtype=int)
    one_root = (heads == 0).sum(axis=1) == 1
    node = numpy.tile(numpy.arange(1, n + 1), (len(heads), 1))  # node j = word j - 1
    rows = numpy.arange(len(heads))[:, None]
    for _ in range(n):
        node = numpy.where(node == 0, 0, heads[rows, numpy.maximum(node - 1, 0)])
    return heads[one_root & (node == 0).all(axis=1)]


def test_the_tree_enumeration_is_complete():
    # Cayley: n^(n-1) trees over n words with one word under ROOT
    assert [len(_all_trees(n)) for n in range(1, 7)] == [n ** (n - 1) for n in range(1, 7)]


@pytest.mark.parametrize("n", range(1, 7))
def test_mst_is_the_best_one_root_tree_by_brute_force(n):
    trees = _all_trees(n)
    rng = numpy.random.default_rng(n)
    for trial in range(200 if n < 6 else 60):
        if trial % 4 == 0:  # ties everywhere
            scores = rng.integers(0, 3, size=(n, n + 1)).astype(float)
        elif trial % 4 == 1:  # every word prefers ROOT
            scores = rng.normal(size=(n, n + 1))
            scores[:, 0] += 10
        else:
            scores = rng.normal(size=(n, n + 1)) * (100 if trial % 4 == 3 else 1)
        heads = mst_heads(scores)
        assert _is_one_root_tree(heads), (scores, heads)
        best = scores[numpy.arange(n), trees].sum(axis=1).max()
        assert _tree_score(scores, heads) == pytest.approx(best, abs=1e-9), scores
        assert batch_mst_heads(scores.ravel(), [n]).tolist() == heads


def test_mst_is_always_a_tree():
    rng = numpy.random.default_rng(1)
    for trial in range(300):
        n = int(rng.integers(1, 40))
        if trial % 3 == 0:  # ties everywhere
            scores = rng.integers(0, 3, size=(n, n + 1)).astype(float)
        elif trial % 3 == 1:  # every word prefers ROOT
            scores = rng.normal(size=(n, n + 1))
            scores[:, 0] += 10
        else:
            scores = rng.normal(size=(n, n + 1)) * 100
        assert _is_one_root_tree(mst_heads(scores))
    assert mst_heads(numpy.zeros((0, 1))) == []


def test_mst_finds_a_non_projective_tree():
    # "A hearing is scheduled on the issue today": "on" attaches to "hearing"
    # across "is scheduled" (0 = ROOT, j = word j - 1)
    gold = [2, 4, 4, 0, 2, 7, 5, 4]
    scores = numpy.random.default_rng(2).normal(size=(8, 9))
    scores[numpy.arange(8), gold] += 10
    assert mst_heads(scores) == gold


def test_mst_refuses_bad_scores():
    with pytest.raises(ValueError, match=r"\(n, n \+ 1\) score matrix, got shape \(3, 3\)"):
        mst_heads(numpy.zeros((3, 3)))
    with pytest.raises(ValueError, match="finite"):
        mst_heads(numpy.array([[0.0, numpy.nan]]))


def paired_cycles(n, seed=0):
    """Every word's best head is its pair's other word (n / 2 2-cycles), the
    second best a word of the next pair: the pairs, contracted, make one more
    cycle of n / 2 nodes."""
    rng = numpy.random.default_rng(seed)
    scores = rng.normal(size=(n, n + 1))
    words = numpy.arange(n)
    partner = numpy.minimum(words ^ 1, n - 1)
    scores[words, partner + 1] += 20
    scores[words, (words + 2) % n + 1] += 10
    return scores


def nested_cycles(n):
    """Word i's best head is word i + 1, the last word's the one before it,
    and heads further away score less: every contraction makes a 2-cycle
    with the next word, n - 1 contractions nested in one another."""
    words = numpy.arange(n)
    scores = numpy.zeros((n, n + 1))
    scores[:, 1:] = -numpy.abs(words[:, None] - words[None, :]).astype(float)
    scores[words[:-1], words[:-1] + 2] += 5
    scores[n - 1, n - 1] += 5
    scores[:, 0] = -n
    return scores


def test_the_adversarial_scores_give_the_expected_trees():
    # small enough for brute force: the decoder's tree is the best one
    for scores in (paired_cycles(6), nested_cycles(6)):
        best = scores[numpy.arange(6), _all_trees(6)].sum(axis=1).max()
        assert _tree_score(scores, mst_heads(scores)) == pytest.approx(best)


def test_long_adversarial_sentences_decode_within_1_gb():
    """2,000 words of paired 2-cycles and 1,100 words of nested ones, in a
    process allowed 1 GiB of address space beyond what its imports took: the
    recursive decoder kept every contracted graph alive (O(n^3), 7 GB for
    n = 1990) and recursed once per contraction (RecursionError from ~1,000
    nested ones)."""
    code = textwrap.dedent(f"""
        import resource, sys
        sys.path.insert(0, {str(__file__.rsplit('/', 1)[0])!r})
        from test_mst import paired_cycles, nested_cycles, _is_one_root_tree
        from spacy_elstm.heads.mst import batch_mst_heads, greedy_heads, mst_heads
        size = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (size + 2 ** 30, size + 2 ** 30))
        for scores in (paired_cycles(2000), nested_cycles(1100)):
            heads = mst_heads(scores)
            assert _is_one_root_tree(heads)
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-2000:]


def _flat(sentences):
    return numpy.concatenate([s.ravel() for s in sentences]) if sentences else numpy.zeros(0)


def _random_sentence(rng, n, kind):
    """float32 scores as the parser gives them, of several kinds: a planted
    tree whose greedy heads are it (the fast path), noise (mostly cycles or
    several roots), ties everywhere, and near-ties (a planted tree whose heads
    beat another head by one float32 step)."""
    if kind == "ties":
        return rng.integers(0, 3, size=(n, n + 1)).astype("float32")
    scores = rng.normal(size=(n, n + 1)).astype("float32")
    if kind == "noise":
        return scores
    order = rng.permutation(n)  # a random tree: each word's head an earlier word in order
    heads = numpy.zeros(n, dtype=int)
    for k in range(1, n):
        heads[order[k]] = order[rng.integers(0, k)] + 1
    rows = numpy.arange(n)
    if kind == "tree":
        scores[rows, heads] += 5
    elif kind == "near-tie":
        scores[rows, heads] = scores.max(axis=1) + 1
        rival = (heads + 1 + rng.integers(0, n, size=n)) % (n + 1)
        ok = rival != rows + 1
        scores[rows[ok], rival[ok]] = numpy.nextafter(scores[rows[ok], heads[ok]],
                                                      numpy.float32(-numpy.inf))
    return scores


@pytest.mark.parametrize("kind", ["tree", "noise", "ties", "near-tie", "mixed"])
def test_the_batch_decoder_gives_the_sentence_decoders_heads(kind):
    rng = numpy.random.default_rng(["tree", "noise", "ties", "near-tie", "mixed"].index(kind))
    kinds = ["tree", "noise", "ties", "near-tie"]
    for trial in range(40):
        lengths = rng.integers(0 if trial % 5 == 0 else 1, 30, size=int(rng.integers(1, 12)))
        sentences = [_random_sentence(rng, int(n), kind if kind != "mixed" else kinds[k % 4])
                     for k, n in enumerate(lengths)]
        expected = [h for s in sentences if len(s) for h in mst_heads(s)]
        assert batch_mst_heads(_flat(sentences), lengths).tolist() == expected


def test_the_fast_path_takes_exactly_the_unique_greedy_trees():
    # one ROOT arc, a tree: taken; then a tie, a cycle, two roots: left to mst_heads
    tree = numpy.full((3, 4), -1.0, dtype="float32")
    tree[[0, 1, 2], [2, 0, 2]] = 1.0  # word 0 <- word 1 <- ROOT, word 2 <- word 1
    tie = tree.copy()
    tie[0, 3] = 1.0  # word 0 may also take word 2
    cycle = tree.copy()
    cycle[1, 0], cycle[1, 1] = -1.0, 1.0  # words 0 and 1 head each other
    two_roots = tree.copy()
    two_roots[2, 2], two_roots[2, 0] = -1.0, 1.0
    self_loop = tree.copy()
    self_loop[0, 1] = 9.0  # a word's own column is never its head
    sentences = [tree, tie, cycle, two_roots, self_loop]
    heads, greedy = greedy_heads(_flat(sentences), numpy.array([3] * 5))
    assert greedy.tolist() == [True, False, False, False, True]
    assert heads[:3].tolist() == [2, 0, 2] and heads[12:].tolist() == [2, 0, 2]
    assert heads[3:6].tolist() == [2, 0, 2]  # the lowest index among tied heads
    assert batch_mst_heads(_flat(sentences), [3] * 5)[:3].tolist() == [2, 0, 2]


def test_the_batch_decoder_refuses_bad_scores():
    with pytest.raises(ValueError, match="flattened into one array of 6 numbers"):
        batch_mst_heads(numpy.zeros(5), [2])
    with pytest.raises(ValueError, match="finite"):
        batch_mst_heads(numpy.array([0.0, numpy.nan]), [1])
    assert batch_mst_heads(numpy.zeros(0), []).tolist() == []
    assert batch_mst_heads(numpy.zeros(0), [0, 0]).tolist() == []
