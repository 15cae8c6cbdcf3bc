"""Where a pipeline's time goes, at inference or in training: the tokenizer
(raw text only), each component, and inside the tok2vec its embedding (for the
character-level embedding: the word features, the characters and the mixing
layer) and its encoder, on a CoNLL-U file, one thread, the median of
interleaved rounds. Word caches are emptied before every round, so each round
meets the text as new.

    python -m lab.pipeline_profile NAME=PIPELINE_OR_CONFIG ... [--train] [--every-token NAME ...] [--data dev.conllu] [--raw] [--gpu-id 0] [--output metrics/profile-inference.json]

A config is built untrained (the trained pipeline's shapes); a folder is a
trained pipeline. Inference runs batches of 256 Docs; `--raw` runs on each gold
document's raw text, the pipeline's tokenizer first, otherwise on the gold
words, one sentence per Doc. `--train` times the steps of `Language.update`
one by one on batches of `--batch-words` words of the first `--train-words`
words: each component's update (its forward and backward; a shared tok2vec's
backward runs inside the components that listen to it), then the optimizer
(every `finish_update`); the tok2vec's layers are timed forward and backward.
On a GPU (`--gpu-id`) every timer waits for the device.
`--every-token NAME`: that pipeline's character embedding reads every token's
bytes, each time, as it did before it read each distinct word of a batch once
and kept words' vectors between batches (the reference for those two).
"""
import argparse
import json
import platform
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Callable, Dict, List

import spacy
import torch
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import minibatch
from thinc.api import Model

from spacy_elstm.benchmarks.pipelines import build_from_config, load_examples
from spacy_elstm.benchmarks.timing import cpu_model
from spacy_elstm.files import write_atomically
from spacy_elstm.layers.chars import read_words, word_bytes
from spacy_elstm.layers.word_cache import word_caches
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.conllu_reader import read_conllu
from spacy_elstm.treebanks.ud_names import language_code


def _now() -> float:
    """The time, once the GPU (if one is in use) has done what it was given."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()
    return time.perf_counter()


def _timed(func: Callable, name: str, seconds: Dict[str, float]) -> Callable:
    """A layer's forward that adds its own time (its layers' included) to
    `name`, and its backward's to `name:backward`."""
    def forward(model: Model, X, is_train: bool):
        start = _now()
        Y, backprop = func(model, X, is_train)
        seconds[name] += _now() - start

        def timed_backprop(dY):
            begin = _now()
            dX = backprop(dY)
            seconds[f"{name}:backward"] += _now() - begin
            return dX

        return Y, timed_backprop
    forward.__wrapped_forward__ = func
    return forward


def tok2vec_layers(model: Model) -> Dict[str, Model]:
    """The layers of a spacy.Tok2Vec.v2 model (chain(embed, encode)) or a
    spacy-elstm.SentenceTok2Vec.v1 one (the same two layers) to time,
    by name; the character-level embedding's three parts too."""
    embed, encode = model.layers[0], model.layers[-1]
    layers = {"embed": embed, "encode": encode}
    if embed.name.endswith("_char_recurrent_embed"):
        (words, chars), mix = embed.layers[0].layers, embed.layers[1]
        layers.update({"embed/words": words, "embed/chars": chars, "embed/mix": mix})
    return layers


def _tok2vecs(nlp: Language):
    return [(name, proc) for name, proc in nlp.pipeline
            if "tok2vec" in name and isinstance(getattr(proc, "model", None), Model)]


def read_every_token(model: Model, docs: List[Doc], is_train: bool):
    """The character layer's inference reading every token (see the module docstring)."""
    words = [word_bytes(t.text, model.attrs["max_bytes"]) for doc in docs for t in doc]
    if not words:
        return [model.ops.alloc2f(0, model.get_dim("nO")) for _ in docs], lambda dYs: []
    Y, _ = read_words(model, words, False)
    return model.ops.unflatten(Y, [len(doc) for doc in docs]), lambda dYs: []


def instrument(nlp: Language, seconds: Dict[str, float]) -> None:
    """Wrap the forward of every tok2vec component's layers to time them."""
    for name, proc in _tok2vecs(nlp):
        for part, layer in tok2vec_layers(proc.model).items():
            layer._func = _timed(layer._func, f"{name}/{part}", seconds)


def uninstrument(nlp: Language) -> None:
    """Undo ``instrument``: every wrapped layer gets its own forward back."""
    for _, proc in _tok2vecs(nlp):
        for layer in tok2vec_layers(proc.model).values():
            while getattr(layer._func, "__wrapped_forward__", None) is not None:
                layer._func = layer._func.__wrapped_forward__


def _empty_caches(nlp: Language) -> None:
    for _, proc in nlp.pipeline:
        if isinstance(getattr(proc, "model", None), Model):
            for cache in word_caches(proc.model):
                cache.clear()


def predict_round(nlp: Language, inputs: List, raw: bool, seconds: Dict[str, float]) -> None:
    _empty_caches(nlp)
    start = _now()
    if raw:
        docs = [nlp.make_doc(text) for text in inputs]
        seconds["tokenizer"] += _now() - start
    else:
        docs = [Doc(nlp.vocab, words=words) for words in inputs]
    for name, proc in nlp.pipeline:
        begin = _now()
        docs = list(proc.pipe(docs, batch_size=256))
        seconds[name] += _now() - begin
    seconds["total"] += _now() - start


def train_round(nlp: Language, batches: List[List[Example]], optimizer,
                seconds: Dict[str, float], drop: float = 0.2) -> None:
    """`Language.update` on each batch, its steps timed one by one."""
    trainable = [(name, proc) for name, proc in nlp.pipeline
                 if hasattr(proc, "update") and hasattr(proc, "finish_update")]
    start = _now()
    for batch in batches:
        losses: Dict[str, float] = {}
        for name, proc in trainable:
            begin = _now()
            proc.update(batch, drop=drop, sgd=None, losses=losses)
            seconds[name] += _now() - begin
        begin = _now()
        for _, proc in trainable:
            proc.finish_update(optimizer)
        seconds["optimizer"] += _now() - begin
    seconds["total"] += _now() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipelines", nargs="+", metavar="NAME=PIPELINE_OR_CONFIG")
    parser.add_argument("--data", type=Path,
                        default=Path("assets/UD_English-EWT/en_ewt-ud-dev.conllu"))
    parser.add_argument("--raw", action="store_true")
    parser.add_argument("--train", action="store_true")
    parser.add_argument("--train-words", type=int, default=5000)
    parser.add_argument("--batch-words", type=int, default=1000)
    parser.add_argument("--every-token", nargs="*", default=[], metavar="NAME")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--gpu-id", type=int, default=-1)
    parser.add_argument("--output", type=Path, default=Path("metrics/profile-inference.json"))
    args = parser.parse_args(argv)
    if args.raw and args.train:
        parser.error("--raw times inference only; leave out --train or --raw.")
    if args.gpu_id >= 0:
        spacy.require_gpu(args.gpu_id)
    torch.set_num_threads(1)
    pipelines, inputs, words, optimizers = {}, {}, {}, {}
    for spec in args.pipelines:
        name, _, path = spec.partition("=")
        nlp, trained = build_from_config(path)
        examples = load_examples(args.data, nlp.vocab, args.train_words if args.train else None)
        if not trained:
            nlp.initialize(lambda: examples)
        if args.train:
            inputs[name] = list(minibatch(examples, size=max(1, args.batch_words // 20)))
            optimizers[name] = nlp.resume_training()
            words[name] = sum(len(e.reference) for e in examples)
        elif args.raw:
            inputs[name] = [doc.text for doc in raw_documents(args.data, "ud",
                                                              language_code(args.data))]
        else:
            inputs[name] = [[t.text for t in e.reference] for e in examples]
        if not args.train:
            words[name] = sum(len(gold) for gold in read_conllu(args.data, nlp.vocab))
        if name in args.every_token:
            for _, proc in _tok2vecs(nlp):
                tok2vec_layers(proc.model)["embed/chars"]._func = read_every_token
        pipelines[name] = nlp

    def one_round(name: str, seconds: Dict[str, float], head: int = 0) -> None:
        data = inputs[name][:head] if head else inputs[name]
        if args.train:
            train_round(pipelines[name], data, optimizers[name], seconds)
        else:
            predict_round(pipelines[name], data, args.raw, seconds)

    for name in pipelines:  # a first pass: caches of spaCy's and torch's warm
        one_round(name, defaultdict(float), head=2 if args.train else 50)
    rounds: Dict[str, List[Dict[str, float]]] = defaultdict(list)
    for _ in range(args.rounds):
        for name, nlp in pipelines.items():
            seconds: Dict[str, float] = defaultdict(float)
            instrument(nlp, seconds)
            one_round(name, seconds)
            uninstrument(nlp)
            rounds[name].append(dict(seconds))
    results = {}
    for name, per_round in rounds.items():
        keys = sorted(set().union(*per_round), key=lambda k: (k != "total", k))
        median = {k: statistics.median(r.get(k, 0.0) for r in per_round) for k in keys}
        results[name] = {"words": words[name], "seconds": median,
                         "components": pipelines[name].pipe_names,
                         "words_per_second": words[name] / median["total"]}
    env = {"torch": torch.__version__, "threads": 1, "cpu": cpu_model(), "machine": platform.machine(),
           "python": platform.python_version()}
    if args.gpu_id >= 0:
        env["gpu"] = torch.cuda.get_device_name(args.gpu_id)
    out = {"benchmark": "pipeline_profile", "mode": "train" if args.train else "predict",
           "data": args.data.name, "raw": args.raw, "rounds": args.rounds,
           "batch_words": args.batch_words if args.train else None,
           "pipelines": dict(p.split("=", 1) for p in args.pipelines),
           "every_token": args.every_token, "results": results, "environment": env}
    write_atomically(args.output, (json.dumps(out, indent=2) + "\n").encode("utf8"))
    for name, result in results.items():
        total = result["seconds"]["total"]
        print(f"{name}: {result['words_per_second']:,.0f} words/s")
        for key, value in result["seconds"].items():
            print(f"  {key:32s} {value:7.3f} s  {100 * value / total:5.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
