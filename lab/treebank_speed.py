"""Words per second on a treebank's raw text, our pipelines and UDPipe 1 in one
process, one thread: the text of the split's documents in UD's text form for
the treebank's language, each pipeline reading it as `spacy-elstm score --raw`
does (one Doc per paragraph, `scoring.predict_raw`), UDPipe 1 reading it whole
as `lab.udpipe_peer run` does (tokenizer, tagger, parser); rounds interleaved,
the median kept. Words are each system's own (the words it wrote), and the
gold words over the same seconds beside them. With --per-text, each pipeline
is timed too as `NAME/per-text`, its tokenizer called once per paragraph
(`nlp.pipe` of the texts, as before `input_modes.make_docs`) in place of a
batch of them at a time.

    python -m lab.treebank_speed --gold assets/UD_Uyghur-UDT/ug_udt-ud-test.conllu \\
        best_elstm=training/treebanks/UD_Uyghur-UDT/best_elstm/model-best \\
        --udpipe training/udpipe1/UD_Uyghur-UDT/ug_udt.udpipe \\
        --output metrics/treebanks/UD_Uyghur-UDT/speed-test.json
"""
import argparse
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List

import spacy
import torch

from spacy_elstm.files import write_json
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.text.input_modes import text_units
from spacy_elstm.treebanks.scoring import predict_raw
from spacy_elstm.treebanks.ud_names import language_code

from .udpipe_peer import annotate, udpipe


def pipeline_run(nlp, documents, per_text: bool = False) -> Callable[[], int]:
    """One timed reading of the documents by our pipeline: its words. With
    `per_text`, the paragraphs' texts go to `nlp.pipe` as they are."""
    texts = [piece for document in documents for piece in text_units(document.text)]

    def run() -> int:
        docs = list(nlp.pipe(texts)) if per_text else predict_raw(nlp, documents)[0]
        return sum(len(doc) - sum(t.is_space for t in doc) for doc in docs)
    return run


def udpipe_run(path: Path, text: str) -> Callable[[], int]:
    model = udpipe.Model.load(str(path))
    if model is None:
        raise SystemExit(f"lab.treebank_speed: cannot load the UDPipe model {path}")

    def run() -> int:
        return annotate(model, text, udpipe.Model.DEFAULT)[2]
    return run


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipelines", nargs="*", metavar="NAME=PIPELINE")
    parser.add_argument("--gold", type=Path, required=True, help="the split's gold CoNLL-U")
    parser.add_argument("--udpipe", type=Path, help="a UDPipe 1 model, timed as `udpipe1`")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--per-text", action="store_true",
                        help="time each pipeline a paragraph's text at a time too")
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    language = language_code(args.gold)
    documents = raw_documents(args.gold, "ud", language)
    text = "".join(d.text for d in documents)
    gold_words = sum(1 for line in args.gold.read_text(encoding="utf8").splitlines()
                     if line.split("\t", 1)[0].isdigit())
    runs: Dict[str, Callable[[], int]] = {}
    for spec in args.pipelines:
        name, _, path = spec.partition("=")
        nlp = spacy.load(Path(path))
        runs[name] = pipeline_run(nlp, documents)
        if args.per_text:
            runs[f"{name}/per-text"] = pipeline_run(nlp, documents, per_text=True)
    if args.udpipe:
        runs["udpipe1"] = udpipe_run(args.udpipe, text)
    if not runs:
        print("lab.treebank_speed: name a pipeline or --udpipe", file=sys.stderr)
        return 1
    for run in runs.values():  # a first pass: kernels compiled, caches warm
        run()
    seconds: Dict[str, List[float]] = {name: [] for name in runs}
    words: Dict[str, int] = {}
    for _ in range(args.rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            words[name] = run()
            seconds[name].append(time.perf_counter() - start)
    result = {
        "gold": args.gold.name, "language": language, "text_form": "ud",
        "characters": len(text), "gold_words": gold_words, "documents": len(documents),
        "threads": 1, "rounds": args.rounds, "cpu": platform.processor() or platform.machine(),
        "torch": torch.__version__,
        "timed": "our pipelines: tokenizer, senter, tagger, morphologizer, lemmatizer, parser "
                 "on one Doc per paragraph; UDPipe 1: tokenizer, tagger, parser on the whole "
                 "text; model loading and CoNLL-U writing excluded",
        "systems": {name: {"seconds": round(statistics.median(seconds[name]), 3),
                           "words": words[name],
                           "words_per_second": round(words[name] / statistics.median(seconds[name]), 1),
                           "gold_words_per_second": round(gold_words / statistics.median(seconds[name]), 1)}
                    for name in runs},
    }
    write_json(args.output, result)
    for name, row in result["systems"].items():
        print(f"{name}: {row['words_per_second']:,.0f} words/s ({row['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
