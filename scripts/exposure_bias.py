"""How much a label-fed model (seq2seq, with or without attention) loses to its
own earlier mistakes: the accuracy of its most probable label at each step when
it is fed the gold previous labels (teacher forcing, as in training) and when it
is fed its own greedy predictions (as at inference, what the official scores
measure). The gap is the exposure bias of greedy decoding.

Reads the pipeline's own dev reader (so a paper-settings pipeline gets its gold
lemmas), runs the component named (elstm_tagger or elstm_seq_parser) both ways
on the same docs, and writes the accuracies as JSON. For the interleaved parsing
target the two steps of each word (relation, head position) are counted apart.

Usage (from the project root):
    python scripts/exposure_bias.py PIPELINE DEV.spacy OUTPUT.json [--component NAME]
        [--batch-size 64]
"""
import argparse
import json
import sys
from pathlib import Path

import numpy
import spacy
from spacy.schemas import ConfigSchemaTraining
from spacy.util import registry, resolve_dot_names

from spacy_elstm.layers import set_teacher


def accuracies(pipe, examples, batch_size):
    """{step name: (teacher-forced correct, greedy correct, labelled)}."""
    n = len(pipe.labels)
    counts = {}
    for start in range(0, len(examples), batch_size):
        batch = examples[start:start + batch_size]
        docs = [eg.predicted for eg in batch]
        ids = [pipe._label_ids(pipe._gold(eg)) for eg in batch]
        set_teacher(pipe.model, ids)
        forced, _ = pipe.model.begin_update(docs)
        greedy = pipe.model.predict(docs)
        for doc_ids, f, g in zip(ids, forced, greedy):
            gold = numpy.asarray(doc_ids)
            f, g = pipe.model.ops.to_numpy(f), pipe.model.ops.to_numpy(g)
            keep = gold >= 0
            if f.shape[1] == 2 * n:  # interleaved: gold a * n + b, steps a then b
                steps = {"relation": (gold // n, slice(0, n)),
                         "head position": (gold % n, slice(n, 2 * n))}
            else:
                steps = {"label": (gold, slice(0, n))}
            for name, (target, cols) in steps.items():
                right_f = (f[:, cols].argmax(1) == target)[keep].sum()
                right_g = (g[:, cols].argmax(1) == target)[keep].sum()
                c = counts.setdefault(name, [0, 0, 0])
                c[0] += int(right_f)
                c[1] += int(right_g)
                c[2] += int(keep.sum())
    return counts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pipeline")
    parser.add_argument("dev", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--component", default=None)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args(argv)
    nlp = spacy.load(args.pipeline)
    name = args.component or next((n for n in ("elstm_seq_parser", "elstm_tagger")
                                   if n in nlp.pipe_names), None)
    if name is None or name not in nlp.pipe_names:
        sys.exit(f"no component {name!r} in {args.pipeline} (it has {nlp.pipe_names})")
    pipe = nlp.get_pipe(name)
    if not pipe.model.attrs.get("needs_gold"):
        sys.exit(f"{name}'s model is not fed its previous labels: nothing to compare")
    config = nlp.config.copy()
    config["paths"]["dev"] = str(args.dev)
    config = config.interpolate()
    training = registry.resolve(config["training"], schema=ConfigSchemaTraining)
    section, _, dev_key = training["dev_corpus"].rpartition(".")
    readers = config[section]
    if "path" in readers[dev_key]:  # a config saved with its paths filled in
        readers[dev_key]["path"] = str(args.dev)
    for reader in readers.values():  # the section is resolved whole: no None paths
        if isinstance(reader, dict) and "path" in reader and reader["path"] is None:
            reader["path"] = str(args.dev)
    (corpus,) = resolve_dot_names(config, [training["dev_corpus"]])
    examples = list(corpus(nlp))
    for other in nlp.pipe_names[:nlp.pipe_names.index(name)]:
        for eg in examples:
            eg.predicted = nlp.get_pipe(other)(eg.predicted)
    counts = accuracies(pipe, examples, args.batch_size)
    result = {"pipeline": str(args.pipeline), "data": args.dev.name, "component": name,
              "sentences": len(examples),
              "steps": {k: {"teacher_forced": 100 * f / n, "greedy": 100 * g / n, "labelled": n}
                        for k, (f, g, n) in counts.items()}}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    for k, v in result["steps"].items():
        print(f"{k}: teacher-forced {v['teacher_forced']:.2f}, greedy {v['greedy']:.2f} "
              f"({v['labelled']:,} labelled)")


if __name__ == "__main__":
    main()
