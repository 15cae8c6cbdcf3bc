"""Every argument of the architectures is checked when the architecture function
is called, which is when a config is resolved: a bad value fails there with a
message naming the architecture, the argument, the value and what is allowed,
not later in initialize or deep in torch. The error is thinc's
ConfigValidationError, located at the config section, so spaCy's commands print
it in a few lines, as they print their own config errors, without a traceback."""
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.util import registry
from thinc.api import ConfigValidationError

import spacy_elstm  # noqa: F401  registers the decorators
from spacy_elstm.architectures import (DBRNN_ENCODER, DBRNN_ENCODER_V2, MAX_PERIOD,
                                       RECURRENT_ENCODER, RECURRENT_ENCODER_V2,
                                       check_encoder_args)

ROOT = Path(__file__).parent.parent
BOTH = [RECURRENT_ENCODER, DBRNN_ENCODER]
V2 = [RECURRENT_ENCODER_V2, DBRNN_ENCODER_V2]
ALL = BOTH + V2
ALLOWED = {
    "width": "a positive integer",
    "depth": "an integer >= 1",
    "input_width": "null (the same as width) or a positive integer",
    "period": f"an integer in [1, {MAX_PERIOD}]",
    "dropout": "a number in [0, 1)",
    "bidirectional": "true or false",
    "input_dropout": "a number in [0, 1)",
    "word_dropout": "a number in [0, 1)",
    "residual": "true or false",
    "layer_norm": "true or false",
    "projection": "true or false",
}
# Each of these got past today's checks (or failed in torch, or with a message
# that named no argument) before the checks in check_encoder_args.
BAD = [
    ("width", True),
    ("input_width", -5), ("input_width", 0), ("input_width", 8.0), ("input_width", True),
    ("input_width", "8"),
    ("dropout", "0.1"), ("dropout", True), ("dropout", None),
    ("period", 10**12), ("period", MAX_PERIOD + 1), ("period", 1e12), ("period", 4.0),
]
BAD_RECURRENT_ONLY = [
    ("depth", True),
    ("bidirectional", 1), ("bidirectional", "no"), ("bidirectional", None),
]
# The v2 wiring arguments: probabilities are numbers (not strings, not booleans)
# in [0, 1), switches are booleans.
BAD_V2_ONLY = [
    (arg, value) for arg in ("dropout", "input_dropout", "word_dropout")
    for value in (1, 1.0, -0.1, "0.1", True, None)
] + [(arg, value) for arg in ("residual", "layer_norm", "projection")
     for value in (1, 0, "true", None)]
# Caught, with the same message, before too: kept so they stay caught.
CAUGHT_BEFORE = [("width", 8.0), ("width", "8"), ("width", 0), ("depth", 2.0), ("depth", "2")]


def cases(pairs, names):
    return [pytest.param(name, arg, value, id=f"{name.split('.')[1]}-{arg}={value!r}")
            for name in names for arg, value in pairs]


@pytest.mark.parametrize("name,arg,value",
                         cases(BAD, ALL)
                         + cases(BAD_RECURRENT_ONLY, [RECURRENT_ENCODER, RECURRENT_ENCODER_V2])
                         + cases(CAUGHT_BEFORE, [RECURRENT_ENCODER, RECURRENT_ENCODER_V2])
                         + cases(BAD_V2_ONLY, V2))
def test_a_bad_value_fails_when_the_architecture_is_called(name, arg, value):
    args = {"width": 8, arg: value}
    with pytest.raises(ConfigValidationError) as err:
        registry.architectures.get(name)(**args)
    # called outside a config, the error is located at the argument alone
    assert err.value.errors == [{"loc": [arg],
                                 "msg": f"{name}: {arg} must be {ALLOWED[arg]}, got {value!r}."}]


@pytest.mark.parametrize(
    "config,arg,value",
    [("elstm_brnn", "input_width", -5), ("elstm_brnn", "input_width", 0),
     ("elstm_brnn", "dropout", "0.1"), ("elstm_brnn", "period", 10**12),
     ("dbrnn_elstm", "input_width", 0), ("dbrnn_elstm", "period", 10**12),
     ("elstm_brnn_v2", "word_dropout", 1.0), ("elstm_brnn_v2", "input_dropout", "0.1"),
     ("elstm_brnn_v2", "dropout", -0.5)],
)
def test_a_bad_value_in_a_config_fails_at_resolution(config, arg, value):
    folder = ROOT / "configs" / ("" if config == "elstm_brnn" else "experiments/encoders")
    config = spacy.util.load_config(folder / f"{config}.cfg")
    config["components"]["tok2vec"]["model"]["encode"][arg] = value
    name = config["components"]["tok2vec"]["model"]["encode"]["@architectures"]
    with pytest.raises(ConfigValidationError) as err:
        spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
    ((loc, msg),) = [(e["loc"], e["msg"]) for e in err.value.errors]
    assert loc == ["components.tok2vec.model.encode", arg]
    assert msg.startswith(f"{name}: {arg} must be ") and msg.endswith(f", got {value!r}.")


def test_the_section_is_the_one_with_the_bad_value():
    """Two components calling the same architecture: the error names the one
    whose value is bad."""
    config = spacy.util.load_config(ROOT / "configs" / "elstm_brnn.cfg")
    encode = dict(config["components"]["tok2vec"]["model"]["encode"])
    config["components"]["tagger"]["model"]["tok2vec"] = {
        "@architectures": "spacy.Tok2Vec.v2",
        "embed": dict(config["components"]["tok2vec"]["model"]["embed"], width=128),
        "encode": {**encode, "width": 128, "period": 0}}
    with pytest.raises(ConfigValidationError) as err:
        spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
    assert err.value.errors[0]["loc"] == ["components.tagger.model.tok2vec.encode", "period"]


@pytest.mark.parametrize("command", [["debug", "config"], ["train"]])
def test_spacy_prints_a_bad_value_without_a_traceback(tmp_path, command):
    text = (ROOT / "configs" / "elstm_brnn.cfg").read_text(encoding="utf8")
    assert 'cell = "elstm"' in text
    config = tmp_path / "bad.cfg"
    config.write_text(text.replace('cell = "elstm"', 'cell = "lstn"'), encoding="utf8")
    paths = ["--paths.train", str(tmp_path / "train.spacy"),
             "--paths.dev", str(tmp_path / "dev.spacy")]
    result = subprocess.run([sys.executable, "-m", "spacy", *command, str(config), *paths],
                            capture_output=True, text=True, cwd=ROOT)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "Traceback" not in output
    assert "Config validation error" in output
    assert (f"components.tok2vec.model.encode -> cell\t{RECURRENT_ENCODER}: Unknown cell "
            "'lstn': choose one of 'elstm', 'elstm2', 'lstm', 'gru', 'srn', 'solstm'.") in output


@pytest.mark.parametrize("arg", ["residual", "layer_norm", "projection"])
def test_a_non_boolean_switch_in_a_config_fails_at_resolution(arg):
    """thinc checks the bool annotation before the architecture runs; its message
    names the argument and the value too."""
    config = spacy.util.load_config(ROOT / "configs" / "experiments" / "encoders" / "elstm_brnn_v2.cfg")
    config["components"]["tok2vec"]["model"]["encode"][arg] = 1
    with pytest.raises(ValueError, match=f"{arg}.*1 is not"):
        spacy.util.load_model_from_config(config, auto_fill=True, validate=True)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("args", [{"period": 1}, {"period": MAX_PERIOD}, {"dropout": 0},
                                  {"dropout": 0.99}, {"input_width": 1},
                                  {"input_width": None}])
def test_the_edges_of_the_allowed_values_build(name, args):
    model = registry.architectures.get(name)(width=4, **args)
    assert model.get_dim("nO") == 4


@pytest.mark.parametrize("name", V2)
@pytest.mark.parametrize("args", [{"input_dropout": 0}, {"input_dropout": 0.99},
                                  {"word_dropout": 0}, {"word_dropout": 0.99},
                                  {"residual": False, "layer_norm": True, "projection": True},
                                  {"input_width": 3, "residual": True}])
def test_the_edges_of_the_v2_values_build(name, args):
    model = registry.architectures.get(name)(width=4, **args)
    assert model.get_dim("nO") == 4


def test_the_checker_is_reusable_by_other_architectures():
    good = dict(width=8, cell="elstm", period=4, gates="input", dropout=0.1, input_width=None)
    check_encoder_args("x.Encoder.v2", split_width=True, **good)
    with pytest.raises(ValueError, match=r"\nwidth\tx.Encoder.v2: width 7 is odd"):
        check_encoder_args("x.Encoder.v2", split_width=True, **{**good, "width": 7})
    with pytest.raises(ValueError, match=r"\ncell\tx.Encoder.v2: Cell 'gru' has no gates='input'"):
        check_encoder_args("x.Encoder.v2", split_width=False, **{**good, "cell": "gru"})
