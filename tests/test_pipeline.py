"""Encoders inside real spaCy pipelines: training, serialisation, bad input."""
import numpy
import pytest
import spacy

from pipeline_utils import ENCODERS, TRAIN, make_examples, make_nlp, predictions, trained_nlp


@pytest.mark.parametrize("name", list(ENCODERS))
def test_trains_and_round_trips(name, tmp_path):
    nlp, history = trained_nlp(name)
    assert history[-1] < 0.5 * history[0], history
    texts = [" ".join(words) for words, *_ in TRAIN]
    before = predictions(nlp, texts)
    nlp.to_disk(tmp_path)
    fresh = make_nlp(name)
    fresh.initialize(lambda: make_examples(fresh))  # untrained: different predictions
    assert predictions(fresh, texts) != before
    loaded = spacy.load(tmp_path)
    assert predictions(loaded, texts) == before
    v1 = nlp.get_pipe("tok2vec").predict([nlp.make_doc(texts[0])])[0]
    v2 = loaded.get_pipe("tok2vec").predict([loaded.make_doc(texts[0])])[0]
    numpy.testing.assert_array_equal(v1, v2)


@pytest.fixture(scope="module")
def elstm_nlp():
    return trained_nlp("elstm", n_iter=3)[0]


def test_bad_input_docs(elstm_nlp):
    texts = ["", "   \n\t ", "Hello", "word " * 5000, "A short one ."]
    docs = list(elstm_nlp.pipe(texts, batch_size=8))
    assert [len(d) for d in docs] == [0, 1, 1, 5000, 4]
    for doc in docs:
        assert all(t.tag_ for t in doc)
    # the tok2vec output has the right shape even for the empty doc
    assert docs[0].tensor.shape[0] == 0


def test_doc_encoding_does_not_depend_on_its_batch(elstm_nlp):
    tok2vec = elstm_nlp.get_pipe("tok2vec")
    make = elstm_nlp.make_doc
    target = "the cat sat on the mat"
    alone = tok2vec.predict([make(target)])[0]
    batch = tok2vec.predict([make("a much longer sentence " * 5), make(target), make("hi")])[1]
    numpy.testing.assert_allclose(alone, batch, rtol=1e-5, atol=1e-6)


def test_training_log_writes_one_line_per_evaluation(tmp_path, elstm_nlp):
    import io
    import json

    from spacy.util import registry

    path = tmp_path / "logs" / "train.jsonl"
    setup = registry.loggers.get("spacy-elstm.TrainingLog.v1")(output_file=path,
                                                                progress_bar=None)
    log_step, finalize = setup(elstm_nlp, io.StringIO(), io.StringIO())
    info = {"epoch": 0, "step": 200, "score": 0.5, "other_scores": {"tag_acc": 0.9},
            "losses": {"tok2vec": 1.0, "tagger": 2.0, "parser": 3.0}, "seconds": 12,
            "words": 3400, "checkpoints": []}
    log_step(info)
    log_step(None)  # a step without evaluation writes nothing
    finalize()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines == [{"epoch": 0, "step": 200, "words": 3400, "seconds": 12, "score": 0.5,
                      "scores": {"tag_acc": 0.9},
                      "losses": {"tok2vec": 1.0, "tagger": 2.0, "parser": 3.0}}]
