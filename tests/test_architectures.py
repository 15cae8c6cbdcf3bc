"""The registered architectures: config resolution, errors, dropout, entry points."""
import json
import subprocess
import sys
from importlib.metadata import entry_points

import numpy
import pytest
import srsly
from spacy.util import registry
from thinc.api import Config

import spacy_elstm  # noqa: F401  registers the decorators
from spacy_elstm.architectures import (DBRNN_ENCODER, DBRNN_ENCODER_V2, RECURRENT_ENCODER,
                                       RECURRENT_ENCODER_V2)

ALL_ON = {"residual": True, "layer_norm": True, "projection": True, "input_dropout": 0.1,
          "word_dropout": 0.2}
LAYER_CONFIGS = {
    RECURRENT_ENCODER: {"width": 8, "depth": 2, "cell": "elstm", "period": 4, "dropout": 0.5},
    DBRNN_ENCODER: {"width": 8, "cell": "elstm2", "period": 4, "dropout": 0.5},
    RECURRENT_ENCODER_V2: {"width": 8, "depth": 2, "cell": "elstm", "period": 4, "dropout": 0.5,
                           **ALL_ON},
    DBRNN_ENCODER_V2: {"width": 8, "cell": "elstm2", "period": 4, "dropout": 0.5, **ALL_ON},
}
ALL_NAMES = [RECURRENT_ENCODER, DBRNN_ENCODER, RECURRENT_ENCODER_V2, DBRNN_ENCODER_V2]


def resolve(name, **args):
    config = Config({"model": {"@architectures": name, **args}})
    return registry.resolve(config)["model"]


def inputs(width=8):
    rng = numpy.random.default_rng(0)
    return [rng.standard_normal((n, width)).astype("f") for n in (5, 0, 2, 7)]


@pytest.mark.parametrize("name", list(LAYER_CONFIGS))
def test_layer(name):
    """thinc's generic layer checks: fill, serialise, resolve, init, forward, backprop."""
    config = Config({"model": {"@architectures": name, **LAYER_CONFIGS[name]}})
    filled = registry.fill(config)
    assert json.loads(srsly.json_dumps(filled))  # JSON-serialisable
    model = registry.resolve(filled)["model"]
    Xs = inputs()
    model.initialize(X=Xs)
    assert model.get_dim("nO") == 8
    Ys, backprop = model.begin_update(Xs)
    assert [Y.shape for Y in Ys] == [(len(X), 8) for X in Xs]
    dXs = backprop([numpy.ones_like(Y) for Y in Ys])
    assert [dX.shape for dX in dXs] == [X.shape for X in Xs]
    assert any(numpy.abs(dX).sum() > 0 for dX in dXs)
    # prediction applies no dropout: it is deterministic, training is not
    p1, p2 = model.predict(Xs), model.predict(Xs)
    for a, b in zip(p1, p2):
        numpy.testing.assert_array_equal(a, b)
    train_out = model.begin_update(Xs)[0]
    assert any(not numpy.allclose(a, b) for a, b in zip(train_out, p1) if len(a))


@pytest.mark.parametrize(
    "name,args,message",
    [
        (RECURRENT_ENCODER, {"width": 8, "cell": "elstm3"}, "'elstm3'.*'elstm', 'elstm2', 'lstm', 'gru', 'srn'"),
        (DBRNN_ENCODER, {"width": 8, "cell": "bilstm"}, "'bilstm'.*'elstm', 'elstm2'"),
        (RECURRENT_ENCODER, {"width": 9}, "width 9 is odd"),
        (RECURRENT_ENCODER, {"width": 9, "bidirectional": False, "period": 0}, "period must be an integer in \\[1, 100000\\], got 0"),
        (DBRNN_ENCODER, {"width": 7}, "width 7 is odd"),
        (RECURRENT_ENCODER, {"width": 8, "cell": "gru", "gates": "input"}, "'gru' has no gates='input'"),
        (RECURRENT_ENCODER, {"width": 8, "gates": "inputs"}, "'inputs'.*'recurrent', 'input'"),
        (RECURRENT_ENCODER, {"width": 8, "depth": 0}, "depth must be an integer >= 1, got 0"),
        (RECURRENT_ENCODER, {"width": 8, "dropout": 1.5}, "dropout must be a number in \\[0, 1\\), got 1.5"),
        (RECURRENT_ENCODER_V2, {"width": 9}, "width 9 is odd"),
        (DBRNN_ENCODER_V2, {"width": 8, "cell": "gru", "gates": "input"}, "'gru' has no gates='input'"),
        (RECURRENT_ENCODER_V2, {"width": 8, "word_dropout": 1}, "word_dropout must be a number in \\[0, 1\\), got 1"),
        (DBRNN_ENCODER_V2, {"width": 8, "input_dropout": "0.1"}, "input_dropout must be a number in \\[0, 1\\), got '0.1'"),
        # thinc's own check of the bool annotation answers first here, naming both too
        (RECURRENT_ENCODER_V2, {"width": 8, "residual": "yes"}, "residual.*'yes'"),
    ],
)
def test_bad_arguments_fail_at_config_time(name, args, message):
    with pytest.raises(ValueError, match=message) as err:
        resolve(name, **args)
    assert name in str(err.value)


def test_odd_width_is_fine_for_one_direction():
    model = resolve(RECURRENT_ENCODER, width=9, bidirectional=False)
    model.initialize(X=inputs(9))


def test_mismatched_width_is_named():
    model = resolve(RECURRENT_ENCODER, width=8)
    with pytest.raises(ValueError, match=r"shape \(n_tokens, 8\), got \(5, 6\)"):
        model.predict(inputs(6))


def test_entry_points_resolve_without_import():
    """A packaged pipeline finds the architectures through entry points only."""
    code = (
        "import sys\n"
        "from spacy.util import registry\n"
        "names = sys.argv[1:]\n"
        "assert 'spacy_elstm' not in sys.modules\n"
        "for name in names:\n"
        "    f = registry.architectures.get(name)\n"
        "    m = f(width=8)\n"
        "    assert m.get_dim('nO') == 8, name\n"
        "assert callable(registry.loggers.get('spacy-elstm.TrainingLog.v1')())\n"
        "assert callable(registry.tokenizers.get('spacy-elstm.TreebankTokenizer.v1')())\n"
        "print('resolved', len(names))\n"
    )
    result = subprocess.run([sys.executable, "-c", code, *ALL_NAMES], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert "resolved 4" in result.stdout


@pytest.mark.parametrize("group,table", [("spacy_architectures", "architectures"),
                                         ("spacy_loggers", "loggers"),
                                         ("spacy_readers", "readers"),
                                         ("spacy_augmenters", "augmenters"),
                                         ("spacy_tokenizers", "tokenizers"),
                                         ("thinc_optimizers", "optimizers")])
def test_every_decorator_name_has_an_identical_entry_point(group, table):
    registered = {n for n in getattr(registry, table).get_all() if n.startswith("spacy-elstm.")}
    declared = {ep.name for ep in entry_points(group=group) if ep.value.startswith("spacy_elstm")}
    assert registered and registered == declared


def test_v1_encoders_take_no_wiring_arguments():
    """v1 keeps its exact signature (and behaviour) for the pipelines saved with it."""
    for name in (RECURRENT_ENCODER, DBRNN_ENCODER):
        with pytest.raises(Exception, match="residual"):
            resolve(name, width=8, residual=True)


@pytest.mark.parametrize("name", [RECURRENT_ENCODER_V2, DBRNN_ENCODER_V2])
def test_v2_defaults_are_the_named_constants(name):
    from spacy_elstm import architectures as arch

    filled = registry.fill(Config({"model": {"@architectures": name, "width": 8}}))["model"]
    assert {arg: filled[arg] for arg in ("residual", "layer_norm", "projection", "dropout",
                                         "input_dropout", "word_dropout")} == {
        "residual": arch.DEFAULT_RESIDUAL, "layer_norm": arch.DEFAULT_LAYER_NORM,
        "projection": arch.DEFAULT_PROJECTION, "dropout": arch.DEFAULT_DROPOUT,
        "input_dropout": arch.DEFAULT_INPUT_DROPOUT, "word_dropout": arch.DEFAULT_WORD_DROPOUT}


@pytest.mark.parametrize("v1,v2", [(RECURRENT_ENCODER, RECURRENT_ENCODER_V2),
                                   (DBRNN_ENCODER, DBRNN_ENCODER_V2)])
def test_v2_with_its_wiring_off_predicts_what_v1_predicts(v1, v2):
    """Through thinc, with v1's weights copied into v2."""
    off = {"residual": False, "layer_norm": False, "projection": False, "dropout": 0.0,
           "input_dropout": 0.0, "word_dropout": 0.0}
    old = resolve(v1, width=8, period=4)
    new = resolve(v2, width=8, period=4, **off)
    Xs = inputs()
    old.initialize(X=Xs), new.initialize(X=Xs)
    old_module = old.layers[0].shims[0]._model
    new_module = new.layers[0].shims[0]._model
    state = old_module.state_dict()  # v1 is v2 with its options off: one layout
    new_module.load_state_dict(state)  # strict: v2 with its wiring off has no more weights
    for a, b in zip(old.predict(Xs), new.predict(Xs)):
        numpy.testing.assert_array_equal(a, b)
    # and with its default wiring it does not
    wired = resolve(v2, width=8, period=4, dropout=0.0)
    wired.initialize(X=Xs)
    # the default wiring has layer norm's weights beside v1's: they keep their init
    missing = wired.layers[0].shims[0]._model.load_state_dict(state, strict=False).missing_keys
    assert all(".norm." in key for key in missing)
    assert any(not numpy.allclose(a, b) for a, b in zip(old.predict(Xs), wired.predict(Xs))
               if len(a))
