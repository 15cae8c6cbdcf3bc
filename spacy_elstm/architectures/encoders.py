"""The encoders: the `encode` layer of spacy.Tok2Vec.v2, from a list of
(n_tokens, input_width) arrays to a list of (n_tokens, width) arrays.

Each family has one torch module (pytorch/encoder.py, pytorch/dbrnn.py); v1 is
v2 with the wiring options off (no residual, layer norm or projection, no
input or word dropout), so the v1 names keep their exact behaviour and the
pipelines saved with them load (pytorch/saved_layouts.py).
"""
from typing import List, Optional

from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

from ..layers import with_torch_sequences
from ..pytorch import DBRNN, RecurrentEncoder
from ..pytorch.second_order import SecondOrder
from .validation import check_encoder_args, config_error

RECURRENT_ENCODER = "spacy-elstm.RecurrentEncoder.v1"
DBRNN_ENCODER = "spacy-elstm.DBRNNEncoder.v1"
# v2: v1's arguments plus the wiring around the layers (pytorch/wiring.py).
RECURRENT_ENCODER_V2 = "spacy-elstm.RecurrentEncoder.v2"
DBRNN_ENCODER_V2 = "spacy-elstm.DBRNNEncoder.v2"

# The defaults of the v2 wiring arguments, here and nowhere else (the builders'
# signatures and configs/src/encoders/elstm_brnn_v2.cfg, which a test holds to
# them). Measured on EWT dev, 2,000 steps, seed 0 (metrics/search-2000steps/):
# the residual connection lifts LAS from 72.41 (v1, metrics/ud-2000steps/) to
# 76.04 at learning rate 0.001, and layer norm from 78.11 to 78.90 at 0.002. The projection and the
# input and word dropouts are not measured yet, so they stay off.
DEFAULT_RESIDUAL = True
DEFAULT_LAYER_NORM = True
DEFAULT_PROJECTION = False
DEFAULT_DROPOUT = 0.1
DEFAULT_INPUT_DROPOUT = 0.0
DEFAULT_WORD_DROPOUT = 0.0

# set on a v2 encoder: "separate" where each half of its output reads one direction
# only (separate_directions), "joint" otherwise; pretraining reads it
DIRECTIONS_ATTR = "spacy_elstm_directions"
# v1: the wiring options off
OPTIONS_OFF = dict(residual=False, layer_norm=False, projection=False, input_dropout=0.0,
                   word_dropout=0.0)
# the second-order cell's defaults (S = 2 as the paper's Dyck models, tau from 1,
# x 0.9 per 1,000 batches); v2 takes them as arguments, v1 (whose signature
# stays as released) builds cell = "solstm" with them
SOLSTM = SecondOrder()


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
    cell (str): One of "elstm" (ELSTM-I), "elstm2" (ELSTM-II), "lstm", "gru", "srn", "solstm"
        (the second-order LSTM, with RecurrentEncoder.v2's solstm_* defaults).
    bidirectional (bool): Run a backward direction too (a BRNN).
    period (int): Ts, the number of scaling vectors of an ELSTM cell, repeated with that period.
    gates (str): "recurrent" (gates read [X_t, h_(t-1)]) or "input" (gates read X_t only).
    dropout (float): Dropout on each layer's output while training.
    input_width (Optional[int]): The width of the incoming vectors; defaults to width.
    """
    check_encoder_args(RECURRENT_ENCODER, split_width=bidirectional, width=width,
                       depth=depth, cell=cell, bidirectional=bidirectional, period=period,
                       gates=gates, dropout=dropout, input_width=input_width)
    return _recurrent_encoder(width, depth=depth, cell=cell, bidirectional=bidirectional,
                              period=period, gates=gates, dropout=dropout,
                              input_width=input_width, **OPTIONS_OFF, suffix="")


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
    check_encoder_args(DBRNN_ENCODER, split_width=True, width=width, cell=cell,
                       period=period, gates=gates, dropout=dropout, input_width=input_width)
    return _dbrnn_encoder(width, cell=cell, period=period, gates=gates, dropout=dropout,
                          input_width=input_width, **OPTIONS_OFF, suffix="")


@registry.architectures(RECURRENT_ENCODER_V2)
def build_recurrent_encoder_v2(
    width: int,
    depth: int = 1,
    cell: str = "elstm",
    bidirectional: bool = True,
    period: int = 100,
    gates: str = "recurrent",
    dropout: float = DEFAULT_DROPOUT,
    input_width: Optional[int] = None,
    residual: bool = DEFAULT_RESIDUAL,
    layer_norm: bool = DEFAULT_LAYER_NORM,
    projection: bool = DEFAULT_PROJECTION,
    input_dropout: float = DEFAULT_INPUT_DROPOUT,
    word_dropout: float = DEFAULT_WORD_DROPOUT,
    separate_directions: bool = False,
    solstm_cells: int = SOLSTM.cells,
    solstm_temperature: float = SOLSTM.temperature,
    solstm_anneal: float = SOLSTM.anneal,
    solstm_anneal_every: int = SOLSTM.anneal_every,
) -> Model[List[Floats2d], List[Floats2d]]:
    """RecurrentEncoder.v1's stacked recurrent network, with each layer wired as
    x_(l+1) = LN(x_l + dropout(layer(x_l))) (post-norm; each part as asked).
    To be used as the `encode` layer of spacy.Tok2Vec.v2.

    width, depth, cell, bidirectional, period, gates, input_width: as in v1.
    dropout (float): Dropout on each layer's output while training (before the residual sum).
    residual (bool): Add each layer's input to its output; where input_width differs from
        width, the first layer's input passes through a learned linear map (no bias).
    layer_norm (bool): LayerNorm on each layer's output, after the residual sum.
    projection (bool): A final linear layer (width -> width, with bias) on the output.
    input_dropout (float): Dropout on the elements of the incoming vectors while training.
    word_dropout (float): Zero each token's whole incoming vector with this probability
        while training (the others scaled by 1 / (1 - p)).
    separate_directions (bool): Give the forward and backward directions a stack each
        (width // 2 wide) whose layers never read the other direction, output
        [forward, backward] (ELMo's arrangement): what spacy-elstm.PretrainNextWord.v1
        needs. Bidirectional only, without projection.
    solstm_cells (int): With cell = "solstm": S, the LSTM cells mixed per step.
    solstm_temperature (float): With cell = "solstm": the mixing softmax's temperature tau
        at the start.
    solstm_anneal (float): With cell = "solstm": the factor in (0, 1] that tau is
        multiplied by every solstm_anneal_every training batches (1: no annealing).
    solstm_anneal_every (int): With cell = "solstm": training batches between two annealing
        steps (the batches of an epoch, to anneal per epoch as the paper does).
    """
    check_encoder_args(RECURRENT_ENCODER_V2, split_width=bidirectional, width=width,
                       depth=depth, cell=cell, bidirectional=bidirectional, period=period,
                       gates=gates, dropout=dropout, input_width=input_width,
                       residual=residual, layer_norm=layer_norm, projection=projection,
                       input_dropout=input_dropout, word_dropout=word_dropout,
                       separate_directions=separate_directions, solstm_cells=solstm_cells,
                       solstm_temperature=solstm_temperature, solstm_anneal=solstm_anneal,
                       solstm_anneal_every=solstm_anneal_every)
    if separate_directions and (not bidirectional or projection):
        raise config_error(RECURRENT_ENCODER_V2, "separate_directions = true needs "
                           "bidirectional = true and projection = false, got bidirectional = "
                           f"{str(bidirectional).lower()}, projection = "
                           f"{str(projection).lower()}.", "separate_directions", True)
    model = _recurrent_encoder(
        width, depth=depth, cell=cell, bidirectional=bidirectional, period=period,
        gates=gates, dropout=dropout, input_width=input_width, residual=residual,
        layer_norm=layer_norm, projection=projection, input_dropout=input_dropout,
        word_dropout=word_dropout, separate_directions=separate_directions,
        second_order=SecondOrder(cells=solstm_cells, temperature=solstm_temperature,
                                 anneal=solstm_anneal, anneal_every=solstm_anneal_every),
        suffix="_v2")
    # what pretraining asks: do the halves of the output each read one direction only?
    model.attrs[DIRECTIONS_ATTR] = "separate" if separate_directions else "joint"
    return model


@registry.architectures(DBRNN_ENCODER_V2)
def build_dbrnn_encoder_v2(
    width: int,
    cell: str = "elstm",
    period: int = 100,
    gates: str = "recurrent",
    dropout: float = DEFAULT_DROPOUT,
    input_width: Optional[int] = None,
    residual: bool = DEFAULT_RESIDUAL,
    layer_norm: bool = DEFAULT_LAYER_NORM,
    projection: bool = DEFAULT_PROJECTION,
    input_dropout: float = DEFAULT_INPUT_DROPOUT,
    word_dropout: float = DEFAULT_WORD_DROPOUT,
) -> Model[List[Floats2d], List[Floats2d]]:
    """DBRNNEncoder.v1's DBRNN, wired as h = LN(x + dropout(BRNN(x))) and
    p = LN(h + dropout(w_f * p^f(h) + w_b * p^b(h))) (post-norm; each part as
    asked). To be used as the `encode` layer of spacy.Tok2Vec.v2.

    width, cell, period, gates, input_width: as in v1.
    dropout (float): Dropout on the lower BRNN's and the upper combination's outputs while
        training (before the residual sums).
    residual (bool): The skip connections around the lower BRNN and around the upper
        combination; where input_width differs from width, the lower one maps the input
        through a learned linear map (no bias).
    layer_norm (bool): LayerNorm after each of the two sums.
    projection (bool): A final linear layer (width -> width, with bias) on the output.
    input_dropout (float): Dropout on the elements of the incoming vectors while training.
    word_dropout (float): Zero each token's whole incoming vector with this probability
        while training (the others scaled by 1 / (1 - p)).
    """
    check_encoder_args(DBRNN_ENCODER_V2, split_width=True, width=width, cell=cell,
                       period=period, gates=gates, dropout=dropout, input_width=input_width,
                       residual=residual, layer_norm=layer_norm, projection=projection,
                       input_dropout=input_dropout, word_dropout=word_dropout)
    return _dbrnn_encoder(width, cell=cell, period=period, gates=gates, dropout=dropout,
                          input_width=input_width, residual=residual, layer_norm=layer_norm,
                          projection=projection, input_dropout=input_dropout,
                          word_dropout=word_dropout, suffix="_v2")


def _recurrent_encoder(width: int, *, input_width: Optional[int], suffix: str,
                       **options) -> Model[List[Floats2d], List[Floats2d]]:
    n_in = width if input_width is None else input_width
    module = RecurrentEncoder(input_width=n_in, width=width, **options)
    kind = "brnn" if options["bidirectional"] else "rnn"
    return with_torch_sequences(module, input_width=n_in, width=width,
                                name=f"{options['cell']}_{kind}{suffix}")


def _dbrnn_encoder(width: int, *, input_width: Optional[int], suffix: str,
                   **options) -> Model[List[Floats2d], List[Floats2d]]:
    n_in = width if input_width is None else input_width
    module = DBRNN(input_width=n_in, width=width, **options)
    return with_torch_sequences(module, input_width=n_in, width=width,
                                name=f"{options['cell']}_dbrnn{suffix}")
