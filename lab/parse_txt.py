"""`spacy-elstm parse` on a split's raw text as UD releases it (the .txt file
`conllu_to_text.pl` writes: lines wrapped at 80 characters, a blank line
between paragraphs) against the Python API on the same text (`spacy-elstm
score --raw`: one Doc per gold document), both scored by the CoNLL 2018 script
in the same run, and their differences (issue 55: within 0.1). `parse` reads
the file as a user's, one Doc per paragraph (its default), and both commands
run as a user runs them, in processes of their own, one thread.

    python -m lab.parse_txt PIPELINE [--split dev] [--output metrics/parse-txt.json]

Dev by default: the two paths are compared, and the test split is read once per
final config and seed (by `score`), not again for this.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict

from spacy_elstm.files import write_json
from spacy_elstm.treebanks.gold_text import ud_text
from spacy_elstm.treebanks.scoring import load_scorer, official_scores

CONLLU = "assets/UD_English-EWT/en_ewt-ud-{split}.conllu"
SCRIPT = "assets/conll2018-eval/conll18_ud_eval.py"
KEYS = ["Tokens", "Sentences", "Words", "UPOS", "Lemmas", "UAS", "LAS"]


def run(command, env) -> None:
    print("$ " + " ".join(str(c) for c in command), flush=True)
    subprocess.run([str(c) for c in command], check=True, env=env)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--output", type=Path, default=Path("metrics/parse-txt.json"))
    args = parser.parse_args(argv)
    gold = Path(CONLLU.format(split=args.split))
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    scorer = load_scorer(SCRIPT)
    with tempfile.TemporaryDirectory() as temp:
        temp = Path(temp)
        text = temp / gold.with_suffix(".txt").name
        text.write_text(ud_text(gold), encoding="utf-8")
        shards = temp / "parsed"
        run([sys.executable, "-m", "spacy_elstm", "parse", args.pipeline, text, shards,
             "--format", "conllu"], env)
        system = temp / "parsed.conllu"
        system.write_text("".join(p.read_text(encoding="utf-8")
                                  for p in sorted(shards.glob("*.conllu"))), encoding="utf-8")
        evaluation = official_scores(scorer, gold, system)
        parsed = {key: round(100 * evaluation[key].f1, 2) for key in KEYS}
        api_file = temp / "api.json"
        run([sys.executable, "-m", "spacy_elstm", "score", args.pipeline, gold, "--raw",
             "--text-form", "ud", "--output", api_file], env)
        api_scores = json.loads(api_file.read_text())
        api = {key: api_scores[key] for key in KEYS}
    result: Dict[str, Any] = {
        "pipeline": args.pipeline.as_posix(), "gold": gold.name, "split": args.split,
        "text_form": "ud", "parse": parsed, "api": api,
        "difference": {key: round(parsed[key] - api[key], 2) for key in KEYS},
        "commands": [f"spacy-elstm parse PIPELINE {text.name} OUT --format conllu",
                     f"spacy-elstm score PIPELINE {gold.name} --raw --text-form ud"]}
    write_json(args.output, result)
    print(json.dumps(result["difference"]))
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
