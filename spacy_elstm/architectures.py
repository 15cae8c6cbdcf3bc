"""spaCy architectures: the one place where the registered names live.

Each name is registered here by decorator and again, identically, as an
entry point in pyproject.toml, so a packaged pipeline loads without an import.
"""
from numbers import Real
from typing import Any, Callable, Dict, List, Optional, Tuple

from spacy.util import registry
from thinc.api import Maxout, Model, chain, concatenate, with_array
from thinc.types import Floats2d

from .layers import with_torch_labeller, with_torch_sequences
from .pytorch import (CELLS, DBRNN, GATE_MODES, DBRNNLabeller, RecurrentEncoder,
                      RecurrentLabeller, Seq2SeqLabeller, WiredDBRNN, WiredRecurrentEncoder,
                      check_cell)
from .layers.biaffine import with_torch_biaffine
from .layers.chars import token_dropout, with_char_recurrence
from .pytorch.biaffine import BiaffineParserScorer
from .pytorch.chars import CharRecurrence
from .pytorch.label_recurrence import LabelRecurrentLabeller

RECURRENT_ENCODER = "spacy-elstm.RecurrentEncoder.v1"
DBRNN_ENCODER = "spacy-elstm.DBRNNEncoder.v1"
# v2: v1's arguments plus the wiring around the layers (pytorch/wiring.py). The v1
# names keep their exact behaviour, for the pipelines saved with them.
RECURRENT_ENCODER_V2 = "spacy-elstm.RecurrentEncoder.v2"
DBRNN_ENCODER_V2 = "spacy-elstm.DBRNNEncoder.v2"
# sequence labellers (models for the spacy-elstm.sequence_labeller component): a
# tok2vec, then a recurrent macro-model and its softmax heads (pytorch/labeller.py)
# an embedding layer (spacy.Tok2Vec.v2's `embed`): a words embedding beside a
# character-level recurrent one, mixed (pytorch/chars.py)
CHAR_RECURRENT_EMBED = "spacy-elstm.CharRecurrentEmbed.v1"
RECURRENT_TAGGER = "spacy-elstm.RecurrentTagger.v1"
DBRNN_TAGGER = "spacy-elstm.DBRNNTagger.v1"

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


# The largest ELSTM period Ts. A cell learns one scaling vector per position
# t_s < Ts, a (Ts x N) parameter: 100,000 is beyond the length of any sequence
# anyone tags (Ts only matters up to the longest one), and larger values are typos
# that would otherwise surface as a failed allocation deep in torch.
MAX_PERIOD = 100_000
# set on a v2 encoder: "separate" where each half of its output reads one direction
DIRECTIONS_ATTR = "spacy_elstm_directions"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_probability(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and 0 <= value < 1


_BOOL = (lambda v: isinstance(v, bool), "true or false")
_PROBABILITY = (_is_probability, "a number in [0, 1)")


# argument: (test, what is allowed), for every argument the encoders take.
ARG_RULES: Dict[str, Tuple[Callable[[Any], bool], str]] = {
    "width": (lambda v: _is_int(v) and v >= 1, "a positive integer"),
    "depth": (lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
    "input_width": (lambda v: v is None or (_is_int(v) and v >= 1),
                    "null (the same as width) or a positive integer"),
    "period": (lambda v: _is_int(v) and 1 <= v <= MAX_PERIOD,
               f"an integer in [1, {MAX_PERIOD}]"),
    "dropout": _PROBABILITY,
    "input_dropout": _PROBABILITY,
    "word_dropout": _PROBABILITY,
    "bidirectional": _BOOL,
    "residual": _BOOL,
    "layer_norm": _BOOL,
    "projection": _BOOL,
    "separate_directions": _BOOL,
    "cell": (lambda v: isinstance(v, str), f"one of {', '.join(map(repr, CELLS))}"),
    "gates": (lambda v: isinstance(v, str), f"one of {', '.join(map(repr, GATE_MODES))}"),
}


def check_encoder_args(name: str, *, split_width: bool, **args: Any) -> None:
    """Raise a ValueError naming the architecture ``name``, the argument, its bad
    value and what is allowed, for any of ``args`` (each must have a rule in
    ARG_RULES). ``split_width``: the width is shared by two directions, so it
    must be even. Meant to run first thing in an architecture function, so that
    a bad config fails when it is resolved."""
    for arg, value in args.items():
        test, allowed = ARG_RULES[arg]
        if not test(value):
            raise ValueError(f"{name}: {arg} must be {allowed}, got {value!r}.")
    try:
        check_cell(args["cell"], args["gates"], args["period"])
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None
    width = args["width"]
    if split_width and width % 2:
        raise ValueError(
            f"{name}: width {width} is odd; a bidirectional encoder splits it evenly "
            f"between its directions, so use an even width such as {width + 1}."
        )


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
    check_encoder_args(RECURRENT_ENCODER, split_width=bidirectional, width=width,
                       depth=depth, cell=cell, bidirectional=bidirectional, period=period,
                       gates=gates, dropout=dropout, input_width=input_width)
    n_in = width if input_width is None else input_width
    module = RecurrentEncoder(cell=cell, input_width=n_in, width=width, depth=depth,
                              bidirectional=bidirectional, period=period, gates=gates,
                              dropout=dropout)
    return with_torch_sequences(module, input_width=n_in, width=width,
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
    check_encoder_args(DBRNN_ENCODER, split_width=True, width=width, cell=cell,
                       period=period, gates=gates, dropout=dropout, input_width=input_width)
    n_in = width if input_width is None else input_width
    module = DBRNN(cell=cell, input_width=n_in, width=width, period=period, gates=gates,
                   dropout=dropout)
    return with_torch_sequences(module, input_width=n_in, width=width, name=f"{cell}_dbrnn")


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
    """
    check_encoder_args(RECURRENT_ENCODER_V2, split_width=bidirectional, width=width,
                       depth=depth, cell=cell, bidirectional=bidirectional, period=period,
                       gates=gates, dropout=dropout, input_width=input_width,
                       residual=residual, layer_norm=layer_norm, projection=projection,
                       input_dropout=input_dropout, word_dropout=word_dropout,
                       separate_directions=separate_directions)
    if separate_directions and (not bidirectional or projection):
        raise ValueError(f"{RECURRENT_ENCODER_V2}: separate_directions = true needs "
                         f"bidirectional = true and projection = false, got bidirectional = "
                         f"{str(bidirectional).lower()}, projection = {str(projection).lower()}.")
    n_in = width if input_width is None else input_width
    module = WiredRecurrentEncoder(
        cell=cell, input_width=n_in, width=width, depth=depth, bidirectional=bidirectional,
        period=period, gates=gates, residual=residual, layer_norm=layer_norm,
        projection=projection, dropout=dropout, input_dropout=input_dropout,
        word_dropout=word_dropout, separate_directions=separate_directions)
    model = with_torch_sequences(module, input_width=n_in, width=width,
                                 name=f"{cell}_{'brnn' if bidirectional else 'rnn'}_v2")
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
    n_in = width if input_width is None else input_width
    module = WiredDBRNN(cell=cell, input_width=n_in, width=width, period=period, gates=gates,
                        residual=residual, layer_norm=layer_norm, projection=projection,
                        dropout=dropout, input_dropout=input_dropout, word_dropout=word_dropout)
    return with_torch_sequences(module, input_width=n_in, width=width,
                                name=f"{cell}_dbrnn_v2")


@registry.architectures(CHAR_RECURRENT_EMBED)
def build_char_recurrent_embed(
    width: int,
    words: Model[List[Any], List[Floats2d]],
    char_width: int = 32,
    char_rnn_width: int = 128,
    cell: str = "elstm",
    period: int = 20,
    gates: str = "recurrent",
    max_bytes: int = 20,
    words_dropout: float = 0.0,
) -> Model[List[Any], List[Floats2d]]:
    """Embed each token twice and mix the two: ``words`` (any embedding of docs,
    e.g. spacy.MultiHashEmbed.v2) beside a bidirectional recurrent layer over the
    token's UTF-8 bytes, whose vector is its forward state after the last byte
    and its backward state after the first; the concatenation goes through a
    Maxout layer (3 pieces) with layer norm to ``width``, as MultiHashEmbed
    mixes its features. To be used as the `embed` layer of spacy.Tok2Vec.v2.

    width (int): The output width.
    words (Model): The word-level embedding.
    char_width (int): The width of each byte's embedding.
    char_rnn_width (int): The width of the character layer's output (half per direction).
    cell (str): The character layer's cell, as the encoders take it.
    period (int): Ts of an ELSTM cell, here over the positions in a word.
    gates (str): "recurrent" or "input", as the encoders take it.
    max_bytes (int): A longer word is read as its first and last max_bytes // 2 bytes.
    words_dropout (float): In training, the share of tokens whose ``words``
        vector is dropped (zeroed; the others scaled by 1 / (1 - rate)), so that
        the model learns to tag from the characters, as it must for words the
        training data lacks. 0 (the default) drops nothing.
    """
    is_width, allowed = ARG_RULES["width"]
    for arg, value in {"width": width, "char_width": char_width, "max_bytes": max_bytes}.items():
        if not is_width(value):
            raise ValueError(f"{CHAR_RECURRENT_EMBED}: {arg} must be {allowed}, got {value!r}.")
    if not _is_probability(words_dropout):
        raise ValueError(f"{CHAR_RECURRENT_EMBED}: words_dropout must be {_PROBABILITY[1]}, "
                         f"got {words_dropout!r}.")
    check_encoder_args(CHAR_RECURRENT_EMBED, split_width=True, width=char_rnn_width,
                       cell=cell, period=period, gates=gates)
    module = CharRecurrence(cell=cell, char_width=char_width, width=char_rnn_width,
                            period=period, gates=gates)
    chars = with_char_recurrence(module, max_bytes=max_bytes, name=f"{cell}_char_brnn")
    mix = with_array(Maxout(width, nP=3, dropout=0.0, normalize=True))
    if words_dropout > 0.0:
        words = chain(words, with_array(token_dropout(words_dropout)))
    model = chain(concatenate(words, chars), mix)
    model.set_dim("nO", width)
    model.name = f"{cell}_char_recurrent_embed"
    return model


def _input_width(name: str, tok2vec: Model) -> int:
    if not tok2vec.has_dim("nO"):
        raise ValueError(f"{name}: the tok2vec's output width (its dim nO) is not set; give "
                         f"it a width (spacy.Tok2Vec.v2 takes it from its encoder, "
                         f"spacy.Tok2VecListener.v1 from its width argument).")
    return tok2vec.get_dim("nO")


def _check_tagger_args(name: str, n_labels: Optional[int], **loss_weights: Any) -> None:
    if n_labels is not None and not (_is_int(n_labels) and n_labels >= 1):
        raise ValueError(f"{name}: nO must be null (set from the labels) or a positive "
                         f"integer, got {n_labels!r}.")
    for arg, value in loss_weights.items():
        if not (isinstance(value, Real) and not isinstance(value, bool) and value >= 0):
            raise ValueError(f"{name}: {arg} must be a number >= 0, got {value!r}.")
    if loss_weights and not any(loss_weights.values()):
        raise ValueError(f"{name}: the loss weights {loss_weights} are all zero; nothing "
                         f"would be trained.")


@registry.architectures(RECURRENT_TAGGER)
def build_recurrent_tagger(
    tok2vec: Model,
    width: int,
    depth: int = 1,
    cell: str = "elstm",
    bidirectional: bool = True,
    period: int = 100,
    gates: str = "recurrent",
    dropout: float = 0.0,
    nO: Optional[int] = None,
) -> Model[List[Any], List[Floats2d]]:
    """A sequence labeller of the basic macro-models: a stacked RNN, or BRNN
    with bidirectional, reading the tok2vec's vectors, and one softmax head. For
    the spacy-elstm.sequence_labeller component; outputs (n_tokens, nO)
    log-probabilities per doc.

    tok2vec (Model[List[Doc], List[Floats2d]]): The vectors the RNN reads: a shared
        tok2vec's listener or the labeller's own embedding.
    width, depth, cell, bidirectional, period, gates: as in spacy-elstm.RecurrentEncoder.v1.
    dropout (float): Dropout on each recurrent layer's output while training.
    nO (Optional[int]): The number of labels; null to take it from the component's labels.
    """
    check_encoder_args(RECURRENT_TAGGER, split_width=bidirectional, width=width,
                       depth=depth, cell=cell, bidirectional=bidirectional, period=period,
                       gates=gates, dropout=dropout)
    _check_tagger_args(RECURRENT_TAGGER, nO)
    n_in = _input_width(RECURRENT_TAGGER, tok2vec)
    module = RecurrentLabeller(cell=cell, input_width=n_in, width=width, n_labels=nO or 0,
                               depth=depth, bidirectional=bidirectional, period=period,
                               gates=gates, dropout=dropout)
    return with_torch_labeller(tok2vec, module, input_width=n_in, loss_weights=[1.0],
                               name=f"{cell}_{'brnn' if bidirectional else 'rnn'}_tagger")


@registry.architectures(DBRNN_TAGGER)
def build_dbrnn_tagger(
    tok2vec: Model,
    width: int,
    cell: str = "elstm",
    period: int = 100,
    gates: str = "recurrent",
    dropout: float = 0.0,
    loss_pooled: float = 1.0,
    loss_forward: float = 1.0,
    loss_backward: float = 1.0,
    nO: Optional[int] = None,
) -> Model[List[Any], List[Floats2d]]:
    """The DBRNN as a sequence labeller, as in Su & Kuo, Sec. 4.2: a lower BRNN,
    an upper forward and an upper backward RNN each with its own softmax head
    (p^f, p^b), and the pooled prediction p = w_f * p^f + w_b * p^b, where
    (w_f, w_b) = softmax of two trainable logits, so p stays a distribution.
    The component predicts with p and trains on
    loss_pooled * e + loss_forward * e_f + loss_backward * e_b; e_f reaches only
    the upper forward RNN and the lower BRNN, e_b only the upper backward RNN
    and the lower BRNN, e everything. Outputs (n_tokens, 3 * nO) per doc:
    log p, log p^f, log p^b side by side.

    tok2vec (Model[List[Doc], List[Floats2d]]): The vectors the lower BRNN reads: a shared
        tok2vec's listener or the labeller's own embedding.
    width (int): The upper RNNs' width; the lower BRNN has width // 2 units per direction.
    cell, period, gates: as in spacy-elstm.DBRNNEncoder.v1.
    dropout (float): Dropout on the lower BRNN's and the upper RNNs' outputs while training.
    loss_pooled (float): The weight of e, the loss of the pooled prediction p.
    loss_forward (float): The weight of e_f, the loss of the forward prediction p^f.
    loss_backward (float): The weight of e_b, the loss of the backward prediction p^b.
    nO (Optional[int]): The number of labels; null to take it from the component's labels.
    """
    check_encoder_args(DBRNN_TAGGER, split_width=True, width=width, cell=cell,
                       period=period, gates=gates, dropout=dropout)
    _check_tagger_args(DBRNN_TAGGER, nO, loss_pooled=loss_pooled, loss_forward=loss_forward,
                       loss_backward=loss_backward)
    n_in = _input_width(DBRNN_TAGGER, tok2vec)
    module = DBRNNLabeller(cell=cell, input_width=n_in, width=width, n_labels=nO or 0,
                           period=period, gates=gates, dropout=dropout)
    return with_torch_labeller(tok2vec, module, input_width=n_in,
                               loss_weights=[loss_pooled, loss_forward, loss_backward],
                               name=f"{cell}_dbrnn_tagger")


# --- sequence-to-sequence labellers (pytorch/seq2seq.py) -------------------------
# Models for elstm_tagger and elstm_seq_parser that are fed their previous labels:
# they declare attrs["needs_gold"], and the components hand them the gold labels in
# training (labelling_pipe.LabellingPipe.update, layers.labeller.set_teacher).
SEQ2SEQ_TAGGER = "spacy-elstm.Seq2SeqTagger.v1"


@registry.architectures(SEQ2SEQ_TAGGER)
def build_seq2seq_tagger(
    tok2vec: Model,
    width: int,
    attention: bool = True,
    cell: str = "elstm",
    decoder_cell: Optional[str] = None,
    depth: int = 1,
    bidirectional: bool = True,
    period: int = 100,
    gates: str = "recurrent",
    label_width: int = 32,
    dropout: float = 0.0,
    interleaved: bool = False,
    own_predictions: float = 0.0,
    beam_width: int = 1,
    nO: Optional[int] = None,
) -> Model[List[Any], List[Floats2d]]:
    """The seq2seq macro-model of Su & Kuo (Sec. 4.1), with or without attention,
    as a tagger: one output label per token. A recurrent encoder reads the
    tok2vec's vectors; its final state initialises a decoder that at token t is
    fed the embedding of label t-1 (a start symbol at the first token): the gold
    label in training (teacher forcing; its own prediction where the gold label is
    missing), its own greedy prediction at inference. With attention, each step
    scores every encoder state of the doc additively, u = v^T tanh(W_e e_i + W_d d_t),
    and predicts from tanh(W_o [d_t; sum_i softmax(u)_i e_i]). Outputs (n_tokens, nO)
    log-probabilities per doc.

    tok2vec (Model[List[Doc], List[Floats2d]]): The vectors the encoder reads.
    width (int): The encoder's output width (split between the directions when
        bidirectional), which is also the decoder's and the attention's width.
    attention (bool): Attend over the encoder states at each step ("seq2seq with
        attention"); false for the plain seq2seq.
    cell, depth, bidirectional, period, gates: the encoder, as in
        spacy-elstm.RecurrentEncoder.v1; period and gates also hold for the decoder.
    decoder_cell (Optional[str]): The decoder's cell; null for the encoder's.
    label_width (int): The width of the label (and start symbol) embeddings.
    dropout (float): Dropout on the encoder's layers and the decoder's states while training.
    interleaved (bool): Decode two labels per token, one after the other (2T steps,
        one vocabulary), as the paper's parsing target interleaves each word's
        relation and head position: for elstm_seq_parser's "interleaved" encoding.
        Outputs (n_tokens, 2 * nO) then.
    own_predictions (float): In training, the share of decoder steps (drawn per step and
        batch) fed the model's own previous prediction instead of the gold label
        (scheduled sampling at a fixed rate); 0 for pure teacher forcing.
    beam_width (int): At inference, 1 for greedy decoding, more for a beam search
        over the label sequences; the output is then each step's label distribution
        over the final beam. It can be set on a trained pipeline when loading it:
        spacy.load(path, config={"components": {NAME: {"model": {"beam_width": 4}}}}).
    nO (Optional[int]): The number of labels; null to take it from the component's labels.
    """
    check_encoder_args(SEQ2SEQ_TAGGER, split_width=bidirectional, width=width, depth=depth,
                       cell=cell, bidirectional=bidirectional, period=period, gates=gates,
                       dropout=dropout)
    if not isinstance(attention, bool):
        raise ValueError(f"{SEQ2SEQ_TAGGER}: attention must be true or false, got "
                         f"{attention!r}.")
    if not isinstance(interleaved, bool):
        raise ValueError(f"{SEQ2SEQ_TAGGER}: interleaved must be true or false, got "
                         f"{interleaved!r}.")
    if decoder_cell is not None:
        try:
            check_cell(decoder_cell, gates, period)
        except ValueError as err:
            raise ValueError(f"{SEQ2SEQ_TAGGER}: decoder_cell: {err}") from None
    if not (_is_int(label_width) and label_width >= 1):
        raise ValueError(f"{SEQ2SEQ_TAGGER}: label_width must be a positive integer, got "
                         f"{label_width!r}.")
    _check_tagger_args(SEQ2SEQ_TAGGER, nO)
    n_in = _input_width(SEQ2SEQ_TAGGER, tok2vec)
    try:
        module = Seq2SeqLabeller(cell=cell, input_width=n_in, width=width, n_labels=nO or 0,
                                 attention=attention, decoder_cell=decoder_cell, depth=depth,
                                 bidirectional=bidirectional, period=period, gates=gates,
                                 label_width=label_width, dropout=dropout,
                                 interleaved=interleaved, own_predictions=own_predictions,
                                 beam_width=beam_width)
    except ValueError as err:
        raise ValueError(f"{SEQ2SEQ_TAGGER}: {err}") from None
    kind = "seq2seq_attention" if attention else "seq2seq"
    return with_torch_labeller(tok2vec, module, input_width=n_in,
                               loss_weights=[1.0] * module.n_heads,
                               name=f"{cell}_{kind}_tagger")


# --- label-recurrent taggers ----------------------------------------------------------
# Dinarelli & Tellier's Jordan RNN, I-RNN and I+E-RNN (pytorch/label_recurrence.py): the
# recurrence runs through the previously predicted labels, gold ones while training.
LABEL_RECURRENT_TAGGER = "spacy-elstm.LabelRecurrentTagger.v1"


@registry.architectures(LABEL_RECURRENT_TAGGER)
def build_label_recurrent_tagger(
    tok2vec: Model,
    width: int,
    variant: str = "i-rnn",
    direction: str = "forward",
    n_prev_labels: int = 6,
    window: int = 3,
    label_width: int = 32,
    cell: str = "elstm",
    period: int = 100,
    own_predictions: float = 0.0,
    dropout: float = 0.0,
    nO: Optional[int] = None,
) -> Model[List[Any], List[Floats2d]]:
    """A label-recurrent tagger (Dinarelli & Tellier): a recurrent network that
    reads a window of the tok2vec's vectors and the labels it predicted at the
    previous positions, decoded greedily. It learns with teacher forcing: the
    elstm_tagger component hands it the gold labels in update (attrs
    "needs_gold"); at prediction it feeds its own predictions only. Outputs
    (n_tokens, nO) log-probabilities per doc, or for "bidirectional" (n_tokens,
    2 * nO): the forward network's (predicted with) and the backward network's,
    each trained with weight 1.

    tok2vec (Model[List[Doc], List[Floats2d]]): The vectors x_t the network reads.
    width (int): The cell's hidden width.
    variant (str): "jordan" (Eq. 3: one-hot previous labels through a matrix R summed
        into the hidden layer's input), "i-rnn" (previous label embeddings as input
        beside the words) or "i+e-rnn" (I-RNN plus the cell's own recurrence on h).
    direction (str): "forward", "backward" (right to left) or "bidirectional" (a
        backward network predicts first; the forward network also reads the labels
        it predicted at the next n_prev_labels positions).
    n_prev_labels (int): c, the number of previous (and, bidirectional, next) labels read.
    window (int): w, the network reads the vectors of tokens t-w..t+w (zero beyond the edges).
    label_width (int): The width of the label embeddings (i-rnn, i+e-rnn).
    cell (str): One of "elstm" (ELSTM-I), "elstm2" (ELSTM-II), "lstm", "gru", "srn".
    period (int): Ts, the number of scaling vectors of an ELSTM cell, repeated with that period.
    own_predictions (float): In training, the share of positions (drawn per token and
        batch) whose label the network reads as it predicted it instead of gold.
    dropout (float): Dropout on the word window and on the hidden layer while training.
    nO (Optional[int]): The number of labels; null to take it from the component's labels.
    """
    check_encoder_args(LABEL_RECURRENT_TAGGER, split_width=False, width=width, cell=cell,
                       period=period, gates="recurrent", dropout=dropout)
    _check_tagger_args(LABEL_RECURRENT_TAGGER, nO)
    n_in = _input_width(LABEL_RECURRENT_TAGGER, tok2vec)
    try:
        module = LabelRecurrentLabeller(
            variant=variant, direction=direction, cell=cell, input_width=n_in, width=width,
            n_labels=nO or 0, n_prev_labels=n_prev_labels, window=window,
            label_width=label_width, period=period, own_predictions=own_predictions,
            dropout=dropout)
    except ValueError as err:
        raise ValueError(f"{LABEL_RECURRENT_TAGGER}: {err}") from None
    return with_torch_labeller(tok2vec, module, input_width=n_in,
                               loss_weights=[1.0] * module.n_heads,
                               name=f"{cell}_{variant}_{direction}_tagger")


# graph-based parsing: a tok2vec, then biaffine arc and label scores per sentence
# (pytorch/biaffine.py), for the elstm_biaffine_parser component
BIAFFINE_PARSER = "spacy-elstm.BiaffineParser.v1"


@registry.architectures(BIAFFINE_PARSER)
def build_biaffine_parser(
    tok2vec: Model,
    arc_width: int = 500,
    label_width: int = 100,
    dropout: float = 0.33,
    nO: Optional[int] = None,
) -> Model[List[Any], Tuple]:
    """Deep biaffine scores for dependency parsing (Dozat & Manning 2017): per
    sentence, MLPs give each word a dependent and a head representation (and a
    learned ROOT vector one as head), the arc scores are biaffine with a head
    bias, the label scores a biaffine classifier on (dependent, head) pairs.
    For the elstm_biaffine_parser component; outputs (arcs, labels, lengths)
    for the batch's sentences (spacy_elstm.layers.biaffine).

    tok2vec (Model[List[Doc], List[Floats2d]]): The word vectors: a shared
        tok2vec's listener or the parser's own.
    arc_width (int): The width of the arc MLPs' output.
    label_width (int): The width of the label MLPs' output.
    dropout (float): Dropout on the MLPs' outputs while training.
    nO (Optional[int]): The number of labels; null to take it from the component's labels.
    """
    for arg, value in (("arc_width", arc_width), ("label_width", label_width)):
        if not (_is_int(value) and value >= 1):
            raise ValueError(f"{BIAFFINE_PARSER}: {arg} must be a positive integer, got "
                             f"{value!r}.")
    if not _is_probability(dropout):
        raise ValueError(f"{BIAFFINE_PARSER}: dropout must be a number in [0, 1), got "
                         f"{dropout!r}.")
    _check_tagger_args(BIAFFINE_PARSER, nO)
    module = BiaffineParserScorer(input_width=_input_width(BIAFFINE_PARSER, tok2vec),
                                  arc_width=arc_width, label_width=label_width,
                                  n_labels=nO or 0, dropout=dropout)
    return with_torch_biaffine(tok2vec, module, name="biaffine_parser")
