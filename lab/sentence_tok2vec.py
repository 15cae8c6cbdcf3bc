"""A paragraph read whole or sentence by sentence: trained raw pipelines on a
split's raw text (UD's form by default), each scored by the CoNLL 2018 script
twice, its tok2vec loaded as spacy.Tok2Vec.v2 (the encoder reads each paragraph
as one sequence) and as spacy-elstm.SentenceTok2Vec.v1 (each sentence the senter
set as its own sequence); the same weights, so only the reading differs. Each
pipeline's rows, and per config the mean change from the first to the second.

    python -m lab.sentence_tok2vec training/raw-ud-10000steps/best_elstm/model-best [...] [--split dev] [--text-form ud] [--output metrics/tokenizers/sentence-tok2vec.json]
"""
import json
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List

import torch

from spacy_elstm.architectures.tok2vec import SENTENCE_TOK2VEC
from spacy_elstm.files import write_json
from spacy_elstm.treebanks.scoring import score

from .arguments import pipelines_parser
from .tokenizers import CONLLU, SCRIPT

READINGS = {"paragraph": "spacy.Tok2Vec.v2", "sentence": SENTENCE_TOK2VEC}
METRICS = ("Sentences", "UPOS", "Lemmas", "UAS", "LAS")
KEY = "components.tok2vec.model.@architectures"


def config_of(path: Path) -> str:
    """The config a pipeline was trained from: its folder's name (…/cnn/model-best)."""
    return path.parent.name if path.name.startswith("model-") else path.name


def mean_changes(rows: List[Dict[str, Any]]) -> Dict[str, Dict[str, float]]:
    """Per config, per metric, the mean over its pipelines of sentence minus paragraph."""
    changes: Dict[str, Dict[str, List[float]]] = defaultdict(lambda: defaultdict(list))
    by_pipeline = defaultdict(dict)
    for row in rows:
        by_pipeline[row["pipeline"]][row["reading"]] = row
    for pipeline, pair in by_pipeline.items():
        for metric in METRICS:
            changes[pair["sentence"]["config"]][metric].append(
                pair["sentence"][metric] - pair["paragraph"][metric])
    return {config: {m: round(statistics.mean(v), 2) for m, v in metrics.items()}
            for config, metrics in changes.items()}


def main(argv=None) -> int:
    parser = pipelines_parser(__doc__, "metrics/tokenizers/sentence-tok2vec.json", text_form=True)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rows: List[Dict[str, Any]] = []
    for path in args.pipelines:
        for reading, architecture in READINGS.items():
            found = score(path, CONLLU.format(split=args.split), raw=True, scorer=SCRIPT,
                          text_form=args.text_form, overrides={KEY: architecture})
            row = {"pipeline": path.as_posix(), "config": config_of(path), "reading": reading,
                   **{m: found[m] for m in METRICS}}
            print(json.dumps(row), flush=True)
            rows.append(row)
    write_json(args.output, {"split": args.split, "text_form": args.text_form,
                             "readings": READINGS, "rows": rows,
                             "mean_change": mean_changes(rows)})
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
