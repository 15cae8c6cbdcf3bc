"""Words per second of whole pipelines on raw text, in one process: each
trained pipeline as it is (its learned tokenizer and sentence splitter), the
same without `elstm_senter`, and the same with spaCy's English rule tokenizer
in place of its tokenizer and without `elstm_senter`, on the raw text of a
split's documents, rounds interleaved, one thread.

    python -m lab.raw_speed NAME=PIPELINE ... [--split dev] [--rounds 3] [--output metrics/bench-raw.json]
"""
import argparse
import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any, Dict, List

import spacy
import torch

from spacy_elstm.files import write_json
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.text.treebank_tokenizer import default_rules

CONLLU = "assets/UD_English-EWT/en_ewt-ud-{split}.conllu"


def variants(path: Path) -> Dict[str, Any]:
    """The pipeline as trained; without its elstm_senter (the parser splits
    sentences); and with spaCy's rule tokenizer and no elstm_senter."""
    learned = spacy.load(path)
    no_senter = spacy.load(path, exclude=["elstm_senter"])
    rules = spacy.load(path, exclude=["elstm_senter"])
    rules.tokenizer = default_rules(rules)
    return {"learned": learned, "learned_without_senter": no_senter, "spacy_rules": rules}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipelines", nargs="+", metavar="NAME=PIPELINE")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--output", type=Path, default=Path("metrics/bench-raw.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    texts = [d.text for d in raw_documents(CONLLU.format(split=args.split))]
    runs = {}
    for spec in args.pipelines:
        name, _, path = spec.partition("=")
        for kind, nlp in variants(Path(path)).items():
            runs[(name, kind)] = nlp
    for nlp in runs.values():  # a first pass: kernels compiled, caches warm
        list(nlp.pipe(texts[:5], batch_size=args.batch_size))
    seconds: Dict[tuple, List[float]] = {key: [] for key in runs}
    words: Dict[tuple, int] = {}
    for _ in range(args.rounds):
        for key, nlp in runs.items():
            start = time.perf_counter()
            docs = list(nlp.pipe(texts, batch_size=args.batch_size))
            seconds[key].append(time.perf_counter() - start)
            words[key] = sum(1 for doc in docs for t in doc if not t.is_space)
    rows = []
    for (name, kind), values in seconds.items():
        median = statistics.median(values)
        rows.append({"name": name, "tokenizer": kind, "words": words[(name, kind)],
                     "seconds": [round(v, 3) for v in values],
                     "words_per_second": round(words[(name, kind)] / median, 1)})
    for row in rows:
        reference = next(r for r in rows if r["name"] == row["name"]
                         and r["tokenizer"] == "spacy_rules")
        row["vs_spacy_rules"] = round(row["words_per_second"] / reference["words_per_second"], 3)
        print(json.dumps(row))
    result = {"split": args.split, "documents": len(texts), "rounds": args.rounds,
              "batch_size": args.batch_size, "threads": 1, "cpu": platform.processor() or "?",
              "torch": torch.__version__, "rows": rows}
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
