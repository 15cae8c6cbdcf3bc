"""Where ``ELSTMBiaffineParser.predict`` spends its time, and the batch
decoder against the sentence-by-sentence one it replaced, in the same run on
the same scores: a trained pipeline's elstm_biaffine_parser over a DocBin's
words (gold tokenisation), once as one doc per sentence (as ``spacy evaluate``
with gold_preproc reads it) and once as whole docs without sentence
boundaries (as raw text reaches a parser: each doc is one long "sentence").

    python -m lab.bench_biaffine_decoding MODEL DEV.spacy --output metrics/bench-biaffine-decoding.json

The components before the parser run once per batch (outside the timing), so
the parser's tok2vec listener reads their vectors; then, in interleaved rounds
(median kept): the scorer (``model.predict``), the old decoder (each
sentence's scores to the host and ``mst_heads``), the batch decoder
(``decode_heads``), the labels at the decoded heads old (the argmax of
``labels``) and new (``best_labels``, from the head side), and the whole
``predict`` old and new. The old and new heads must be identical on every doc,
or the run fails; the labels differing (by float rounding in a near-tie) are
counted.
"""
import argparse
import json
import platform
import time
from pathlib import Path

import numpy


def predict_sentence_by_sentence(parser, docs):
    """The parser's ``predict`` before the batch decoder."""
    from spacy_elstm.heads.mst import mst_heads
    from spacy_elstm.layers.biaffine import sentence_lengths

    scores = parser.model.predict(docs)
    to_numpy = parser.model.ops.to_numpy
    sentences = [numpy.asarray(mst_heads(to_numpy(arcs)), dtype="int64") for arcs in scores.arcs]
    heads = numpy.concatenate(sentences) if sentences else numpy.zeros(0, "int64")
    labels = to_numpy(scores.labels(heads)).argmax(-1) if len(heads) else heads
    parses, s, w = [], 0, 0
    for doc in docs:
        doc_heads, start = numpy.zeros(len(doc), dtype="int64"), 0
        for n in sentence_lengths(doc):
            doc_heads[start:start + n] = start + numpy.where(sentences[s] == 0, numpy.arange(n),
                                                             sentences[s] - 1)
            start, s = start + n, s + 1
        parses.append((doc_heads, labels[w:w + len(doc)].astype("int64")))
        w += len(doc)
    return parses


def _batches(nlp, parser_name, docs, batch_size):
    """The docs in batches, annotated by every component before the parser."""
    batches = []
    for i in range(0, len(docs), batch_size):
        batch = docs[i:i + batch_size]
        for name, component in nlp.pipeline:
            if name == parser_name:
                break
            batch = list(component.pipe(batch, batch_size=batch_size))
        batches.append(batch)
    return batches


def measure(nlp, parser_name, docs, *, batch_size, repeats):
    from spacy_elstm.benchmarks.timing import interleaved_median_seconds
    from spacy_elstm.components.elstm_biaffine_parser import decode_heads
    from spacy_elstm.heads.mst import greedy_heads, mst_heads

    import torch

    parser = nlp.get_pipe(parser_name)
    ops = parser.model.ops
    batches = _batches(nlp, parser_name, docs, batch_size)
    scores = [parser.model.predict(batch) for batch in batches]
    heads = [decode_heads(ops, s) for s in scores]
    n_fast = n_sents = 0
    for s in scores:
        flat = ops.to_numpy(ops.xp.concatenate([a.ravel() for a in s.arcs]))
        fast = greedy_heads(flat, numpy.asarray(s.lengths))[1]
        n_fast += int(fast.sum())
        n_sents += len(fast)
    labels_differing = 0
    for batch in batches:
        for (h, l), (h2, l2) in zip(parser.predict(batch),
                                    predict_sentence_by_sentence(parser, batch)):
            if h.tolist() != h2.tolist():
                raise SystemExit("the batch decoder's heads differ from the old one's")
            labels_differing += int((l != l2).sum())

    def each(fn, items):
        return lambda: [fn(item) for item in items]

    def old_decode(s):
        return [mst_heads(ops.to_numpy(arcs)) for arcs in s.arcs]

    def label_argmax(pair):
        s, h = pair
        return ops.to_numpy(s.labels(h)).argmax(-1)

    def best_labels(pair):
        s, h = pair
        return ops.to_numpy(s.best_labels(h))

    fns = {
        "scores": each(parser.model.predict, batches),
        "decode_old": each(old_decode, scores),
        "decode_new": each(lambda s: decode_heads(ops, s), scores),
        "labels_old": each(label_argmax, list(zip(scores, heads))),
        "labels_new": each(best_labels, list(zip(scores, heads))),
        "predict_old": each(lambda b: predict_sentence_by_sentence(parser, b), batches),
        "predict_new": each(parser.predict, batches),
    }
    seconds = interleaved_median_seconds(fns, device=torch.device("cpu"), repeats=repeats)
    n_words = sum(len(doc) for doc in docs)
    return {
        "docs": len(docs), "sentences": n_sents, "words": n_words,
        "greedy_one_root_trees": n_fast, "greedy_share": round(n_fast / max(1, n_sents), 4),
        "identical_heads": True, "labels_differing": labels_differing,
        "seconds": {k: round(v, 4) for k, v in seconds.items()},
        "share_of_old_predict": {k: round(seconds[k] / seconds["predict_old"], 3)
                                 for k in ("scores", "decode_old", "labels_old")},
        "share_of_new_predict": {k: round(seconds[k] / seconds["predict_new"], 3)
                                 for k in ("scores", "decode_new", "labels_new")},
        "decode_speedup": round(seconds["decode_old"] / seconds["decode_new"], 2),
        "labels_speedup": round(seconds["labels_old"] / seconds["labels_new"], 2),
        "predict_speedup": round(seconds["predict_old"] / seconds["predict_new"], 2),
        "words_per_second_old": round(n_words / seconds["predict_old"]),
        "words_per_second_new": round(n_words / seconds["predict_new"]),
    }


def main(argv=None):
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("model", help="a pipeline with an elstm_biaffine_parser")
    args.add_argument("corpus", help="a .spacy DocBin (its words are parsed)")
    args.add_argument("--output", type=Path, help="write the results as JSON here")
    args.add_argument("--model-name", help="how the JSON names the model (default: its path)")
    args.add_argument("--batch-size", type=int, default=256)
    args.add_argument("--repeats", type=int, default=3)
    args.add_argument("--limit", type=int, default=0, help="only the first N docs")
    opts = args.parse_args(argv)

    import spacy
    import torch
    from spacy.tokens import Doc, DocBin

    from spacy_elstm.benchmarks.timing import cpu_model

    nlp = spacy.load(opts.model)
    names = [name for name, c in nlp.pipeline if c.__class__.__name__ == "ELSTMBiaffineParser"]
    if not names:
        raise SystemExit(f"{opts.model} has no elstm_biaffine_parser (components: "
                         f"{', '.join(nlp.pipe_names)}).")
    gold = list(DocBin().from_disk(opts.corpus).get_docs(nlp.vocab))
    if opts.limit:
        gold = gold[:opts.limit]
    setups = {
        "sentences": [Doc(nlp.vocab, words=[t.text for t in s]) for d in gold for s in d.sents],
        "docs": [Doc(nlp.vocab, words=[t.text for t in d]) for d in gold],
    }
    results = {}
    for setup, docs in setups.items():
        start = time.perf_counter()
        results[setup] = measure(nlp, names[0], docs, batch_size=opts.batch_size,
                                 repeats=opts.repeats)
        print(f"{setup}: {json.dumps(results[setup])} ({time.perf_counter() - start:.0f} s)",
              flush=True)
    payload = {
        "what": "ELSTMBiaffineParser.predict: the scorer, the old sentence-by-sentence decoder "
                "and the batch decoder, the labels old (argmax of all scores) and new (from "
                "the head side); medians of interleaved rounds in one run",
        "model": opts.model_name or str(opts.model),
        "corpus": Path(opts.corpus).name,
        "batch_size": opts.batch_size, "repeats": opts.repeats,
        "environment": {"torch": torch.__version__, "threads": torch.get_num_threads(),
                        "cpu": cpu_model(), "python": platform.python_version()},
        "results": results,
    }
    if opts.output:
        from spacy_elstm.files import write_atomically

        write_atomically(opts.output, json.dumps(payload, indent=2).encode())
        print(f"wrote {opts.output}")


if __name__ == "__main__":
    main()
