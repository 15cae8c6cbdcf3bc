"""The training data's lemma of a seen word (spacy_elstm/components/lemma_lookup.py)
beside spaCy's edit-tree lemmatizer: trained pipelines scored on a split with
and without `elstm_lemma_lookup` added after their lemmatizer (learned from
the treebank's converted train split), by the CoNLL 2018 script, on gold
words and, with --raw, on the raw text in UD's form.

    python -m lab.lemma_lookup --treebank assets/UD_Wolof-WTB NAME=PIPELINE [...] [--split dev] [--raw] --output metrics/treebanks/UD_Wolof-WTB/lemma-lookup-dev.json
"""
import json
import tempfile
from pathlib import Path
from typing import Any, Dict

import spacy

from spacy_elstm.components.lemma_lookup import FACTORY
from spacy_elstm.files import write_json
from spacy_elstm.treebanks.scoring import score
from spacy_elstm.treebanks.ud_folder import find_treebank

from .tokenizer_alone import parse_treebank_args, treebank_parser

COLUMNS = ("Words", "UPOS", "Lemmas", "LAS")


def main(argv=None) -> int:
    parser = treebank_parser(__doc__)
    parser.add_argument("pipelines", nargs="+", metavar="NAME=PIPELINE")
    parser.add_argument("--corpus", type=Path, help="its converted train split (.spacy); "
                        "default corpus/<treebank folder>/<stem>-ud-train.spacy")
    parser.add_argument("--raw", action="store_true")
    args = parse_treebank_args(parser, argv, "the lookup")
    treebank = find_treebank(args.treebank)
    corpus = args.corpus or Path("corpus") / treebank.name / f"{treebank.stem}-ud-train.spacy"
    gold = treebank.files[args.split]
    result: Dict[str, Any] = {"treebank": treebank.name, "gold": gold.name, "raw": args.raw,
                              "corpus": corpus.name, "systems": {}}
    for spec in args.pipelines:
        name, sep, path = spec.partition("=")
        if not sep:
            parser.error(f"{spec!r}: give NAME=PIPELINE")
        rows = {}
        with tempfile.TemporaryDirectory() as temp:
            nlp = spacy.load(path)
            nlp.add_pipe(FACTORY, after="lemmatizer")
            nlp.get_pipe(FACTORY).initialize(lambda: [], nlp=nlp, treebank=corpus)
            nlp.to_disk(Path(temp) / "with")
            for variant, pipeline in (("lemmatizer", path), ("+ lookup", Path(temp) / "with")):
                found = score(pipeline, gold, scorer=args.scorer, raw=args.raw,
                              language=treebank.code if args.raw else None)
                rows[variant] = {c: round(100 * found["f1"][c], 2) for c in COLUMNS}
            rows["lookup_entries"] = len(nlp.get_pipe(FACTORY).table)
        print(name, json.dumps(rows), flush=True)
        result["systems"][name] = rows
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
