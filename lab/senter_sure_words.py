"""What reading the characters only where the word model is unsure costs and
finds: trained senter pipelines split EWT dev's raw text in each text form
with the character model reading all of it (`WORD_SURE = 0`) or only around
the words whose word-level probability is not within WORD_SURE of 0 or 1
(CHAR_CONTEXT characters before and after), where the word model decides
alone; the senter's own seconds on dev's documents in UD's form (`pipe` over
tokenized Docs, one thread, the best of three rounds) as a ratio to reading
everything in the same run, and Sentences F1 by the CoNLL 2018 script.

    python -m lab.senter_sure_words training/raw-ud-10000steps/best_elstm/model-best [...] [--settings 0:0:0 0.02:40:20] [--output metrics/tokenizers/senter-sure-words.json]
"""
import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

import torch

from spacy_elstm.components import elstm_senter
from spacy_elstm.files import write_json
from spacy_elstm.treebanks.gold_text import FORMS, raw_documents
from spacy_elstm.treebanks.scoring import load_scorer

from .arguments import pipelines_parser
from .senter_depths import senter_seconds
from .tokenizers import CONLLU, SCRIPT, measure, senter_pipeline


def setting(text: str) -> Tuple[float, int, int]:
    sure, before, after = text.split(":")
    return float(sure), int(before), int(after)


def main(argv=None) -> int:
    parser = pipelines_parser(__doc__, "metrics/tokenizers/senter-sure-words.json")
    parser.add_argument("--settings", type=setting, nargs="+",
                        default=[(0.0, 0, 0), (0.02, 80, 40), (0.02, 60, 30), (0.02, 40, 20)],
                        help="WORD_SURE:BEFORE:AFTER, the first the reference")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    scorer = load_scorer(SCRIPT)
    gold = Path(CONLLU.format(split=args.split))
    texts = [d.text for d in raw_documents(gold, "ud")]
    shipped = (elstm_senter.WORD_SURE, elstm_senter.CHAR_CONTEXT)
    rows: List[Dict[str, Any]] = []
    try:
        for path in args.pipelines:
            nlp = senter_pipeline(path)
            first = None
            for sure, before, after in args.settings:
                elstm_senter.WORD_SURE, elstm_senter.CHAR_CONTEXT = sure, (before, after)
                row = {"pipeline": path.as_posix(), "word_sure": sure,
                       "char_context": [before, after],
                       "senter_seconds": round(senter_seconds(nlp, texts), 3),
                       **{f"Sentences_{form}": measure(nlp, gold, scorer, form)["Sentences"]
                          for form in FORMS}}
                first = first or row["senter_seconds"]
                row["time_vs_first"] = round(row["senter_seconds"] / first, 3)
                print(json.dumps(row), flush=True)
                rows.append(row)
    finally:
        elstm_senter.WORD_SURE, elstm_senter.CHAR_CONTEXT = shipped
    write_json(args.output, {"split": args.split, "timing": "senter alone, UD's form, best of "
                             "3, one thread", "rows": rows})
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
