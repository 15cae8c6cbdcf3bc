"""Learn a trained pipeline's tokenizer (spacy-elstm.TreebankTokenizer.v1) again
from a converted treebank, as `[initialize.tokenizer]` learns it when the
pipeline is trained, and save the pipeline with it as another pipeline: for a
pipeline trained before a change to what the tokenizer learns. Its components
train on the treebank's own words (gold_preproc = true) and its senter on the
treebank's characters, so the new tokenizer is the one training would have
given it, and nothing else changes.

    python scripts/learn_tokenizer.py training/raw-ud-10000steps/best_elstm/model-best OUTPUT [--treebank corpus/UD_English-EWT/en_ewt-ud-train.spacy] [--min-count 1]
"""
import argparse
import sys
from pathlib import Path

import spacy

from spacy_elstm.text.treebank_tokenizer import TreebankTokenizer, create_treebank_tokenizer


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--treebank", type=Path,
                        default=Path("corpus/UD_English-EWT/en_ewt-ud-train.spacy"))
    parser.add_argument("--min-count", type=int, default=1)
    args = parser.parse_args(argv)
    for path in (args.pipeline, args.treebank):
        if not path.exists():
            print(f"{path}: not found.", file=sys.stderr)
            return 1
    nlp = spacy.load(args.pipeline)
    if not isinstance(nlp.tokenizer, TreebankTokenizer):
        print(f"{args.pipeline}: its tokenizer is {type(nlp.tokenizer).__name__}, not a "
              "TreebankTokenizer: nothing to learn.", file=sys.stderr)
        return 1
    before = dict(nlp.tokenizer.learned)
    nlp.tokenizer = create_treebank_tokenizer()(nlp)  # as the config builds it, unlearned
    nlp.tokenizer.initialize(lambda: [], nlp=nlp, min_count=args.min_count,
                             treebank=args.treebank)
    nlp.to_disk(args.output)
    print(f"tokenizer's punctuation runs: {before.get('punctuation_runs')} -> "
          f"{nlp.tokenizer.learned['punctuation_runs']}")
    print(f"tokenizer's marks split off any word: {before.get('punctuation_marks')} -> "
          f"{nlp.tokenizer.learned['punctuation_marks']}")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
