"""Threads calling one pipeline at once get what sequential calls get, for
every torch-backed layer of the package, with dropout in every config; and a
training forward pass in one thread changes nothing in a prediction under way
in another. thinc's own PyTorchShim switched the module to eval mode and back
around every prediction, a flag shared by all threads (issue 30, item 1)."""
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy
import pytest
import spacy
import torch
from spacy.training import Example
from spacy.training.converters import conllu_to_docs
from thinc.api import Config, fix_random_seed

SAMPLE = Path(__file__).resolve().parent.parent / "assets" / "ud-ewt-sample"
WIDTH = 16
CELL = {"cell": "elstm", "period": 10, "gates": "recurrent"}
WORDS = {"@architectures": "spacy.MultiHashEmbed.v2", "width": WIDTH,
         "attrs": ["NORM", "PREFIX", "SUFFIX", "SHAPE"], "rows": [300, 50, 100, 50],
         "include_static_vectors": False}
CHARS = {"@architectures": "spacy-elstm.CharRecurrentEmbed.v1", "width": WIDTH, "words": WORDS,
         "char_width": 8, "char_rnn_width": 8, **CELL, "max_bytes": 10, "words_dropout": 0.3}
LISTENER = {"@architectures": "spacy.Tok2VecListener.v1", "width": WIDTH, "upstream": "tok2vec"}
V2_DROPOUTS = {"dropout": 0.4, "input_dropout": 0.3, "word_dropout": 0.3}
ENCODERS = {
    "v1": {"@architectures": "spacy-elstm.RecurrentEncoder.v1", "width": WIDTH, "depth": 2,
           **CELL, "dropout": 0.4},
    "v2": {"@architectures": "spacy-elstm.RecurrentEncoder.v2", "width": WIDTH, "depth": 2,
           **CELL, **V2_DROPOUTS},
    "dbrnn": {"@architectures": "spacy-elstm.DBRNNEncoder.v1", "width": WIDTH, **CELL,
              "dropout": 0.4},
    "dbrnn2": {"@architectures": "spacy-elstm.DBRNNEncoder.v2", "width": WIDTH, **CELL,
               **V2_DROPOUTS},
}
HEADS = {
    "recurrent": {"@architectures": "spacy-elstm.RecurrentTagger.v1", "width": WIDTH,
                  **CELL, "dropout": 0.4},
    "dbrnn": {"@architectures": "spacy-elstm.DBRNNTagger.v1", "width": WIDTH, **CELL,
              "dropout": 0.4},
    "seq2seq": {"@architectures": "spacy-elstm.Seq2SeqTagger.v1", "width": WIDTH,
                "attention": True, **CELL, "label_width": 8, "dropout": 0.4,
                "own_predictions": 0.3},
    # beam search runs only when predicting: a site that reads the mode too
    "seq2seq_plain": {"@architectures": "spacy-elstm.Seq2SeqTagger.v1", "width": WIDTH,
                      "attention": False, **CELL, "label_width": 8, "dropout": 0.4,
                      "beam_width": 2},
    "label_recurrent": {"@architectures": "spacy-elstm.LabelRecurrentTagger.v1",
                        "width": WIDTH, "n_prev_labels": 2, "window": 1, "label_width": 8,
                        "cell": "elstm", "period": 10, "own_predictions": 0.3, "dropout": 0.4},
}


def _tok2vec(embed, encoder):
    return {"factory": "tok2vec", "model": {"@architectures": "spacy.Tok2Vec.v2",
                                            "embed": embed, "encode": ENCODERS[encoder]}}


def _tagger(attr, head):
    return {"factory": "elstm_tagger", "attr": attr,
            "model": {**HEADS[head], "nO": None, "tok2vec": LISTENER}}


def _config(components):
    return {"nlp": {"lang": "en", "pipeline": list(components)}, "components": components}


# every torch-backed layer of the package appears in at least one pipeline
PIPELINES = {
    "v1_chars_recurrent_dbrnn_labelrec": lambda: _config({
        "tok2vec": _tok2vec(CHARS, "v1"), "tag": _tagger("tag", "recurrent"),
        "pos": _tagger("pos", "dbrnn"), "morph": _tagger("morph", "label_recurrent")}),
    "v2_seq2seq": lambda: _config({
        "tok2vec": _tok2vec(WORDS, "v2"), "tag": _tagger("tag", "seq2seq"),
        "pos": _tagger("pos", "seq2seq_plain")}),
    "dbrnn_biaffine": lambda: _config({
        "tok2vec": _tok2vec(WORDS, "dbrnn"),
        "parser": {"factory": "elstm_biaffine_parser", "model": {
            "@architectures": "spacy-elstm.BiaffineParser.v1", "arc_width": 16,
            "label_width": 8, "dropout": 0.4, "nO": None, "tok2vec": LISTENER}}}),
    "dbrnn2_seq_parser": lambda: _config({
        "tok2vec": _tok2vec(WORDS, "dbrnn2"),
        "parser": {"factory": "elstm_seq_parser", "encoding": "relative",
                   "model": {**HEADS["dbrnn"], "nO": None, "tok2vec": LISTENER}}}),
}


def _golds(split, n):
    text = (SAMPLE / f"{split}.conllu").read_text(encoding="utf8")
    return list(conllu_to_docs(text, n_sents=1, no_print=True))[:n]


@pytest.fixture(scope="module")
def texts():
    return [g.text for g in _golds("dev", 50)]


_TRAINED = {}


def trained(name):
    """The pipeline ``name``, after two updates on the committed sample, and
    a few training examples (built once per test session)."""
    if name not in _TRAINED:
        import spacy_elstm  # noqa: F401  (the factories)

        fix_random_seed(0)
        nlp = spacy.util.load_model_from_config(Config(PIPELINES[name]()), auto_fill=True,
                                                validate=True)
        examples = [Example(nlp.make_doc(g.text), g) for g in _golds("train", 16)]
        optimizer = nlp.initialize(lambda: examples)
        for _ in range(2):
            nlp.update(examples, sgd=optimizer)
        _TRAINED[name] = nlp, examples[:4]
    return _TRAINED[name]


def _arrays(value):
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in _arrays(v)]
    if hasattr(value, "shape"):
        return [numpy.asarray(value)]
    return []


def outputs(nlp, text):
    """Every component's model output for ``text`` (its raw scores), then
    what the pipeline annotates."""
    doc, out = nlp.make_doc(text), []
    for _, proc in nlp.pipeline:
        out.extend(_arrays(proc.model.predict([doc])))
        doc = proc(doc)
    return out + [doc.tensor], _labels(doc)


def _labels(doc):
    return [(t.tag_, t.pos_, str(t.morph), t.head.i, t.dep_) for t in doc]


def _mismatches(expected, got):
    """The indices of the texts whose outputs differ."""
    bad = []
    for i, ((arrays_e, labels_e), (arrays_g, labels_g)) in enumerate(zip(expected, got)):
        same = labels_e == labels_g and len(arrays_e) == len(arrays_g) and all(
            a.shape == b.shape and numpy.allclose(a, b, rtol=0, atol=1e-5)
            for a, b in zip(arrays_e, arrays_g))
        if not same:
            bad.append(i)
    return bad


def _torch_modules(model):
    return [shim._model for node in model.walk() for shim in node.shims
            if isinstance(getattr(shim, "_model", None), torch.nn.Module)]


@pytest.mark.parametrize("name", list(PIPELINES))
def test_threads_match_sequential_calls(name, texts):
    nlp, _ = trained(name)
    expected = [outputs(nlp, t) for t in texts]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda t: outputs(nlp, t), texts))
    assert _mismatches(expected, got) == []
    # and nlp itself, as a web service calls it
    with ThreadPoolExecutor(4) as pool:
        docs = list(pool.map(nlp, texts))
    assert [_labels(doc) for doc in docs] == [labels for _, labels in expected]


def _overlapping(modules, interloper):
    """Forward pre-hooks on ``modules``: at the start of each of their forward
    passes, ``interloper`` runs to its end in another thread, as if that
    thread's call had overlapped this one (deterministically)."""
    armed = {"on": True}

    def hook(module, args):
        if armed["on"]:
            armed["on"] = False
            thread = threading.Thread(target=interloper)
            thread.start()
            thread.join()
            armed["on"] = True

    return [m.register_forward_pre_hook(hook) for m in modules]


@pytest.mark.parametrize("name", list(PIPELINES))
@pytest.mark.parametrize("other", ["predict", "train"])
def test_a_call_in_another_thread_changes_nothing_in_a_prediction_under_way(name, other,
                                                                               texts):
    """Another thread's prediction ending, or its training forward pass, in the
    middle of this thread's prediction, in each component in turn: thinc's
    shim left the module in train mode then, and the rest of this prediction
    ran with dropout (and teacher forcing, and without beam search)."""
    nlp, examples = trained(name)
    texts = texts[:4]
    expected = [outputs(nlp, t) for t in texts]
    if other == "predict":
        def interloper():
            nlp(texts[-1])
    else:
        def interloper():
            nlp.update(examples, sgd=False)  # a training forward pass, weights unchanged
    changed = {}
    for component, proc in nlp.pipeline:
        handles = _overlapping(_torch_modules(proc.model), interloper)
        try:
            got = [outputs(nlp, t) for t in texts]
        finally:
            for h in handles:
                h.remove()
        if _mismatches(expected, got):
            changed[component] = _mismatches(expected, got)
    assert changed == {}


def test_predict_and_update_never_switch_the_train_flag(monkeypatch, texts):
    nlp, examples = trained("v2_seq2seq")
    calls = []
    original = torch.nn.Module.train

    def spy(module, mode=True):
        calls.append((type(module).__name__, mode))
        return original(module, mode)

    monkeypatch.setattr(torch.nn.Module, "train", spy)  # eval() calls train(False)
    list(nlp.pipe(texts[:4]))
    nlp(texts[0])
    nlp.update(examples, sgd=False)
    assert calls == []


def test_the_mode_is_the_calling_threads_own():
    from spacy_elstm.pytorch.mode import Dropout, is_training, training_mode

    module = Dropout(0.5)
    assert is_training(module)
    seen = {}
    with training_mode(False):
        thread = threading.Thread(target=lambda: seen.update(other=is_training(module)))
        thread.start()
        thread.join()
        x = torch.ones(1000)
        assert torch.equal(module(x), x)
        module.eval()  # plain PyTorch use: the flag counts outside training_mode only
        with training_mode(True):
            assert not torch.equal(module(x), x)
    assert seen == {"other": True} and not is_training(module)


@pytest.mark.parametrize("make", [
    lambda: torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.1)),
    lambda: torch.nn.BatchNorm1d(4),
    lambda: torch.nn.LSTM(2, 2, num_layers=2, dropout=0.1),
])
def test_torch_layer_refuses_modules_that_read_the_shared_flag(make):
    from spacy_elstm.layers.torch_shim import torch_layer
    from spacy_elstm.pytorch.mode import Dropout

    with pytest.raises(ValueError, match="train/eval flag"):
        torch_layer(make(), convert_inputs=None, convert_outputs=None)
    torch_layer(torch.nn.Sequential(torch.nn.Linear(2, 2), Dropout(0.1), torch.nn.LayerNorm(2)),
                convert_inputs=None, convert_outputs=None)
