"""The argument checks of every architecture, in one place.

Each builder calls these first thing, so that a bad config fails when it is
resolved. The error is thinc's ConfigValidationError (a ValueError), which
spaCy's commands print as they print their own config errors, in two lines and
without a traceback: the config section and the argument, then the
architecture, the bad value and what is allowed (``"<name>: <arg> must be
<allowed>, got <value>."``)::

    Config validation error
    components.tok2vec.model.encode -> period\tspacy-elstm.RecurrentEncoder.v1:
    period must be an integer in [1, 100000], got 0.

(one line in the output; the section and argument, a tab, then the message).
"""
import inspect
from numbers import Real
from typing import Any, Callable, Dict, List, Optional, Tuple

from thinc.api import ConfigValidationError, Model

from ..pytorch import CELLS, GATE_MODES, check_cell
from ..pytorch.encoder import half_width

# The largest ELSTM period Ts. A cell learns one scaling vector per position
# t_s < Ts, a (Ts x N) parameter: 100,000 is beyond the length of any sequence
# anyone tags (Ts only matters up to the longest one), and larger values are typos
# that would otherwise surface as a failed allocation deep in torch.
MAX_PERIOD = 100_000


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_probability(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and 0 <= value < 1


def _is_weight(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and value >= 0


def _is_real(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


_BOOL = (lambda v: isinstance(v, bool), "true or false")
_PROBABILITY = (_is_probability, "a number in [0, 1)")
_POSITIVE = (lambda v: _is_int(v) and v >= 1, "a positive integer")
_LOSS_WEIGHT = (_is_weight, "a number >= 0")

# argument: (test, what is allowed), for every argument the builders check here.
ARG_RULES: Dict[str, Tuple[Callable[[Any], bool], str]] = {
    "width": _POSITIVE,
    "depth": (lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
    "input_width": (lambda v: v is None or (_is_int(v) and v >= 1),
                    "null (the same as width) or a positive integer"),
    "period": (lambda v: _is_int(v) and 1 <= v <= MAX_PERIOD,
               f"an integer in [1, {MAX_PERIOD}]"),
    "dropout": _PROBABILITY,
    "input_dropout": _PROBABILITY,
    "word_dropout": _PROBABILITY,
    "words_dropout": _PROBABILITY,
    "bidirectional": _BOOL,
    "residual": _BOOL,
    "layer_norm": _BOOL,
    "projection": _BOOL,
    "separate_directions": _BOOL,
    "attention": _BOOL,
    "interleaved": _BOOL,
    "cell": (lambda v: isinstance(v, str), f"one of {', '.join(map(repr, CELLS))}"),
    "gates": (lambda v: isinstance(v, str), f"one of {', '.join(map(repr, GATE_MODES))}"),
    "char_width": _POSITIVE,
    "char_rnn_width": _POSITIVE,
    "max_bytes": _POSITIVE,
    "label_width": _POSITIVE,
    # the convolutional seq2seq (pytorch/conv_seq2seq.py, which checks them too)
    "enc_layers": _POSITIVE,
    "dec_layers": _POSITIVE,
    "kernel_size": _POSITIVE,
    "n_positions": _POSITIVE,
    "arc_width": _POSITIVE,
    "nO": (lambda v: v is None or (_is_int(v) and v >= 1),
           "null (set from the labels) or a positive integer"),
    "loss_pooled": _LOSS_WEIGHT,
    "loss_forward": _LOSS_WEIGHT,
    "loss_backward": _LOSS_WEIGHT,
    # the second-order cell (pytorch/second_order.py, which checks them too)
    "solstm_cells": (lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
    "solstm_temperature": (lambda v: _is_real(v) and 0 < v < float("inf"), "a number > 0"),
    "solstm_anneal": (lambda v: _is_real(v) and 0 < v <= 1, "a number in (0, 1]"),
    "solstm_anneal_every": (lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
}


_NOT_GIVEN = object()


def config_error(name: str, message: str, arg: Optional[str] = None,
                 value: Any = _NOT_GIVEN) -> ConfigValidationError:
    """The error for a bad config value of the architecture ``name``: ``message``
    at the argument ``arg`` of the section that calls it (the section found as
    ``_config_section`` finds it; without it, the argument alone)."""
    section = ".".join(_config_section(name, arg, value))
    # as confection writes its own: "components.tok2vec.model.encode -> cell"
    loc = [part for part in (section, arg) if part]
    return ConfigValidationError(errors=[{"loc": loc, "msg": f"{name}: {message}"}],
                                 show_config=False)


def _config_section(name: str, arg: Optional[str], value: Any) -> List[str]:
    """The path of the config section, e.g. ["components", "tok2vec", "model",
    "encode"], whose ``@architectures = name`` has ``arg = value``; [] where
    there is none. thinc resolves a section without telling the function it
    calls where the section is, so this reads it from the component being
    created: the ``name`` and ``cfg`` of spaCy's Language.create_pipe, the
    nearest such frame on the call stack."""
    frame = inspect.currentframe()
    try:
        while frame is not None:
            if (frame.f_code.co_name == "create_pipe"
                    and frame.f_globals.get("__name__") == "spacy.language"):
                component = frame.f_locals.get("name")
                cfg = frame.f_locals.get("cfg")
                if isinstance(cfg, dict) and len(cfg) == 1 and isinstance(component, str):
                    path = _find_section(next(iter(cfg.values())), name, arg, value)
                    if path is not None:
                        return ["components", component, *path]
                return []
            frame = frame.f_back
    finally:
        del frame
    return []


def _find_section(section: Any, name: str, arg: Optional[str], value: Any) -> Optional[List[str]]:
    if not isinstance(section, dict):
        return None
    if (section.get("@architectures") == name
            and (arg is None or value is _NOT_GIVEN
                 or (arg in section and _same(section[arg], value)))):
        return []
    for key, child in section.items():
        path = _find_section(child, name, arg, value)
        if path is not None:
            return [str(key), *path]
    return None


def _same(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # a value whose == is not a bool
        return a is b


def check_args(name: str, **args: Any) -> None:
    """Raise a config error naming the architecture ``name``, the argument, its
    bad value and what is allowed, for any of ``args`` (each must have a rule
    in ARG_RULES)."""
    for arg, value in args.items():
        test, allowed = ARG_RULES[arg]
        if not test(value):
            raise config_error(name, f"{arg} must be {allowed}, got {value!r}.", arg, value)


def check_cell_args(name: str, cell: str, gates: str, period: int, arg: str = "cell") -> None:
    """The cell, its gates and its period together (pytorch.cells.check_cell),
    reported at ``arg``, the argument that names the cell."""
    try:
        check_cell(cell, gates, period)
    except ValueError as err:
        message = str(err) if arg == "cell" else f"{arg}: {err}"
        raise config_error(name, message, arg, cell) from None


def check_even(name: str, width: int, arg: str = "width") -> None:
    """``width`` is shared by two directions, so it must be even."""
    try:
        half_width(width, arg)
    except ValueError as err:
        raise config_error(name, str(err), arg, width) from None


def check_encoder_args(name: str, *, split_width: bool, **args: Any) -> None:
    """``check_args`` on ``args``, then the cell with its gates and period;
    ``split_width``: the width is shared by two directions, so it must be even.
    Meant to run first thing in an architecture function, so that a bad config
    fails when it is resolved."""
    check_args(name, **args)
    check_cell_args(name, args["cell"], args["gates"], args["period"])
    if split_width:
        check_even(name, args["width"])


def check_tagger_args(name: str, n_labels: Optional[int], **loss_weights: Any) -> None:
    """A labeller's nO and its loss weights (at least one of them not zero)."""
    check_args(name, nO=n_labels, **loss_weights)
    if loss_weights and not any(loss_weights.values()):
        raise config_error(name, f"the loss weights {loss_weights} are all zero; nothing "
                                 f"would be trained.")


def input_width(name: str, tok2vec: Model) -> int:
    """The width of the vectors ``tok2vec`` gives, which must be set."""
    if not tok2vec.has_dim("nO"):
        raise config_error(name, "the tok2vec's output width (its dim nO) is not set; give "
                                 "it a width (spacy.Tok2Vec.v2 takes it from its encoder, "
                                 "spacy.Tok2VecListener.v1 from its width argument).", "tok2vec")
    return tok2vec.get_dim("nO")


def wrap_errors(name: str, build: Callable[[], Any]) -> Any:
    """``build()``, with a ValueError it raises (a torch module's own check of
    the arguments) reported as a config error of the architecture ``name``."""
    try:
        return build()
    except ConfigValidationError:
        raise
    except ValueError as err:
        raise config_error(name, str(err)) from None
