"""Where trained senters still go wrong: each pipeline's tokenizer and
`elstm_senter` split a split's raw text (UD's form by default), and each gold
sentence end it missed and each end it made up is counted by what comes
before it: sentence-final punctuation (. ! ?), a colon or semicolon, other
punctuation (a bracket, a quote, a dash, an emoticon's last character), or a
letter or digit (no punctuation at all); with a few examples of each.

Sentence ends are compared as places in the text (the count of non-space
characters before them), so a tokenisation error does not count as a sentence
error; the CoNLL 2018 script's Sentences F1 counts whole sentences instead
(one missed end costs two gold sentences and one predicted).

    python -m lab.senter_errors training/raw-ud-10000steps/best_elstm/model-best [...] [--split dev] [--text-form ud] [--output metrics/tokenizers/senter-errors.json]
"""
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Set, Tuple

import torch

from spacy_elstm.files import write_json
from spacy_elstm.treebanks.gold_text import raw_documents

from .arguments import pipelines_parser
from .token_errors import gold_tokens
from .tokenizers import CONLLU, senter_pipeline

KINDS = ("final punctuation", "colon or semicolon", "other punctuation", "no punctuation")
EXAMPLES = 5  # of each kind and error, per pipeline
CONTEXT = 40  # characters shown before and after


def gold_ends(path: Path) -> List[int]:
    """Per gold sentence, in order, its non-space characters (its surface
    tokens', multiword tokens once)."""
    return [sum(len(re.sub(r"\s", "", token)) for token in tokens)
            for tokens in gold_tokens(path)]


def kind(before: str) -> str:
    last = before.rstrip()[-1:]
    if last in ".!?":
        return KINDS[0]
    if last in ":;":
        return KINDS[1]
    if last and not last.isalnum():
        return KINDS[2]
    return KINDS[3]


def compare(text: str, gold: Set[int], found: Set[int]) -> List[Tuple[int, str, str, str]]:
    """(end, error, kind, context) of each end in one set and not the other;
    ends are counts of non-space characters from the text's start."""
    at = [k for k, char in enumerate(text) if not char.isspace()]  # the n-th non-space char
    out = []
    for error, ends in (("missed", gold - found), ("made up", found - gold)):
        for end in sorted(ends):
            cut = at[end - 1] + 1
            out.append((end, error, kind(text[cut - 1]),  # the end's own character
                        f"{text[max(0, cut - CONTEXT):cut]} | {text[cut:cut + CONTEXT // 2]}"
                        .replace("\n", "⏎")))
    return out


Error = Tuple[int, int, str, str, str]  # (document, end, error, kind, context)


def measure(path: Path, split: str, text_form: str) -> Tuple[Dict[str, Any], FrozenSet[Error]]:
    """The pipeline's row (ends found, counts by error and kind, examples) and
    every error it makes."""
    nlp = senter_pipeline(path)
    conllu = Path(CONLLU.format(split=split))
    lengths = gold_ends(conllu)
    matched, start = 0, 0
    errors: Set[Error] = set()
    for number, document in enumerate(raw_documents(conllu, text_form)):
        gold, total = set(), 0
        for length in lengths[start:start + document.sentences]:
            total += length
            gold.add(total)
        start += document.sentences
        doc = nlp(document.text)
        text = document.text
        before = [0] * (len(text) + 1)  # non-space characters before each offset
        for k, char in enumerate(text):
            before[k + 1] = before[k] + (not char.isspace())
        found = {before[s.end_char] for s in doc.sents if s.text.strip()}
        matched += len(gold & found)
        errors.update((number, *error) for error in compare(text, gold, found))
    return {"pipeline": path.as_posix(), "split": split, "text_form": text_form,
            "matched": matched, **counted(errors)}, frozenset(errors)


def counted(errors: Set[Error]) -> Dict[str, Any]:
    """The errors' counts by error and kind, and the first few of each kind
    (in the text's order) as examples."""
    counts: Counter = Counter()
    examples: Dict[str, List[str]] = {}
    for _, _, error, what, context in sorted(errors):
        counts[f"{error}: {what}"] += 1
        shown = examples.setdefault(f"{error}: {what}", [])
        if len(shown) < EXAMPLES:
            shown.append(context)
    return {"counts": {k: counts[k] for k in sorted(counts)}, "examples": examples}


def main(argv=None) -> int:
    parser = pipelines_parser(__doc__, "metrics/tokenizers/senter-errors.json", text_form=True)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rows, errors = [], []
    for path in args.pipelines:
        row, made = measure(path, args.split, args.text_form)
        print(json.dumps({k: row[k] for k in ("pipeline", "matched", "counts")}), flush=True)
        rows.append(row)
        errors.append(made)
    found = {"kinds": list(KINDS), "rows": rows}
    if len(errors) > 1:
        found["every_pipeline"] = counted(frozenset.intersection(*errors))
        print(json.dumps({"every_pipeline": found["every_pipeline"]["counts"]}), flush=True)
    write_json(args.output, found)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
