"""Train an `elstm_senter` (the character-level sentence splitter) on a converted
treebank and save it as a pipeline of its own; with --into, add it to a trained
pipeline, first, and save that as another pipeline.

    python scripts/train_senter.py corpus/ud/en_ewt-ud-train.spacy training/senter [--epochs 12] [--width 64] [--depth 2]
    python scripts/train_senter.py --into training/raw-10000steps/cnn/model-best training/senter OUTPUT

The senter trains once, on the training Docs' characters (their words,
multiword tokens and sentences), as `spacy train` trains it in `initialize`;
the pipeline it joins keeps its own tokenizer and components, whose sentence
splitting it takes over (spaCy's parser keeps the starts it sets).
"""
import argparse
import sys
from pathlib import Path

import spacy
from spacy.tokens import DocBin
from spacy.training import Example


def train(corpus: Path, output: Path, epochs: int, width: int, depth: int, seed: int) -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("elstm_senter", config={"width": width, "depth": depth})
    docs = list(DocBin().from_disk(corpus).get_docs(nlp.vocab))
    nlp.config["initialize"]["components"]["elstm_senter"] = {"epochs": epochs, "seed": seed}
    nlp.initialize(lambda: [Example(d, d) for d in docs])
    output.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(output)
    print(f"wrote {output}")


def into(pipeline: Path, senter: Path, output: Path) -> None:
    nlp = spacy.load(pipeline)
    if "elstm_senter" in nlp.pipe_names:
        raise SystemExit(f"{pipeline} has an elstm_senter already.")
    nlp.add_pipe("elstm_senter", source=spacy.load(senter), first=True)
    output.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(output)
    print(f"wrote {output}: {nlp.pipe_names}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="the .spacy training corpus (with --into: the pipeline)")
    parser.add_argument("output", type=Path, help="the senter's pipeline (with --into: the senter's)")
    parser.add_argument("into_output", type=Path, nargs="?", help="with --into: the new pipeline")
    parser.add_argument("--into", action="store_true", help="add a trained senter to a pipeline")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.into:
        if args.into_output is None:
            parser.error("--into takes PIPELINE SENTER OUTPUT")
        into(args.source, args.output, args.into_output)
    else:
        train(args.source, args.output, args.epochs, args.width, args.depth, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
