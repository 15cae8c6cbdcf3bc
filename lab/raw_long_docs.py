"""What a long document costs a raw-text pipeline, and where the time goes:
a split's text in UD's form (its documents joined by their blank lines; EWT
train, whose 30,000 words dev does not have) up to `--words` words, run as one
document and cut at paragraph breaks into documents of about `--piece` words,
median of interleaved rounds, one thread; and EWT dev in its own documents,
timed component by component (the
tokenizer, then each pipe's `pipe` over the Docs the one before gave), so that
the tokenizer's and the senter's share of the whole is measured, not guessed.

    python -m lab.raw_long_docs PIPELINE [--split train] [--words 30000] [--piece 1000] [--rounds 3] [--output metrics/bench-raw-long.json]

Decoding cost does not depend on training, so an untrained pipeline of the
right shape gives the ratio (the JSON says which pipeline it was).
"""
import argparse
import json
import platform
import statistics
import time
from pathlib import Path
from typing import Dict, List

import spacy
import torch

from spacy_elstm.files import write_json
from spacy_elstm.text.paragraphs import BLANK_LINE
from spacy_elstm.treebanks.gold_text import raw_documents

CONLLU = "assets/UD_English-EWT/en_ewt-ud-{split}.conllu"


def pieces(text: str, words: int) -> List[str]:
    """The text cut at paragraph breaks into pieces of about `words` words."""
    out, current, count = [], [], 0
    for paragraph in BLANK_LINE.split(text):
        current.append(paragraph)
        count += len(paragraph.split())
        if count >= words:
            out.append("\n\n".join(current))
            current, count = [], 0
    if current:
        out.append("\n\n".join(current))
    return out


def whole_text(split: str, words: int) -> str:
    """The split's documents in UD's form, joined, cut after `words` words
    (at a paragraph break)."""
    return "\n\n".join(pieces("".join(d.text for d in raw_documents(CONLLU.format(split=split))),
                              words)[:1])


def timed(nlp, texts: List[str], batch_size: int) -> float:
    start = time.perf_counter()
    for _ in nlp.pipe(texts, batch_size=batch_size):
        pass
    return time.perf_counter() - start


def by_component(nlp, texts: List[str], batch_size: int) -> Dict[str, float]:
    """Seconds of the tokenizer and of each pipe, each over all the texts."""
    seconds = {}
    start = time.perf_counter()
    docs = [nlp.make_doc(text) for text in texts]
    seconds["tokenizer"] = time.perf_counter() - start
    for name, pipe in nlp.pipeline:
        start = time.perf_counter()
        docs = list(pipe.pipe(docs, batch_size=batch_size) if hasattr(pipe, "pipe")
                    else map(pipe, docs))
        seconds[name] = time.perf_counter() - start
    return seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("--split", default="train", help="the long document's split")
    parser.add_argument("--words", type=int, default=30_000)
    parser.add_argument("--piece", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--output", type=Path, default=Path("metrics/bench-raw-long.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    nlp = spacy.load(args.pipeline)
    long_text = whole_text(args.split, args.words)
    cut = pieces(long_text, args.piece)
    documents = [d.text for d in raw_documents(CONLLU.format(split="dev"))]
    words = sum(1 for doc in nlp.pipe(cut) for t in doc if not t.is_space)  # and a warm-up
    runs: Dict[str, List[float]] = {"one_document": [], "pieces": []}
    parts: Dict[str, List[float]] = {}
    for _ in range(args.rounds):
        runs["one_document"].append(timed(nlp, [long_text], args.batch_size))
        runs["pieces"].append(timed(nlp, cut, args.batch_size))
        for name, value in by_component(nlp, documents, args.batch_size).items():
            parts.setdefault(name, []).append(value)
    rate = {k: words / statistics.median(v) for k, v in runs.items()}
    share = {k: statistics.median(v) for k, v in parts.items()}
    total = sum(share.values())
    front = share["tokenizer"] + sum(v for k, v in share.items() if "senter" in k)
    result = {
        "pipeline": str(args.pipeline), "pipes": nlp.pipe_names, "split": args.split,
        "components_on": "dev",
        "words": words, "pieces": len(cut), "piece_words": args.piece,
        "rounds": args.rounds, "threads": 1, "cpu": platform.processor() or "?",
        "torch": torch.__version__,
        "words_per_second": {k: round(v, 1) for k, v in rate.items()},
        "one_document_vs_pieces": round(rate["one_document"] / rate["pieces"], 3),
        "component_seconds": {k: round(v, 3) for k, v in share.items()},
        "tokenizer_and_senter_share": round(front / total, 3),
        "text_form": "ud",
    }
    print(json.dumps(result, indent=2))
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
