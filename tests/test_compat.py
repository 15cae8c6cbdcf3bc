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
