"""SPACY_ELSTM_CHECK_FINITE=1: NaN or inf in a batch raises, naming the layer, the
doc and whether it was the input or a gradient; off, they pass through silently."""
import numpy
import pytest

from spacy_elstm import build_dbrnn_encoder, build_recurrent_encoder

BUILDERS = [
    lambda: build_recurrent_encoder(width=8, depth=1, cell="elstm", period=4),
    lambda: build_dbrnn_encoder(width=8, cell="elstm", period=4),
]


def layer_and_inputs(build):
    rng = numpy.random.default_rng(0)
    Xs = [rng.standard_normal((n, 8)).astype("f") for n in (5, 0, 3, 4)]
    model = build()
    model.initialize(X=Xs)
    return model, Xs


@pytest.mark.parametrize("build", BUILDERS)
def test_nan_input_raises_with_the_doc_index(build, monkeypatch):
    monkeypatch.setenv("SPACY_ELSTM_CHECK_FINITE", "1")
    model, Xs = layer_and_inputs(build)
    model.predict(Xs)  # finite: no complaint
    Xs[2][1, 3] = numpy.nan
    with pytest.raises(ValueError, match=rf"{model.name}: NaN or inf in the forward input of doc 2 "):
        model.predict(Xs)


@pytest.mark.parametrize("build", BUILDERS)
def test_inf_gradient_raises_with_the_doc_index(build, monkeypatch):
    monkeypatch.setenv("SPACY_ELSTM_CHECK_FINITE", "1")
    model, Xs = layer_and_inputs(build)
    Ys, backprop = model.begin_update(Xs)
    dYs = [numpy.ones_like(Y) for Y in Ys]
    backprop(dYs)  # finite: no complaint
    dYs[3][0, 0] = numpy.inf
    with pytest.raises(ValueError, match=r"NaN or inf in the gradient it was given of doc 3 "):
        backprop(dYs)


@pytest.mark.parametrize("build", BUILDERS)
def test_off_nan_passes_through_silently(build, monkeypatch):
    monkeypatch.delenv("SPACY_ELSTM_CHECK_FINITE", raising=False)
    model, Xs = layer_and_inputs(build)
    Xs[2][1, 3] = numpy.nan
    Ys, backprop = model.begin_update(Xs)
    assert numpy.isnan(Ys[2]).any()
    assert numpy.isfinite(Ys[0]).all()  # each doc is encoded alone
    dXs = backprop([numpy.ones_like(Y) for Y in Ys])
    assert numpy.isnan(dXs[2]).any()
