"""spaCy architectures: the one place where the registered names live.

Each name is registered here by decorator and again, identically, as an
entry point in pyproject.toml, so a packaged pipeline loads without an import.
"""
from typing import List, Optional

from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

from .layers import with_padded_torch
from .pytorch import DBRNN, RecurrentEncoder, check_cell

RECURRENT_ENCODER = "spacy-elstm.RecurrentEncoder.v1"
DBRNN_ENCODER = "spacy-elstm.DBRNNEncoder.v1"


def _check_args(name: str, *, width: int, cell: str, period: int, gates: str,
                dropout: float, even: bool) -> None:
    try:
        check_cell(cell, gates, period)
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None
    if not isinstance(width, int) or width < 1:
        raise ValueError(f"{name}: width must be a positive integer, got {width!r}.")
    if even and width % 2:
        raise ValueError(
            f"{name}: width {width} is odd; a bidirectional encoder splits it evenly "
            f"between its directions, so use an even width such as {width + 1}."
        )
    if not 0.0 <= dropout < 1.0:
        raise ValueError(f"{name}: dropout must be in [0, 1), got {dropout!r}.")


@registry.architectures(RECURRENT_ENCODER)
def build_recurrent_encoder(
    width: int,
    depth: int = 1,
    cell: str = "elstm",
    bidirectional: bool = True,
    period: int = 100,
    gates: str = "recurrent",
    dropout: float = 0.0,
    input_width: Optional[int] = None,
) -> Model[List[Floats2d], List[Floats2d]]:
    """Encode context with a stacked recurrent network, to be used as the
    `encode` layer of spacy.Tok2Vec.v2.

    width (int): The output width; each direction of a bidirectional layer has width // 2 units.
    depth (int): The number of stacked recurrent layers.
    cell (str): One of "elstm" (ELSTM-I), "elstm2" (ELSTM-II), "lstm", "gru", "srn".
    bidirectional (bool): Run a backward direction too (a BRNN).
    period (int): Ts, the number of scaling vectors of an ELSTM cell, repeated with that period.
    gates (str): "recurrent" (gates read [X_t, h_(t-1)]) or "input" (gates read X_t only).
    dropout (float): Dropout on each layer's output while training.
    input_width (Optional[int]): The width of the incoming vectors; defaults to width.
    """
    _check_args(RECURRENT_ENCODER, width=width, cell=cell, period=period, gates=gates,
                dropout=dropout, even=bidirectional)
    if not isinstance(depth, int) or depth < 1:
        raise ValueError(f"{RECURRENT_ENCODER}: depth must be an integer >= 1, got {depth!r}.")
    n_in = width if input_width is None else input_width
    module = RecurrentEncoder(cell=cell, input_width=n_in, width=width, depth=depth,
                              bidirectional=bidirectional, period=period, gates=gates,
                              dropout=dropout)
    return with_padded_torch(module, input_width=n_in, width=width,
                             name=f"{cell}_{'brnn' if bidirectional else 'rnn'}")


@registry.architectures(DBRNN_ENCODER)
def build_dbrnn_encoder(
    width: int,
    cell: str = "elstm",
    period: int = 100,
    gates: str = "recurrent",
    dropout: float = 0.0,
    input_width: Optional[int] = None,
) -> Model[List[Floats2d], List[Floats2d]]:
    """Encode context with a dependent bidirectional RNN (DBRNN): a lower BRNN
    read by an upper forward and an upper backward RNN, combined as
    w_f * p^f + w_b * p^b. To be used as the `encode` layer of spacy.Tok2Vec.v2.

    width (int): The output width; the lower BRNN has width // 2 units per direction.
    cell (str): One of "elstm" (ELSTM-I), "elstm2" (ELSTM-II), "lstm", "gru", "srn".
    period (int): Ts, the number of scaling vectors of an ELSTM cell, repeated with that period.
    gates (str): "recurrent" (gates read [X_t, h_(t-1)]) or "input" (gates read X_t only).
    dropout (float): Dropout on the lower BRNN's output and on the encoding while training.
    input_width (Optional[int]): The width of the incoming vectors; defaults to width.
    """
    _check_args(DBRNN_ENCODER, width=width, cell=cell, period=period, gates=gates,
                dropout=dropout, even=True)
    n_in = width if input_width is None else input_width
    module = DBRNN(cell=cell, input_width=n_in, width=width, period=period, gates=gates,
                   dropout=dropout)
    return with_padded_torch(module, input_width=n_in, width=width, name=f"{cell}_dbrnn")
