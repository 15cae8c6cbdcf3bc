"""Which Docs the senter's second pair of models splits (text without
punctuation): routed by any word of punctuation characters (as pipelines did
before) or by a word that ends or divides a sentence (as `text/punctuation.py`
routes now), the same pipelines in the same run. EWT dev and test as
`spacy-elstm score --raw` reads them (UD's text form, one Doc per paragraph),
as written and without punctuation (`--text-variant unpunctuated`), scored by
the CoNLL 2018 script; and the WSJ sample without punctuation (text no senter
was tuned for, `lab.wsj_sentences`), one Doc per article, Sentences over each
pipeline's tokenizer and senter alone.

    python -m lab.senter_routing PIPELINE... [--output metrics/tokenizers/senter-routing.json]
"""
import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any, Dict, List

import torch
from spacy.tokens import Doc

import spacy_elstm.components.elstm_senter as elstm_senter
from spacy_elstm.files import write_json
from spacy_elstm.text.punctuation import has_no_punctuation, is_punctuation
from spacy_elstm.treebanks.gold_variants import variant_gold
from spacy_elstm.treebanks.scoring import load_scorer, score

from .arguments import pipelines_parser
from .tokenizers import CONLLU, SCRIPT, measure, senter_pipeline
from .wsj_sentences import TREES, written_gold


def any_punctuation_word(doc: Doc) -> bool:
    """The routing before: no word of punctuation characters alone at all."""
    words = [t.text for t in doc if not t.is_space]
    return bool(words) and not any(is_punctuation(w) for w in words)


RULES = {"any punctuation word": any_punctuation_word, "sentence marks": has_no_punctuation}


@contextlib.contextmanager
def routed_by(rule):
    """The senter routes Docs by `rule` while inside."""
    shipped = elstm_senter.has_no_punctuation
    elstm_senter.has_no_punctuation = rule
    try:
        yield
    finally:
        elstm_senter.has_no_punctuation = shipped


SCORES = ("Sentences", "LAS")  # of each EWT text
EWT_TEXTS = [(split, variant) for split in ("dev", "test")
             for variant in ("as-written", "unpunctuated")]


def main(argv=None) -> int:
    parser = pipelines_parser(__doc__, "metrics/tokenizers/senter-routing.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    scorer = load_scorer(SCRIPT)
    rows: List[Dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as temp:
        wsj = variant_gold(written_gold(Path(TREES), Path(temp))[0], "unpunctuated",
                           Path(temp) / "wsj")
        for path in args.pipelines:
            nlp = senter_pipeline(path)
            for name, rule in RULES.items():
                row: Dict[str, Any] = {"pipeline": path.as_posix(), "routing": name}
                with routed_by(rule):
                    for split, variant in EWT_TEXTS:
                        found = score(path, CONLLU.format(split=split), raw=True,
                                      scorer=SCRIPT, text_variant=variant)
                        row[f"{split}_{variant}"] = {k: found[k] for k in SCORES}
                    row["wsj_unpunctuated"] = {
                        "Sentences": measure(nlp, wsj, scorer, "ud")["Sentences"]}
                print(json.dumps(row), flush=True)
                rows.append(row)
    write_json(args.output, {"rules": list(RULES), "rows": rows})
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
