"""Multiword tokens written with the right words: of a gold CoNLL-U file's
multiword tokens, how many each system's raw-text prediction writes as one
token over the same characters with the same words (forms compared as
written), in all and among the tokens the training file never has (as a
token, compared lower-cased).

Gold and prediction are the same text tokenised differently, so a token is
placed by the count of non-space characters before it, read off each file's
tokens (the range line of a multiword token, else the word).

    python -m lab.multiword_tokens GOLD --train TRAIN NAME=PREDICTION [NAME=PREDICTION ...] [--output metrics/....json]
"""
import argparse
import json
from pathlib import Path
from typing import Dict, Iterator, List, Sequence, Set, Tuple, Union

from spacy_elstm.files import write_json
from spacy_elstm.treebanks.conllu_reader import _blocks
from spacy_elstm.treebanks.gold_text import block_rows

PathLike = Union[str, Path]
# (non-space characters before the token, its form as written, its words' forms)
Token = Tuple[int, str, Tuple[str, ...]]


def tokens(path: PathLike) -> Iterator[Token]:
    """Every token of a CoNLL-U file, in order, with the words it holds."""
    path = Path(path)
    offset = 0
    for block in _blocks(path):
        rows = list(block_rows(path, block))
        k = 0
        while k < len(rows):
            first, sep, last = rows[k][0].partition("-")
            form = "".join(rows[k][1].split())
            if sep:
                count = int(last) - int(first) + 1
                words = tuple(row[1] for row in rows[k + 1:k + 1 + count])
                k += 1 + count
            else:
                words = (rows[k][1],)
                k += 1
            yield offset, form, words
            offset += len(form)


def training_tokens(path: PathLike) -> Set[str]:
    """The training file's tokens as written, lower-cased."""
    return {form.lower() for _, form, _ in tokens(path)}


def compare(gold: Sequence[Token], predicted: Sequence[Token],
            seen: Set[str]) -> Dict[str, Dict[str, int]]:
    """Of the gold multiword tokens, in `all` and in `unseen` (not in `seen`):
    how many (`gold`) and how many the prediction writes with the same words
    at the same characters (`right`)."""
    by_place = {(offset, form): words for offset, form, words in predicted}
    counts = {"all": {"gold": 0, "right": 0}, "unseen": {"gold": 0, "right": 0}}
    for offset, form, words in gold:
        if len(words) < 2:
            continue
        right = by_place.get((offset, form)) == words
        for group in ("all",) + (("unseen",) if form.lower() not in seen else ()):
            counts[group]["gold"] += 1
            counts[group]["right"] += right
    return counts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", type=Path)
    parser.add_argument("systems", nargs="+", metavar="NAME=PREDICTION")
    parser.add_argument("--train", type=Path, required=True,
                        help="the training CoNLL-U file: which tokens are unseen")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    gold = list(tokens(args.gold))
    seen = training_tokens(args.train)
    text = "".join(form for _, form, _ in gold)
    result: Dict[str, object] = {"gold": args.gold.name, "train": args.train.name,
                                 "systems": {}}
    for spec in args.systems:
        name, sep, path = spec.partition("=")
        if not sep:
            parser.error(f"{spec!r}: give NAME=PREDICTION")
        predicted = list(tokens(path))
        if "".join(form for _, form, _ in predicted) != text:
            raise SystemExit(f"{path}: its tokens do not spell the gold file's text; "
                             "give a prediction of the same raw text.")
        result["systems"][name] = compare(gold, predicted, seen)
    print(json.dumps(result["systems"], indent=1))
    if args.output:
        write_json(args.output, result)
        print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
