"""Train an `elstm_senter` (the character-level sentence splitter, with its
word-level model unless --word-width 0) on a converted treebank and save it as
a pipeline of its own; with --into, add it to a trained pipeline, first (in
place of the pipeline's own elstm_senter with --replace), and save that as
another pipeline.

    python scripts/train_senter.py corpus/UD_English-EWT/en_ewt-ud-train.spacy training/senter [--epochs 12] [--width 64] [--depth 2] [--word-width 128] [--word-depth 1] [--fresh-layouts] [--dev corpus/UD_English-EWT/en_ewt-ud-dev.spacy] [--teachers training/senter-seed1 ...] [--teacher-weight 1.0]
    python scripts/train_senter.py --into training/raw-10000steps/cnn/model-best training/senter OUTPUT [--replace] [--record metrics/.../NAME-senter.json]

The senter trains once, on the training Docs' characters (their words,
multiword tokens and sentences), as `spacy train` trains it in `initialize`
(with --dev, reading the held-out text through the raw pipelines' tokenizer,
learned from the same corpus);
the pipeline it joins keeps its own tokenizer and components, whose sentence
splitting it takes over (spaCy's parser keeps the starts it sets).
"""
import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

import spacy
from spacy.tokens import DocBin
from spacy.training import Example

from spacy_elstm.files import write_json
from spacy_elstm.components.elstm_senter import TEACHER_WEIGHT, WORD_DEPTH, WORD_WIDTH
from spacy_elstm.text.treebank_tokenizer import NAME as TOKENIZER


def train(corpus: Path, output: Path, epochs: int, width: int, depth: int, seed: int,
          word_width: int, word_depth: int, fresh_layouts: bool = False,
          dev: Optional[Path] = None, dropout: float = 0.1,
          teachers: Sequence[Path] = (), teacher_weight: float = TEACHER_WEIGHT,
          word_char_bins: int = 0) -> None:
    # the raw pipelines' tokenizer, learned from the same corpus: the senter reads
    # held-out text (--dev) through it, as `spacy train` has it read
    nlp = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": TOKENIZER}}})
    nlp.config["initialize"]["tokenizer"] = {"min_count": 1, "treebank": str(corpus)}
    nlp.add_pipe("elstm_senter", config={"width": width, "depth": depth, "dropout": dropout,
                                         "word_width": word_width, "word_depth": word_depth,
                                         "word_char_bins": word_char_bins})
    docs = list(DocBin().from_disk(corpus).get_docs(nlp.vocab))
    nlp.config["initialize"]["components"]["elstm_senter"] = {
        "epochs": epochs, "seed": seed, "fresh_layouts": fresh_layouts,
        "dev": None if dev is None else str(dev),
        "teachers": [str(path) for path in teachers], "teacher_weight": teacher_weight}
    nlp.initialize(lambda: [Example(d, d) for d in docs])
    output.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(output)
    print(f"wrote {output}")


def into(pipeline: Path, senter: Path, output: Path, replace: bool = False,
         record: Optional[Path] = None) -> None:
    nlp = spacy.load(pipeline)
    if "elstm_senter" in nlp.pipe_names:
        if not replace:
            raise SystemExit(f"{pipeline} has an elstm_senter already (--replace replaces it).")
        nlp.remove_pipe("elstm_senter")
    nlp.add_pipe("elstm_senter", source=spacy.load(senter), first=True)
    output.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(output)
    print(f"wrote {output}: {nlp.pipe_names}")
    if record is not None:
        learned = nlp.get_pipe("elstm_senter").segmenter.learned
        write_json(record, {"pipeline": output.as_posix(), "from": pipeline.as_posix(),
                            "senter": senter.as_posix(), "replaced": replace,
                            "senter_training": dict(spacy.load(senter).config["initialize"]
                                                    ["components"]["elstm_senter"]),
                            "wraps": learned.get("wraps", "as written"),
                            "training_text": learned.get("training_text"),
                            "unpunctuated": nlp.get_pipe("elstm_senter").reads_unpunctuated()})
        print(f"wrote {record}")


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
    parser.add_argument("--dropout", type=float, default=0.1,
                        help="the character model's dropout")
    parser.add_argument("--word-width", type=int, default=WORD_WIDTH,
                        help="the word-level model's width (0: none)")
    parser.add_argument("--word-depth", type=int, default=WORD_DEPTH,
                        help="the word-level model's layers")
    parser.add_argument("--word-char-bins", type=int, default=0,
                        help="the word-level model reads the character model's probabilities "
                             "in this many bins (0: it does not)")
    parser.add_argument("--fresh-layouts", action="store_true",
                        help="lay the training sentences out anew each epoch")
    parser.add_argument("--dev", type=Path, default=None,
                        help="keep each model's best epoch on this converted corpus (.spacy)")
    parser.add_argument("--teachers", type=Path, nargs="+", default=[],
                        help="trained senter pipelines whose mean probabilities it learns")
    parser.add_argument("--teacher-weight", type=float, default=TEACHER_WEIGHT,
                        help="the teachers' share of what it learns (the gold labels' the rest)")
    parser.add_argument("--replace", action="store_true",
                        help="with --into: replace the pipeline's own elstm_senter")
    parser.add_argument("--record", type=Path, default=None,
                        help="with --into: write which senter went into which pipeline (JSON)")
    args = parser.parse_args(argv)
    if args.into:
        if args.into_output is None:
            parser.error("--into takes PIPELINE SENTER OUTPUT")
        into(args.source, args.output, args.into_output, args.replace, args.record)
    else:
        train(args.source, args.output, args.epochs, args.width, args.depth, args.seed,
              args.word_width, args.word_depth, args.fresh_layouts, args.dev, args.dropout,
              args.teachers, args.teacher_weight, args.word_char_bins)
    return 0


if __name__ == "__main__":
    sys.exit(main())
