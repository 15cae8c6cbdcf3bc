"""Pipelines saved by an earlier release (tests/fixtures/compat, made by
tests/fixtures/make_compat_pipelines.py with spacy-elstm 0.1.0) load with the
current code and predict what they predicted when they were saved."""
import json
from pathlib import Path

import numpy
import pytest
import spacy

from fixtures.make_compat_pipelines import TEXTS

COMPAT = Path(__file__).parent / "fixtures" / "compat"
EXPECTED = json.loads((COMPAT / "expected.json").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_saved_pipeline_predicts_as_before(name):
    nlp = spacy.load(COMPAT / name)
    for doc, want in zip(nlp.pipe(TEXTS), EXPECTED[name]):
        assert [t.text for t in doc] == want["words"]
        want_tensor = numpy.array(want["tok2vec"], dtype="f").reshape(len(doc), -1 if len(doc) else 0)
        assert doc.tensor.size == want_tensor.size
        numpy.testing.assert_allclose(doc.tensor.reshape(want_tensor.shape), want_tensor, rtol=1e-4, atol=1e-5)
        assert [t.tag_ for t in doc] == want["tags"]
        assert [t.head.i for t in doc] == want["heads"]
        assert [t.dep_ for t in doc] == want["deps"]


MODELS = Path(__file__).parent / "fixtures" / "compat_models"
EXPECTED_MODELS = json.loads((MODELS / "expected.json").read_text())


def _close(got, want):
    want = numpy.array(want, dtype="f")
    got = numpy.asarray(got)
    assert got.size == want.size
    numpy.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(EXPECTED_MODELS))
def test_model_fixture_predicts_as_before(name):
    """One pipeline of each model family (tests/fixtures/make_model_pipelines.py),
    saved before the models were rebuilt in one place: the same labels, heads,
    tensors, and the same scores from every head of the recurrent labellers."""
    from fixtures.make_model_pipelines import model_scores

    nlp = spacy.load(MODELS / name)
    for text, doc, want in zip(TEXTS, nlp.pipe(TEXTS), EXPECTED_MODELS[name]):
        assert [t.text for t in doc] == want["words"]
        assert [t.tag_ for t in doc] == want["tag"]
        assert [t.pos_ for t in doc] == want["pos"]
        assert [str(t.morph) for t in doc] == want["morph"]
        assert [t.head.i for t in doc] == want["heads"]
        assert [t.dep_ for t in doc] == want["deps"]
        if want["tensor"] is None:
            assert doc.tensor.size == 0
        else:
            _close(doc.tensor, want["tensor"])
        if want["scores"]:
            got = model_scores(nlp, text)
            assert sorted(got) == sorted(want["scores"])
            for component, scores in want["scores"].items():
                _close(got[component], scores)


RAW = Path(__file__).parent / "fixtures" / "compat_raw"
EXPECTED_RAW = json.loads((RAW / "expected.json").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED_RAW))
def test_raw_text_fixture_predicts_as_before(name):
    """A pipeline of configs/raw/best_elstm.cfg's shape and one with the character
    tokenizer (tests/fixtures/make_raw_pipelines.py), saved before the raw-text
    modules moved into subpackages: the same words, multiword tokens, sentence
    starts, tags, lemmas and trees on raw text."""
    from fixtures.make_raw_pipelines import TEXTS

    nlp = spacy.load(RAW / name)
    for doc, want in zip(nlp.pipe(TEXTS), EXPECTED_RAW[name]):
        assert [t.text for t in doc] == want["words"]
        assert [bool(t.is_sent_start) for t in doc] == want["sent_starts"]
        assert doc.user_data.get("multiword_tokens", []) == want["multiword"]
        for attr in ("tag", "pos", "morph", "lemma"):
            assert [str(getattr(t, attr + "_" if attr != "morph" else attr)) for t in doc] \
                == want[attr], attr
        assert [t.head.i for t in doc] == want["heads"]
        assert [t.dep_ for t in doc] == want["deps"]
