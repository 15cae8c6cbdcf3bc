"""elstm_senter's epochs chosen on held-out text, and its training sentences
laid out anew each epoch, on EWT dev in two halves (documents alternately):
each model (characters, then words) trained as `configs/raw/` train it (EWT
train in the varied layouts, 12 + 8 epochs), its sentences on each half scored
after every epoch (in UD's text form, through the pipeline's tokenizer); then
the whole senter as shipped (each model's last epoch) and with each model's
epoch chosen on one half, scored on the other by the CoNLL 2018 script (UD's
text form), so that no score is of text it was chosen on. With the layouts laid
out once or anew each epoch (`fresh_layouts`), for each seed asked.

    python -m lab.senter_selection [--seeds 0 1] [--output metrics/tokenizers/senter-selection.json]
"""
import argparse
import copy
import json
import tempfile
from pathlib import Path
from typing import Any, Dict, List

import torch

from spacy_elstm.files import write_json
from spacy_elstm.text.held_out import sentence_f1
from spacy_elstm.text.training_text import ud_form_docs
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs
from spacy_elstm.treebanks.scoring import load_scorer

from .senter_words import CORPUS, tokenizer_pipeline
from .tokenizers import CONLLU, SCRIPT, measure

CHAR_EPOCHS, WORD_EPOCHS = 12, 8
HALVES = ("A", "B")


def split_by_documents(conllu: Path, folder: Path) -> Dict[str, Path]:
    """The CoNLL-U file's documents (`# newdoc`) alternately in two files."""
    documents: List[List[str]] = []
    for block in conllu.read_text(encoding="utf-8").split("\n\n"):
        if not block.strip():
            continue
        if "# newdoc" in block or not documents:
            documents.append([])
        documents[-1].append(block.strip("\n") + "\n")
    paths = {}
    for k, half in enumerate(HALVES):
        paths[half] = folder / f"dev-{half}.conllu"
        blocks = [block for document in documents[k::2] for block in document]
        paths[half].write_text("\n".join(blocks) + "\n", encoding="utf-8")
    return paths


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--output", type=Path,
                        default=Path("metrics/tokenizers/senter-selection.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    scorer = load_scorer(SCRIPT)
    dev = Path(CONLLU.format(split="dev"))
    nlp = tokenizer_pipeline()
    result: Dict[str, Any] = {"split": "dev", "text_form": "ud", "char_epochs": CHAR_EPOCHS,
                              "word_epochs": WORD_EPOCHS, "curves": [], "rows": []}
    with tempfile.TemporaryDirectory() as temp:
        halves = split_by_documents(dev, Path(temp))
        gold = {h: ud_form_docs(conllu_to_docs(p, 10, nlp.vocab), 0) for h, p in halves.items()}
        result["sentences"] = {h: sum(len(list(d.sents)) for d in docs)
                               for h, docs in gold.items()}
        for seed in args.seeds:
            for fresh in (False, True):
                run(nlp, seed, fresh, gold, halves, dev, scorer, result)
                write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


def run(nlp, seed: int, fresh: bool, gold, halves, dev, scorer, result) -> None:
    if "elstm_senter" in nlp.pipe_names:
        nlp.remove_pipe("elstm_senter")
    senter = nlp.add_pipe("elstm_senter")
    senter.words.model = None  # the characters alone while they learn

    def watcher(model_of, snapshots: list):
        def score() -> float:
            found = {h: sentence_f1(docs, list(senter.pipe(nlp.make_doc(d.text) for d in docs)))
                     for h, docs in gold.items()}
            snapshots.append((copy.deepcopy(model_of().state_dict()), found))
            return len(snapshots)  # rising: fit keeps the last epoch, as shipped
        return score

    chars: list = []
    layouts = senter.segmenter.learn(None, CORPUS, nlp.vocab, epochs=CHAR_EPOCHS, batch_size=32,
                                     learn_rate=0.002, seed=seed, training_text="varied",
                                     fresh_layouts=fresh,
                                     score=watcher(lambda: senter.segmenter.model, chars))
    curve = {"seed": seed, "fresh_layouts": fresh,
             "characters": [{h: round(100 * f[h], 2) for h in HALVES} for _, f in chars]}
    print(json.dumps(curve), flush=True)
    for rule in ("last",) + HALVES:
        senter.segmenter.model.load_state_dict(chars[pick(chars, rule)][0])
        words: list = []
        senter.words.train(layouts, epochs=WORD_EPOCHS, batch_size=32, learn_rate=0.002,
                           seed=seed, score=watcher(lambda: senter.words.model, words))
        senter.words.model.load_state_dict(words[pick(words, rule)][0])
        curve[f"words, chosen by {rule}"] = [{h: round(100 * f[h], 2) for h in HALVES}
                                            for _, f in words]
        scored = HALVES if rule == "last" else [h for h in HALVES if h != rule]
        for half in scored:
            row = {"seed": seed, "fresh_layouts": fresh, "chosen_by": rule,
                   "char_epoch": pick(chars, rule) + 1, "word_epoch": pick(words, rule) + 1,
                   "scored_on": half,
                   "Sentences": measure(nlp, halves[half], scorer, "ud")["Sentences"]}
            print(json.dumps(row), flush=True)
            result["rows"].append(row)
        if rule == "last":
            row = {"seed": seed, "fresh_layouts": fresh, "chosen_by": rule, "scored_on": "dev",
                   **{f"Sentences_{form}": measure(nlp, dev, scorer, form)["Sentences"]
                      for form in ("ud", "joined")}}
            print(json.dumps(row), flush=True)
            result["rows"].append(row)
    result["curves"].append(curve)


def pick(snapshots: list, rule: str) -> int:
    """The index of the epoch a rule keeps: the last, or the best on a half."""
    if rule == "last":
        return len(snapshots) - 1
    scores = [found[rule] for _, found in snapshots]
    return scores.index(max(scores))


if __name__ == "__main__":
    raise SystemExit(main())
