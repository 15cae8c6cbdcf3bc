"""Peak memory of the elstm_biaffine_parser on long sentences, and the time of
the tree decoder on a long adversarial sentence (issue 30, items 2 and 3).

    python scripts/biaffine_memory.py long     # one 350-token doc (one sentence)
    python scripts/biaffine_memory.py mixed    # 255 short sentences + the 350-token doc, one nlp.pipe call
    python scripts/biaffine_memory.py mst 2000 # mst_heads on 2,000 words of paired 2-cycles
    python scripts/biaffine_memory.py nested 2000  # ... of 1,999 cycles nested in one another

The parser has the default model's sizes (arc_width 500, label_width 100, a
HashEmbedCNN tok2vec of width 96) and 48 relations, untrained: memory does not
depend on the weights. Prints the process's peak resident memory (ru_maxrss)
before and after the run; `--limit-gb G` runs under an address-space limit.
"""
import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _parser(n_labels: int = 48):
    import spacy
    from spacy.tokens import Doc
    from spacy.training import Example

    nlp = spacy.blank("en")
    parser = nlp.add_pipe("elstm_biaffine_parser")
    words = ["w"] * 4
    example = Example.from_dict(Doc(nlp.vocab, words=words),
                                {"heads": [1, 1, 1, 1], "deps": ["a", "ROOT", "b", "c"]})
    parser.initialize(lambda: [example], nlp=nlp, labels=[f"rel{i}" for i in range(n_labels)])
    return nlp


def _texts(kind: str):
    long = " ".join(f"word{i % 97}" for i in range(350))
    if kind == "long":
        return [long]
    return [f"short sentence number {i} with a few words" for i in range(255)] + [long]


def adversarial_scores(n: int, seed: int = 0):
    """(n, n + 1) scores where every word's best head is its pair's other word
    (paired 2-cycles), the second best the next pair's: every contraction meets
    a new cycle."""
    import numpy

    rng = numpy.random.default_rng(seed)
    scores = rng.normal(size=(n, n + 1))
    words = numpy.arange(n)
    partner = words ^ 1
    partner[partner >= n] = words[partner >= n]
    scores[words, partner + 1] += 20
    scores[words, (words + 2) % n + 1] += 10
    scores[words, words + 1] = -1e3  # a word is never its own head
    return scores


def nested_scores(n: int):
    """Word i's best head is word i + 1, the last word's the one before it,
    heads further away score less: n - 1 contractions, each inside the next."""
    import numpy

    words = numpy.arange(n)
    scores = numpy.zeros((n, n + 1))
    scores[:, 1:] = -numpy.abs(words[:, None] - words[None, :]).astype(float)
    scores[words[:-1], words[:-1] + 2] += 5
    scores[n - 1, n - 1] += 5
    scores[:, 0] = -n
    return scores


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["long", "mixed", "mst", "nested"])
    parser.add_argument("n", nargs="?", type=int, default=2000)
    parser.add_argument("--limit-gb", type=float, default=None)
    args = parser.parse_args()
    if args.limit_gb:
        limit = int(args.limit_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if args.what in ("mst", "nested"):
        from spacy_elstm.heads.mst import mst_heads

        print(sys.modules["spacy_elstm"].__file__)
        scores = (adversarial_scores if args.what == "mst" else nested_scores)(args.n)
        before = _peak_mb()
        start = time.perf_counter()
        heads = mst_heads(scores)
        seconds = time.perf_counter() - start
        print(f"{args.what} n={args.n}: {seconds:.2f} s, peak RSS {before:.0f} -> {_peak_mb():.0f} MB, "
              f"{sum(h == 0 for h in heads)} root")
        return
    nlp = _parser()
    list(nlp.pipe(["warm up"]))
    before = _peak_mb()
    start = time.perf_counter()
    docs = list(nlp.pipe(_texts(args.what), batch_size=256))
    seconds = time.perf_counter() - start
    print(f"{args.what}: {len(docs)} docs, {sum(len(d) for d in docs)} tokens, {seconds:.2f} s, "
          f"peak RSS {before:.0f} -> {_peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
