"""The label-recurrent taggers (Dinarelli & Tellier, pytorch/label_recurrence.py)
as models of the elstm_tagger component: they learn, they decode from their own
predictions only, teacher forcing reaches them in training, and they save and load."""
import re
import subprocess
import sys

import numpy
import pytest
import spacy
import torch
from spacy.training import Example
from thinc.api import Adam, fix_random_seed

from spacy_elstm.layers import set_teacher
from spacy_elstm.pytorch.cells import FIRST_ORDER
from spacy_elstm.pytorch.label_recurrence import (DECODING_ORDERS, VARIANTS,
                                                  LabelRecurrentLabeller)

ARCH = "spacy-elstm.LabelRecurrentTagger.v1"
TRAIN = [
    ("I like green eggs", ["PRP", "VBP", "JJ", "NNS"]),
    ("Eat blue ham", ["VB", "JJ", "NN"]),
    ("She likes ham", ["PRP", "VBZ", "NN"]),
]
TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 12,
           "depth": 1, "embed_size": 300, "window_size": 1, "maxout_pieces": 2,
           "subword_features": True}


def _model(**args):
    return {"@architectures": ARCH, "width": 16, "n_prev_labels": 2, "window": 1,
            "label_width": 8, "cell": "lstm", "period": 4, "tok2vec": TOK2VEC, **args}


def _nlp(**args):
    nlp = spacy.blank("en")
    nlp.add_pipe("elstm_tagger", config={"model": _model(**args)})
    return nlp


def _examples(nlp, rows=TRAIN):
    return [Example.from_dict(nlp.make_doc(text), {"tags": tags}) for text, tags in rows]


def _train(nlp, examples, n_updates=40):
    fix_random_seed(0)
    nlp.initialize(lambda: examples)
    optimizer = Adam(0.01)
    for _ in range(n_updates):
        nlp.update(examples, sgd=optimizer)


def _scores(nlp, texts):
    tagger = nlp.get_pipe("elstm_tagger")
    return tagger.model.predict([nlp.make_doc(t) for t in texts])


@pytest.mark.parametrize("direction", DECODING_ORDERS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_each_variant_and_direction_learns_the_training_set(variant, direction):
    nlp = _nlp(variant=variant, direction=direction)
    examples = _examples(nlp)
    _train(nlp, examples)
    for text, tags in TRAIN:
        assert [t.tag_ for t in nlp(text)] == tags
    assert nlp.evaluate(examples)["tag_acc"] == 1.0


@pytest.mark.parametrize("cell", FIRST_ORDER)
def test_every_cell_runs_and_trains(cell):
    nlp = _nlp(cell=cell, variant="i+e-rnn", direction="bidirectional")
    examples = _examples(nlp)
    _train(nlp, examples, n_updates=3)
    scores = _scores(nlp, [TRAIN[0][0], "ham"])
    assert [s.shape for s in scores] == [(4, 2 * 7), (1, 2 * 7)]
    assert all(numpy.isfinite(s).all() for s in scores)


@pytest.mark.parametrize("variant", VARIANTS)
def test_prediction_ignores_gold_labels(variant):
    """Gold on the docs, gold handed to the model, or none: the same output."""
    nlp = _nlp(variant=variant, direction="bidirectional")
    examples = _examples(nlp)
    _train(nlp, examples, n_updates=5)
    tagger = nlp.get_pipe("elstm_tagger")
    plain = [nlp.make_doc(text) for text, _ in TRAIN]
    tagged = [nlp.make_doc(text) for text, _ in TRAIN]
    for doc, (_, tags) in zip(tagged, TRAIN):
        for token, tag in zip(doc, reversed(tags)):
            token.tag_ = tag
    expected = tagger.model.predict(plain)
    set_teacher(tagger.model, [[0] * len(doc) for doc in plain])
    given = tagger.model.predict(plain)
    assert "teacher" not in tagger.model.attrs  # dropped unread
    for a, b, c in zip(expected, tagger.model.predict(tagged), given):
        numpy.testing.assert_array_equal(a, b)
        numpy.testing.assert_array_equal(a, c)


# the gold label of token 1 changes: which tokens' outputs (head, token) move, and
# which stay, in every variant (I+E-RNN's hidden state carries it further on)
READS_TOKEN_1 = {
    "forward": ({(0, 2)}, {(0, 0), (0, 1)}),
    "backward": ({(0, 0)}, {(0, 1), (0, 2), (0, 3)}),
    "bidirectional": ({(0, 0), (0, 2), (1, 0)}, {(1, 1), (1, 2), (1, 3)}),
}


@pytest.mark.parametrize("direction", DECODING_ORDERS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_teacher_forcing_feeds_the_gold_labels_of_the_neighbours(variant, direction):
    """In training, with c = 1, the output at t moves with the gold label at t - 1
    (forward), at t + 1 (backward), at both (bidirectional: past labels and the
    backward network's future ones), and never with the one at t."""
    nlp = _nlp(variant=variant, direction=direction, n_prev_labels=1)
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    model = nlp.get_pipe("elstm_tagger").model
    n_labels = model.get_dim("nO")
    doc = nlp.make_doc(TRAIN[0][0])

    def train_scores(gold):
        set_teacher(model, [gold])
        scores, _ = model.begin_update([doc])
        return scores[0].reshape(len(doc), -1, n_labels)

    base = train_scores([0, 1, 2, 3])
    moved = train_scores([0, 4, 2, 3])
    moves, stays = READS_TOKEN_1[direction]
    for head, token in moves:
        assert not numpy.allclose(base[token, head], moved[token, head]), (head, token)
    for head, token in stays:
        numpy.testing.assert_array_equal(base[token, head], moved[token, head])
    assert "teacher" not in model.attrs  # handed for one pass only


def test_own_predictions_one_ignores_gold_in_training():
    nlp = _nlp(own_predictions=1.0)
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    model = nlp.get_pipe("elstm_tagger").model
    doc = nlp.make_doc(TRAIN[0][0])
    outputs = []
    for gold in ([0, 1, 2, 3], [5, 4, 6, 0], [-1, -1, -1, -1]):
        set_teacher(model, [gold])
        outputs.append(model.begin_update([doc])[0][0])
    for other in outputs[1:]:
        numpy.testing.assert_array_equal(outputs[0], other)


def test_missing_gold_falls_back_to_the_prediction():
    """A position without gold feeds what the model predicted there, as at inference."""
    module = LabelRecurrentLabeller(variant="i-rnn", direction="forward", cell="srn",
                                    input_width=3, width=5, n_labels=4, n_prev_labels=2,
                                    window=1)
    x, lengths = torch.randn(5, 3), torch.tensor([5])
    module.eval()
    predicted = module(x, lengths, flat=True)
    module.train()
    torch.testing.assert_close(module(x, lengths, flat=True, gold=torch.full((5,), -1)),
                               predicted)
    torch.testing.assert_close(module(x, lengths, flat=True), predicted)


@pytest.mark.parametrize("direction", DECODING_ORDERS)
def test_a_docs_prediction_does_not_depend_on_its_batch(direction):
    nlp = _nlp(variant="i+e-rnn", direction=direction)
    examples = _examples(nlp)
    _train(nlp, examples, n_updates=5)
    texts = [text for text, _ in TRAIN] + ["ham", "She likes green blue ham and eggs"]
    together = _scores(nlp, texts)
    for text, scores in zip(texts, together):
        numpy.testing.assert_allclose(_scores(nlp, [text])[0], scores, rtol=1e-5, atol=1e-6)


def test_empty_docs_give_empty_scores():
    nlp = _nlp(direction="bidirectional")
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    scores = _scores(nlp, ["", TRAIN[1][0]])
    assert scores[0].shape == (0, 14) and scores[1].shape == (3, 14)
    assert _scores(nlp, [""])[0].shape == (0, 14)


def test_to_disk_and_load_give_the_same_predictions(tmp_path):
    nlp = _nlp(variant="jordan", direction="bidirectional", cell="elstm")
    examples = _examples(nlp)
    _train(nlp, examples, n_updates=5)
    texts = [text for text, _ in TRAIN] + ["ham"]
    expected = _scores(nlp, texts)
    nlp.to_disk(tmp_path)

    other = _nlp(variant="jordan", direction="bidirectional", cell="elstm")
    fix_random_seed(1)
    other.initialize(lambda: examples)
    assert not numpy.allclose(_scores(other, texts[:1])[0], expected[0])

    loaded = spacy.load(tmp_path)
    for got, want in zip(_scores(loaded, texts), expected):
        numpy.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    assert [t.tag_ for t in loaded(texts[0])] == [t.tag_ for t in nlp(texts[0])]


@pytest.mark.parametrize("arg,value,message", [
    ("variant", "elman", "unknown variant 'elman': choose one of 'jordan', 'i-rnn', 'i+e-rnn'"),
    ("direction", "both", "unknown direction 'both': choose one of 'forward', 'backward', "
                          "'bidirectional'"),
    ("cell", "transformer", "unknown cell 'transformer': choose one of 'elstm', 'elstm2', "
                            "'lstm', 'gru', 'srn'"),
    ("n_prev_labels", 0, "n_prev_labels must be an integer >= 1, got 0"),
    ("window", -1, "window must be an integer >= 0, got -1"),
    ("label_width", 0, "label_width must be an integer >= 1, got 0"),
    ("own_predictions", 1.5, "own_predictions must be a number in [0, 1], got 1.5"),
    ("own_predictions", -0.1, "own_predictions must be a number in [0, 1], got -0.1"),
])
def test_bad_arguments_name_the_value_and_the_allowed_ones(arg, value, message):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="(?i)" + re.escape(f"{ARCH}: {message}")):
        nlp.add_pipe("elstm_tagger", config={"model": _model(**{arg: value})})


def test_the_architecture_comes_by_entry_point_without_import():
    code = (
        "import sys, spacy\n"
        "assert 'spacy_elstm' not in sys.modules\n"
        "nlp = spacy.blank('en')\n"
        f"nlp.add_pipe('elstm_tagger', config={{'model': {_model()!r}}})\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ok" in result.stdout


def test_the_component_hands_the_gold_label_indices_in_update(monkeypatch):
    import spacy_elstm.components.token_labeller as token_labeller

    handed = []
    real = token_labeller.set_teacher

    def spy(model, gold):
        handed.append([list(g) for g in gold])
        return real(model, gold)

    monkeypatch.setattr(token_labeller, "set_teacher", spy)
    nlp = _nlp()
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    partial = Example.from_dict(nlp.make_doc(TRAIN[1][0]), {"tags": ["VB", "", "NN"]})
    nlp.update([partial, examples[2]], sgd=Adam(0.01))
    labels = nlp.get_pipe("elstm_tagger").labels
    assert handed == [[[labels.index("VB"), -1, labels.index("NN")],
                       [labels.index(t) for t in TRAIN[2][1]]]]
    assert "teacher" not in nlp.get_pipe("elstm_tagger").model.attrs
