"""Official scores: a pipeline's predictions on gold tokenisation and gold
sentences, written as CoNLL-U and scored by the CoNLL 2018 shared task's own
evaluation script, `conll18_ud_eval.py` (a project asset, never copied into
this repository; MPL 2.0).

The gold file is read with the project's one CoNLL-U reader
(`treebanks/conllu_reader.py`), one Doc per sentence. The pipeline runs on Docs built from
the gold words and spaces, one per gold sentence, so it never sees another
tokenisation or another sentence split. A parser may still give a sentence more
than one root (spaCy's Doc allows it); CoNLL-U, and the script, want exactly one
per sentence, so every extra root is attached to the first one with the
relation `dep`, and the JSON counts the words so re-attached.
"""
import contextlib
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple, Union

from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..text.input_modes import TEXT_UNITS, check_choice, make_docs, text_units
from ..text.multiword import joined_docs, set_word_forms, word_forms
from .conllu_writer import doc_to_conllu
from ..files import write_atomically
from .gold_text import RawDocument
from .gold_variants import check_variant, variant_documents, variant_gold
from .ud_names import language_code
from .conllu_reader import _blocks, read_conllu

SCORER = "CoNLL 2018 official (conll18_ud_eval.py)"
# Where `spacy project assets` puts the script (relative to the project folder),
# the environment variable that can point elsewhere, and the asset's checksum.
SCORER_ASSET = Path("assets/conll2018-eval/conll18_ud_eval.py")
SCORER_ENV = "SPACY_ELSTM_CONLL18_EVAL"
SCORER_MD5 = "6cbfb34f71fa0d1e495d1619ea0dafc9"
SCORER_URL = ("https://raw.githubusercontent.com/ufal/conll2018/"
              "f2bc4dd16326d149d68bb53b427d3266fbe6a00a/evaluation_script/conll18_ud_eval.py")
# The headline metrics, and the Doc annotation each one needs from the pipeline.
METRICS = {"UPOS": "POS", "XPOS": "TAG", "UFeats": "MORPH", "UAS": "DEP", "LAS": "DEP",
           "CLAS": "DEP"}


# Every metric of the script, for raw text in, and what each needs from the pipeline
RAW_METRICS = {"Tokens": (), "Sentences": (), "Words": (), "UPOS": ("POS",), "XPOS": ("TAG",),
               "UFeats": ("MORPH",), "AllTags": ("POS", "TAG", "MORPH"), "Lemmas": ("LEMMA",),
               "UAS": ("DEP",), "LAS": ("DEP",), "CLAS": ("DEP",),
               "MLAS": ("DEP", "POS", "MORPH"), "BLEX": ("DEP", "LEMMA")}


class ScoringError(ValueError):
    """Scoring cannot go on; the message names the file and the problem."""


@dataclass
class GoldSentence:
    """One gold sentence: its Doc (gold words, spaces and annotation) and what
    CoNLL-U keeps beside the words: its multiword tokens, as (first word, last
    word, form) with 1-based word ids, and its `sent_id`."""

    doc: Doc
    multiword: List[Tuple[int, int, str]] = field(default_factory=list)
    sent_id: Optional[str] = None


def read_gold(path: Union[str, Path], vocab: Optional[Vocab] = None) -> List[GoldSentence]:
    """The sentences of a CoNLL-U file, checked by `treebanks/conllu_reader.py` (which
    raises CorpusFormatError naming the file and line)."""
    path = Path(path)
    docs = read_conllu(path, vocab)
    sentences = []
    for doc, block in zip(docs, _blocks(path)):
        sentence = GoldSentence(doc)
        for line in block.lines:
            if line.startswith("#"):
                key, sep, value = line[1:].partition("=")
                if sep and key.strip() == "sent_id":
                    sentence.sent_id = value.strip()
                continue
            columns = line.split("\t")
            first, sep, last = columns[0].partition("-")
            if sep:
                sentence.multiword.append((int(first), int(last), columns[1]))
        sentences.append(sentence)
    if len(sentences) != len(docs):  # the reader and _blocks disagree: a bug, not the file
        raise ScoringError(f"{path}: read {len(docs)} sentences but {len(sentences)} blocks.")
    return sentences


def write_conllu(path: Union[str, Path], docs: Sequence[Doc],
                 gold: Optional[Sequence[GoldSentence]] = None) -> int:
    """Write `docs`, one sentence each, to `path` atomically (with the
    multiword tokens and sent_ids of `gold`, sentence by sentence, if given);
    returns the number of words re-attached to make single-root trees."""
    if gold is not None and len(gold) != len(docs):
        raise ValueError(f"{len(docs)} docs but {len(gold)} gold sentences.")
    blocks, repaired = [], 0
    for k, doc in enumerate(docs):
        extra = {} if gold is None else {
            "multiword": [(a - 1, b - 1, form) for a, b, form in gold[k].multiword],
            "sent_ids": [gold[k].sent_id]}
        block, count = doc_to_conllu(doc, one_sentence=True, **extra)
        blocks.append(block)
        repaired += count
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, "".join(blocks).encode("utf8"))
    return repaired


def write_raw_conllu(path: Union[str, Path], docs: Sequence[Doc],
                     documents: Sequence[RawDocument]) -> Tuple[int, int]:
    """Write the pipeline's Docs of raw documents, each with its own sentences
    and its document id, to `path` atomically; returns the words re-attached
    and the sentences written."""
    text, repaired = [], 0
    for doc, document in zip(docs, documents):
        block, count = doc_to_conllu(doc, doc_id=document.doc_id)
        text.append(block)
        repaired += count
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(text)
    write_atomically(path, data.encode("utf8"))
    return repaired, data.count("\n\n")


def find_scorer(scorer: Optional[Union[str, Path]] = None) -> Path:
    """The evaluation script: `scorer` if given, else $SPACY_ELSTM_CONLL18_EVAL,
    else the project asset's path (relative to the current folder). A missing
    one is a ScoringError that says where to put it and how to get it."""
    if scorer is not None:
        path, origin = Path(scorer), "--scorer"
    elif os.environ.get(SCORER_ENV):
        path, origin = Path(os.environ[SCORER_ENV]), f"${SCORER_ENV}"
    else:
        path, origin = SCORER_ASSET, "the project asset path"
    if not path.is_file():
        raise ScoringError(
            f"the CoNLL 2018 evaluation script is not at {path} ({origin}). Get it with "
            f"`python -m spacy project assets` in the project folder, which puts it at "
            f"{SCORER_ASSET}; without internet, copy conll18_ud_eval.py ({SCORER_URL}, md5 "
            f"{SCORER_MD5}) to {path}; or name a copy elsewhere with --scorer PATH or "
            f"${SCORER_ENV}.")
    return path


def load_scorer(path: Union[str, Path]) -> ModuleType:
    """conll18_ud_eval.py as a module (it is written to be imported)."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location("conll18_ud_eval", path)
    if spec is None or spec.loader is None:
        raise ScoringError(f"{path}: cannot be loaded as a Python module.")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # a wrong file at the path: say which
        raise ScoringError(f"{path}: not the CoNLL 2018 evaluation script ({err}).") from None
    for name in ("load_conllu", "evaluate", "UDError"):
        if not hasattr(module, name):
            raise ScoringError(f"{path}: not the CoNLL 2018 evaluation script (no {name}).")
    return module


def md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def official_scores(scorer: ModuleType, gold: Path, system: Path) -> Dict[str, Any]:
    """The script's evaluation of `system` against `gold`: metric name -> its
    Score (precision, recall, f1, ...). Its UDError is a ScoringError. The files
    are read as `treebanks/conllu_reader.py` reads them, a UTF-8 byte-order mark skipped
    (the script's own load_conllu_file would take it for part of the first line).
    The script follows each word's chain of heads by recursion, one call per word,
    so it runs with Python's recursion limit raised above the longest sentence
    (a 1,000-word sentence would otherwise raise RecursionError)."""
    loaded = {}
    depth = max(_longest_sentence(gold), _longest_sentence(system)) + 1000
    with _recursion_limit(depth):
        for role, path in (("gold", gold), ("system", system)):
            try:
                with open(path, encoding="utf-8-sig") as file:
                    loaded[role] = scorer.load_conllu(file)
            except UnicodeDecodeError as err:
                raise ScoringError(f"{path} ({role} file): not UTF-8 ({err.reason} at byte "
                                   f"{err.start}).") from None
            except scorer.UDError as err:
                raise ScoringError(f"{path} ({role} file): {err}") from None
        try:
            return scorer.evaluate(loaded["gold"], loaded["system"])
        except scorer.UDError as err:
            raise ScoringError(f"{system} against {gold}: {err}") from None


def _longest_sentence(path: Path) -> int:
    """The most lines of one sentence block of a CoNLL-U file (at least its words)."""
    longest = current = 0
    with open(path, encoding="utf-8-sig", errors="replace") as file_:
        for line in file_:
            current = current + 1 if line.strip() else 0
            longest = max(longest, current)
    return longest


@contextlib.contextmanager
def _recursion_limit(depth: int):
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, depth))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def predict(nlp, gold: Sequence[GoldSentence], batch_size: Optional[int] = None, *,
            gold_lemmas: bool = False) -> Tuple[List[Doc], float]:
    """The pipeline's Docs for the gold sentences (gold words and spaces, one
    Doc per sentence, its sentence boundaries set so that a parser that splits
    sentences keeps each whole, the tokenizer not run) and the seconds it took. With
    `gold_lemmas`, the input Docs carry the gold lemmas too (CoNLL-U column 3),
    for pipelines trained on lemma input (spacy-elstm.GoldLemmaCorpus.v1)."""
    inputs = []
    for s in gold:
        doc = Doc(nlp.vocab, words=[t.text for t in s.doc],
                  spaces=[bool(t.whitespace_) for t in s.doc],
                  sent_starts=[True] + [False] * (len(s.doc) - 1))
        if gold_lemmas:
            for token, gold_token in zip(doc, s.doc):
                token.lemma_ = gold_token.lemma_
        set_word_forms(doc, word_forms(s.doc))  # the words of a token they do not spell
        inputs.append(doc)
    start = time.perf_counter()
    docs = list(nlp.pipe(inputs, batch_size=batch_size))
    return docs, time.perf_counter() - start


def predict_raw(nlp, documents: Sequence[RawDocument], batch_size: Optional[int] = None,
                text_unit: str = "paragraph") -> Tuple[List[Doc], float]:
    """The pipeline's Docs for the documents' raw text, tokenizer and all, and
    the seconds it took: one Doc per paragraph (or `text_unit`: line, file), as
    `spacy-elstm parse` reads a text file (`text/input_modes.py`), joined again
    into one Doc per document."""
    pieces = [(k, piece) for k, document in enumerate(documents)
              for piece in text_units(document.text, text_unit)]
    start = time.perf_counter()
    made = make_docs(nlp, (p for _, p in pieces), "raw", batch_size or nlp.batch_size)
    parsed = list(nlp.pipe(made, batch_size=batch_size))
    seconds = time.perf_counter() - start
    groups: List[List[Doc]] = [[] for _ in documents]
    for (k, _), doc in zip(pieces, parsed):
        groups[k].append(doc)
    return [joined(nlp.vocab, group) for group in groups], seconds


def joined(vocab: Vocab, docs: Sequence[Doc]) -> Doc:
    """Docs as one, their multiword tokens kept (Doc.from_docs drops them)."""
    if not docs:
        return Doc(vocab, words=[])
    return joined_docs(docs, ensure_whitespace=True)


def components_config(nlp) -> Dict[str, Any]:
    """The pipeline's [components] settings as it was loaded, interpolated: what
    made it, so that a score can be matched to the config that trained it."""
    return json.loads(json.dumps(nlp.config.interpolate()["components"]))


def tok2vec_architectures(nlp) -> List[str]:
    """The registered architecture of each tok2vec component's model, as the
    pipeline was loaded (spacy.Tok2Vec.v2 reads a doc whole,
    spacy-elstm.SentenceTok2Vec.v1 sentence by sentence)."""
    components = nlp.config["components"]
    return [components[name]["model"]["@architectures"] for name in nlp.pipe_names
            if components[name].get("factory") == "tok2vec"
            and "@architectures" in components[name].get("model", {})]


def not_predicted(docs: Sequence[Doc], metrics: Optional[Dict[str, Any]] = None) -> List[str]:
    """The metrics (by default the headline ones) whose annotation none of the docs has."""
    if metrics is None:
        metrics = {metric: (attr,) for metric, attr in METRICS.items()}
    return sorted(metric for metric, attrs in metrics.items()
                  if not all(any(doc.has_annotation(a) for doc in docs) for a in attrs))


# the tagging metrics split by whether the training data has the word
SPLIT_METRICS = {"UPOS": "pos_", "XPOS": "tag_"}


def seen_forms(path: Union[str, Path]) -> Set[str]:
    """The lowercased word forms of a CoNLL-U file (a training split)."""
    return {token.text.lower() for doc in read_conllu(path) for token in doc}


def unseen_scores(docs: Sequence[Doc], gold: Sequence[GoldSentence],
                  seen: Set[str]) -> Dict[str, Dict[str, Any]]:
    """Tagging accuracy (percent, word by word, on the gold words) on the words
    whose lowercased form is not in ``seen`` ("unseen") and on the others
    ("seen"), with their counts; a metric the docs do not predict is null."""
    counts = {part: {"words": 0, **{m: 0 for m in SPLIT_METRICS}} for part in ("unseen", "seen")}
    for doc, sentence in zip(docs, gold):
        for token, gold_token in zip(doc, sentence.doc):
            entry = counts["seen" if gold_token.text.lower() in seen else "unseen"]
            entry["words"] += 1
            for metric, attr in SPLIT_METRICS.items():
                entry[metric] += getattr(token, attr) == getattr(gold_token, attr)
    missing = not_predicted(docs)
    return {part: {"words": c["words"],
                   **{m: (round(100 * c[m] / c["words"], 2)
                          if c["words"] and m not in missing else None) for m in SPLIT_METRICS}}
            for part, c in counts.items()}


def score(pipeline: Union[str, Path], gold_path: Union[str, Path], *,
          output: Optional[Union[str, Path]] = None,
          predictions: Optional[Union[str, Path]] = None,
          scorer: Optional[Union[str, Path]] = None, gpu_id: int = -1,
          batch_size: Optional[int] = None, gold_lemmas: bool = False,
          train: Optional[Union[str, Path]] = None,
          overrides: Optional[Dict[str, Any]] = None, raw: bool = False,
          text_form: str = "ud", text_unit: str = "paragraph",
          text_variant: str = "as-written",
          language: Optional[str] = None) -> Dict[str, Any]:
    """Run `pipeline` on the gold sentences of `gold_path`, write its
    predictions as CoNLL-U (to `predictions`, or a temporary file), score them
    with the official script and return (and write to `output`, atomically)
    the scores. Percentages for the headline metrics, the script's raw F1 of
    every metric under "f1"; a metric whose annotation the pipeline does not
    predict is null (and listed under "not_predicted"). `gold_lemmas`: give
    the pipeline the gold lemmas as input (recorded as "input"). `train`: a
    CoNLL-U training split; the scores then also give UPOS and XPOS accuracy on
    the words it does not have ("unseen") and on the others ("seen"), computed
    here rather than by the script. `overrides`: config overrides for loading
    the pipeline, dotted keys as spaCy's CLI takes them (e.g.
    {"components.elstm_tagger.model.beam_width": 4}), recorded as "overrides".
    `raw`: run the pipeline on the raw text of GOLD's documents (`gold_text.py`,
    in `text_form`: "ud", UD's own text files, or "joined"),
    its own tokenizer and sentence splitter and all, and give every metric of
    the script (RAW_METRICS: Tokens, Sentences and Words too) as a percentage,
    with what decided the senter's sentence ends ("senter") and how the
    tok2vec read the text ("tok2vec": its architecture); one Doc per paragraph
    of each document, or per `text_unit` ("line", "file"); `text_variant`: the
    gold rewritten as users' text comes (`gold_variants.py`: "crlf",
    "lowercase", "unpunctuated"), the script scoring against the rewritten gold;
    `language`: the treebank's UD language code, which decides how UD's text
    form wraps its lines (default: from GOLD's name, `ud_names.language_code`)."""
    import spacy

    scorer_path = find_scorer(scorer)  # before the slow parts
    module = load_scorer(scorer_path)
    seen = None if train is None else seen_forms(train)
    gold_path = Path(gold_path)
    if gpu_id >= 0:
        spacy.require_gpu(gpu_id)
    if raw and (gold_lemmas or train is not None):
        raise ScoringError("--raw scores raw text: it takes neither --gold-lemmas nor --train.")
    check_choice("text unit", text_unit, TEXT_UNITS)
    check_variant(text_variant)
    if not raw and text_variant != "as-written":
        raise ScoringError("--text-variant rewrites the raw text: it needs --raw.")
    if not raw and language is not None:
        raise ScoringError("--language says how the raw text is written: it needs --raw.")
    nlp = spacy.load(pipeline, config=dict(overrides or {}))
    with tempfile.TemporaryDirectory(prefix="spacy-elstm-score-") as temp:
        system = Path(predictions) if predictions is not None else Path(temp) / "predictions.conllu"
        if raw:
            scored_gold = variant_gold(gold_path, text_variant, Path(temp) / "gold")
            language = language or language_code(gold_path)
            documents = variant_documents(scored_gold, text_form, text_variant, language)
            docs, seconds = predict_raw(nlp, documents, batch_size, text_unit)
            repaired, sentence_count = write_raw_conllu(system, docs, documents)
        else:
            scored_gold = gold_path
            gold = read_gold(gold_path, nlp.vocab)
            docs, seconds = predict(nlp, gold, batch_size, gold_lemmas=gold_lemmas)
            repaired, sentence_count = write_conllu(system, docs, gold), len(docs)
        evaluation = official_scores(module, scored_gold, system)
    words = sum(1 for doc in docs for t in doc if not t.is_space)
    metrics = RAW_METRICS if raw else METRICS
    missing = not_predicted(docs, RAW_METRICS if raw else None)
    result: Dict[str, Any] = {
        "scorer": SCORER,
        "scorer_md5": md5(scorer_path),
        "gold": gold_path.name,
        "pipeline": str(pipeline),
        "components": list(nlp.pipe_names),
        "components_config": components_config(nlp),
        "tokenisation": "pipeline" if raw else "gold",
        "sentences": "pipeline" if raw else "gold",
        "input": "raw text" if raw else "gold lemmas" if gold_lemmas else "words",
    }
    if raw:
        result["text_form"] = text_form
        result["text_unit"] = text_unit
        result["text_variant"] = text_variant
        result["language"] = language
        senters = [pipe.decisions() for _, pipe in nlp.pipeline if hasattr(pipe, "decisions")]
        if senters:
            result["senter"] = senters[0]
        readers = tok2vec_architectures(nlp)
        if readers:
            result["tok2vec"] = readers[0]
    if overrides:
        result["overrides"] = dict(overrides)
    for metric in metrics:
        result[metric] = None if metric in missing else round(100 * evaluation[metric].f1, 2)
    result.update({
        "not_predicted": missing,
        "repaired_roots": repaired,
        "sentence_count": sentence_count,
        "words": words,
        "seconds": round(seconds, 3),
        "words_per_second": round(words / seconds, 1) if seconds > 0 else None,
        "gpu_id": gpu_id,
        "f1": {name: s.f1 for name, s in evaluation.items()},
    })
    if raw:
        result["documents"] = len(documents)
        result["gold_sentences"] = sum(d.sentences for d in documents)
    if seen is not None:
        result["unseen_in"] = Path(train).name
        result.update(unseen_scores(docs, gold, seen))
    if output is not None:
        output = Path(output)
        output.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(output, (json.dumps(result, indent=2) + "\n").encode("utf8"))
    return result
