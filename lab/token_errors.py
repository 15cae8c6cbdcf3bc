"""Where a raw pipeline's tokenizer still goes wrong: it tokenises a split's
raw text (UD's form by default), and each gold token (a multiword token once,
as written) whose characters no system token spans exactly is missed, each
system token no gold token spans is made up; counted by their text, the most
common first. Places are counted in non-space characters, as the CoNLL 2018
script aligns them.

    python -m lab.token_errors training/raw-ud-10000steps/best_elstm/model-best [...] [--split dev] [--text-form ud] [--top 30] [--output metrics/tokenizers/token-errors.json]
"""
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import torch

from spacy_elstm.files import write_json
from spacy_elstm.text.multiword import multiword_spans
from spacy_elstm.treebanks.conllu_reader import _blocks
from spacy_elstm.treebanks.gold_text import RawDocument, raw_documents

from .arguments import pipelines_parser
from .tokenizers import CONLLU, pipeline_with

Span = Tuple[int, int]  # first and one past the last non-space character


def gold_tokens(path: Path) -> List[List[str]]:
    """Per gold sentence, its surface tokens (a multiword token once)."""
    out = []
    for block in _blocks(path):
        tokens, covered = [], 0
        for line in block.lines:
            if line.startswith("#"):
                continue
            ident, form = line.split("\t")[:2]
            if "." in ident:
                continue
            if "-" in ident:
                covered = int(ident.partition("-")[2])
            elif int(ident) <= covered:
                continue
            tokens.append(form)
        out.append(tokens)
    return out


def spans_of(tokens: List[str]) -> Dict[Span, str]:
    """Each token's span, its whitespace left out, the tokens one after another."""
    out, at = {}, 0
    for token in tokens:
        length = len(re.sub(r"\s", "", token))
        out[(at, at + length)] = token
        at += length
    return out


def system_tokens(doc) -> List[str]:
    """The Doc's surface tokens: a multiword token's words as one, whitespace
    tokens left out."""
    first_of = {a: b for a, b in multiword_spans(doc)}
    out, k = [], 0
    while k < len(doc):
        last = first_of.get(k, k)
        if not doc[k].is_space:
            out.append(doc[k:last + 1].text)
        k = last + 1
    return out


def document_spans(conllu: Path, documents: Sequence[RawDocument]) -> List[Dict[Span, str]]:
    """Per raw document of the gold file, its gold tokens' spans (`spans_of`)."""
    sentences = gold_tokens(conllu)
    out, start = [], 0
    for document in documents:
        out.append(spans_of([t for s in sentences[start:start + document.sentences]
                             for t in s]))
        start += document.sentences
    return out


def measure(path: Path, split: str, text_form: str, top: int) -> Dict[str, Any]:
    nlp = pipeline_with(path)  # the tokenizer alone
    conllu = Path(CONLLU.format(split=split))
    missed: Counter = Counter()
    made_up: Counter = Counter()
    matched = 0
    documents = raw_documents(conllu, text_form)
    for document, gold in zip(documents, document_spans(conllu, documents)):
        found = spans_of(system_tokens(nlp.make_doc(document.text)))
        matched += len(gold.keys() & found.keys())
        missed.update(gold[s] for s in gold.keys() - found.keys())
        made_up.update(found[s] for s in found.keys() - gold.keys())
    return {"pipeline": path.as_posix(), "split": split, "text_form": text_form,
            "matched": matched, "missed": sum(missed.values()),
            "made_up": sum(made_up.values()),
            "most_missed": missed.most_common(top), "most_made_up": made_up.most_common(top)}


def main(argv=None) -> int:
    parser = pipelines_parser(__doc__, "metrics/tokenizers/token-errors.json", text_form=True)
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rows = []
    for path in args.pipelines:
        row = measure(path, args.split, args.text_form, args.top)
        print(json.dumps({k: row[k] for k in ("pipeline", "matched", "missed", "made_up")}),
              flush=True)
        rows.append(row)
    write_json(args.output, {"rows": rows})
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
