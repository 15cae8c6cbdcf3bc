"""Where sentences end, by the mark before the end: of a gold CoNLL-U file's
sentence ends, how many each system's raw-text prediction finds, and the ends
it puts where the gold has none, grouped by the last character of the token
that ends the sentence (a punctuation mark, or "a word" where a word ends it).

Gold and prediction are the same text tokenised differently, so an end is the
count of non-space characters before it, read off each file's tokens (the
range line of a multiword token, else the word).

The file's own marks are counted too (`marks`): per group, the tokens that end
with it and how many of them end a sentence. Given the training split alone,
that says how often a mark ends a sentence in what the senter learns from
(Uyghur's `،` ends one at about one in seven of its occurrences), and so where
no model can tell from the mark alone.

    python -m lab.sentence_ends GOLD NAME=PREDICTION [NAME=PREDICTION ...] [--output metrics/....json]
    python -m lab.sentence_ends TRAIN --output metrics/treebanks/UD_<Name>/sentence-marks-train.json
"""
import argparse
import json
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Dict, List, Sequence, Tuple, Union

from spacy_elstm.files import write_json
from spacy_elstm.treebanks.gold_text import sentence_tokens

PathLike = Union[str, Path]
A_WORD = "a word"  # the group of ends after a token that is not punctuation


def sentence_ends(path: PathLike) -> List[Tuple[int, str]]:
    """Each sentence's end in a CoNLL-U file: the non-space characters before
    it in the whole file, and the last character of its last token."""
    ends: List[Tuple[int, str]] = []
    offset = 0
    for tokens in sentence_tokens(path):
        last = ""
        for columns in tokens:
            form = "".join(columns[1].split())
            offset += len(form)
            last = form[-1:] or last
        if last:
            ends.append((offset, last))
    return ends


def mark(character: str) -> str:
    """The group of an end: the punctuation mark before it, or A_WORD."""
    return character if unicodedata.category(character).startswith("P") else A_WORD


def mark_ends(path: PathLike) -> Dict[str, Dict[str, int]]:
    """Per group of a token's last character (`mark`): how many tokens of the
    CoNLL-U file end with it (`tokens`) and how many of those end a sentence
    (`ends`), the groups by their ends, most first."""
    counts: Dict[str, Counter] = {}
    for tokens in sentence_tokens(path):
        forms = ["".join(columns[1].split()) for columns in tokens]
        forms = [form for form in forms if form]
        for k, form in enumerate(forms):
            group = counts.setdefault(mark(form[-1]), Counter())
            group["tokens"] += 1
            group["ends"] += k == len(forms) - 1
    return {m: {"tokens": c["tokens"], "ends": c["ends"]}
            for m, c in sorted(counts.items(), key=lambda item: (-item[1]["ends"], item[0]))}


def compare(gold: Sequence[Tuple[int, str]],
            predicted: Sequence[Tuple[int, str]]) -> Dict[str, Dict[str, int]]:
    """Per mark: the gold ends (`gold`), those the prediction has too
    (`found`), and the prediction's ends where the gold has none (`extra`)."""
    predicted_at = {offset for offset, _ in predicted}
    gold_at = {offset for offset, _ in gold}
    counts: Dict[str, Counter] = {}
    for offset, last in gold:
        group = counts.setdefault(mark(last), Counter())
        group["gold"] += 1
        group["found"] += offset in predicted_at
    for offset, last in predicted:
        if offset not in gold_at:
            counts.setdefault(mark(last), Counter())["extra"] += 1
    return {m: {key: c[key] for key in ("gold", "found", "extra")}
            for m, c in sorted(counts.items(), key=lambda item: -item[1]["gold"])}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", type=Path, help="the gold CoNLL-U file")
    parser.add_argument("systems", nargs="*", help="NAME=PREDICTION: a system's CoNLL-U on the raw text")
    parser.add_argument("--output", type=Path, default=None, help="write the counts as JSON here")
    args = parser.parse_args(argv)
    gold = sentence_ends(args.gold)
    result = {"gold": args.gold.name, "sentences": len(gold), "marks": mark_ends(args.gold),
              "systems": {}}
    for item in args.systems:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            parser.error(f"a system is NAME=PREDICTION, got {item!r}")
        if not Path(path).is_file():
            parser.error(f"{name}: no prediction file at {path}")
        predicted = sentence_ends(path)
        if predicted and gold and predicted[-1][0] != gold[-1][0]:
            parser.error(f"{name}: {path} has {predicted[-1][0]} non-space characters, "
                         f"the gold {gold[-1][0]}: not the same text")
        result["systems"][name] = compare(gold, predicted)
    if args.output is not None:
        write_json(args.output, result)
        print(f"wrote {args.output}")
    else:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
