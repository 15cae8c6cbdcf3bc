"""Pipeline benchmark: training and inference words/second of tagger+parser
pipelines that differ only in their tok2vec encoder, or of whole pipelines
given as spaCy configs, in the same run."""
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import spacy
import torch
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import minibatch
from thinc.api import Config, fix_random_seed

from ..treebanks.conllu_reader import read_conllu
from ..layers.word_cache import word_caches
from .timing import interleaved_median_seconds, peak_rss_increase

ENCODERS: Dict[str, Dict[str, Any]] = {
    "elstm": {"@architectures": "spacy-elstm.RecurrentEncoder.v1", "cell": "elstm", "period": 100},
    "dbrnn-elstm": {"@architectures": "spacy-elstm.DBRNNEncoder.v1", "cell": "elstm", "period": 100},
    "elstm-input": {"@architectures": "spacy-elstm.RecurrentEncoder.v1", "cell": "elstm",
                    "gates": "input", "period": 100},
    "spacy-bilstm": {"@architectures": "spacy.TorchBiLSTMEncoder.v1", "depth": 1, "dropout": 0.0},
    "spacy-cnn": {"@architectures": "spacy.MaxoutWindowEncoder.v2", "window_size": 1,
                  "maxout_pieces": 3, "depth": 4},
}


def tagger_parser_config(encoder: Dict[str, Any], width: int) -> Config:
    """A tok2vec + tagger + parser pipeline whose components listen to one
    shared tok2vec with the given `encode` block."""
    listener = {"@architectures": "spacy.Tok2VecListener.v1", "width": width}
    return Config({
        "nlp": {"lang": "en", "pipeline": ["tok2vec", "tagger", "parser"]},
        "components": {
            "tok2vec": {"factory": "tok2vec", "model": {
                "@architectures": "spacy.Tok2Vec.v2",
                "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": width,
                          "attrs": ["NORM", "PREFIX", "SUFFIX", "SHAPE"],
                          "rows": [5000, 1000, 2500, 2500], "include_static_vectors": False},
                "encode": {**encoder, "width": width},
            }},
            "tagger": {"factory": "tagger", "model": {
                "@architectures": "spacy.Tagger.v2", "nO": None, "tok2vec": listener}},
            "parser": {"factory": "parser", "min_action_freq": 1, "model": {
                "@architectures": "spacy.TransitionBasedParser.v2", "state_type": "parser",
                "extra_state_tokens": False, "hidden_width": 64, "maxout_pieces": 2,
                "use_upper": True, "nO": None, "tok2vec": listener}},
        },
    })


def build(name: str, width: int) -> Language:
    fix_random_seed(0)
    return spacy.util.load_model_from_config(tagger_parser_config(ENCODERS[name], width),
                                             auto_fill=True, validate=True)


def build_from_config(path: str) -> Tuple[Language, bool]:
    """The pipeline a training config describes, untrained: its speed is that of
    the trained pipeline, whose weights have the same shapes (but for a decoder
    whose work depends on the scores, such as the biaffine parser's tree search:
    give its trained pipeline's folder instead). A folder is a trained
    pipeline, loaded as it is. Returns the pipeline and whether it is trained."""
    if Path(path).is_dir():
        nlp = spacy.load(path)
        nlp.config = nlp.config.interpolate()  # its optimizer resolves (for the training rows)
        return nlp, True
    fix_random_seed(0)
    config = spacy.util.load_config(path, interpolate=True)
    return spacy.util.load_model_from_config(config, auto_fill=True, validate=True), False


def load_examples(path: Path, vocab, max_words: Optional[int]) -> List[Example]:
    examples, words = [], 0
    for gold in read_conllu(path, vocab):
        if max_words is not None and words >= max_words:
            break
        examples.append(Example(Doc(vocab, words=[t.text for t in gold]), gold))
        words += len(gold)
    return examples


def make_run(name: str, mode: str, path: str, width: int, max_words: Optional[int],
             batch_words: int = 1000, config: Optional[str] = None) -> Callable[[], int]:
    """A closure doing one pass of `mode` ("train" or "predict") over the data;
    it returns the number of words processed. The pipeline is the encoder
    `name` in the tagger+parser pipeline `width` wide, or with `config` the
    pipeline of that config file."""
    nlp, trained = (build(name, width), False) if config is None else build_from_config(config)
    examples = load_examples(Path(path), nlp.vocab, max_words)
    if not trained:
        nlp.initialize(lambda: examples)
    n_words = sum(len(e.reference) for e in examples)
    if mode == "train":
        optimizer = nlp.resume_training()

        def run() -> int:
            for batch in minibatch(examples, size=max(1, batch_words // 20)):
                nlp.update(batch, sgd=optimizer)
            return n_words
    else:
        caches = [c for _, proc in nlp.pipeline if hasattr(proc, "model")
                  for c in word_caches(proc.model)]

        def run() -> int:
            for cache in caches:  # every pass meets the text as new
                cache.clear()
            docs = [Doc(nlp.vocab, words=[t.text for t in e.reference]) for e in examples]
            for _ in nlp.pipe(docs, batch_size=256):
                pass
            return n_words
        run.word_caches = caches
    return run


def word_cache_counts(run: Callable[[], int]) -> Optional[Dict[str, int]]:
    """What the word caches of a predict run's pipeline saved over its passes:
    the distinct words of each batch looked up, and those found from an earlier
    batch; None where the pipeline has no cache."""
    caches = getattr(run, "word_caches", [])
    if not caches:
        return None
    return {"lookups": sum(c.hits + c.misses for c in caches),
            "hits": sum(c.hits for c in caches)}


def run_pipeline_benchmark(*, path: Path, names: Sequence[str] = (), width: int = 128,
                           max_words: Optional[int] = None, train_words: int = 5000,
                           repeats: int = 3, memory: bool = True,
                           configs: Optional[Dict[str, str]] = None,
                           reference: Sequence[str] = ("spacy-cnn", "spacy-bilstm"),
                           progress: Callable[[str], None] = print) -> List[Dict[str, Any]]:
    """Rows of words/second (and peak memory) per pipeline and mode, with a
    `vs_<ref>` ratio against each `reference` pipeline of the same run. The
    pipelines are the encoders `names` of ENCODERS, or with `configs`
    ({name: config path}) whole pipelines from config files."""
    if configs is None:
        names = list(names) or list(ENCODERS)
        unknown = [n for n in names if n not in ENCODERS]
        if unknown:
            raise ValueError(f"Unknown pipeline encoder(s) {unknown}: choose from "
                             f"{list(ENCODERS)}.")
        configs = {}
    else:
        names = list(configs)
    runs, words, limits = {}, {}, {}
    for name in names:
        for mode in ("train", "predict"):
            limit = min(train_words, max_words or train_words) if mode == "train" else max_words
            progress(f"  {name} {mode} ({'all' if limit is None else limit} words): building")
            runs[name, mode] = make_run(name, mode, str(path), width, limit,
                                        config=configs.get(name))
            words[name, mode], limits[name, mode] = runs[name, mode](), limit  # warm-up
    progress(f"  timing {len(runs)} pipelines in {repeats} interleaved rounds")
    seconds = interleaved_median_seconds(runs, device=torch.device("cpu"), repeats=repeats,
                                         warmup=0)
    rows = []
    for (name, mode), run_seconds in seconds.items():
        mem = None
        if memory:
            progress(f"  {name} {mode}: peak memory in a fresh process")
            mem = peak_rss_increase(make_run, name=name, mode=mode, path=str(path),
                                    width=width, max_words=limits[name, mode],
                                    config=configs.get(name))
        rows.append({"name": name, "mode": mode,
                     "width": width if name not in configs else None,
                     "words": words[name, mode],
                     "repeats": repeats, "seconds": run_seconds,
                     "words_per_second": words[name, mode] / run_seconds,
                     "peak_memory_bytes": mem,
                     "word_cache": word_cache_counts(runs[name, mode])})
    for mode in ("train", "predict"):
        mode_rows = {r["name"]: r for r in rows if r["mode"] == mode}
        for row in mode_rows.values():
            for ref in reference:
                if ref in mode_rows:
                    row[f"vs_{ref}"] = row["words_per_second"] / mode_rows[ref]["words_per_second"]
    return rows
