"""The taggers: models for the elstm_tagger and elstm_seq_parser components, a
tok2vec then a recurrent (or, for the convolutional seq2seq, convolutional)
macro-model and its softmax heads, outputting log-probabilities per doc
(pytorch/labeller.py, seq2seq.py, conv_seq2seq.py, label_recurrence.py).
"""
from typing import Any, List, Optional

from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

from ..layers import with_torch_labeller
from ..pytorch import ConvSeq2SeqLabeller, DBRNNLabeller, RecurrentLabeller, Seq2SeqLabeller
from ..pytorch.label_recurrence import LabelRecurrentLabeller
from .validation import (check_args, check_cell_args, check_encoder_args, check_tagger_args,
                         input_width, wrap_errors)

RECURRENT_TAGGER = "spacy-elstm.RecurrentTagger.v1"
DBRNN_TAGGER = "spacy-elstm.DBRNNTagger.v1"


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
    the elstm_tagger component; outputs (n_tokens, nO)
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
    check_tagger_args(RECURRENT_TAGGER, nO)
    n_in = input_width(RECURRENT_TAGGER, tok2vec)
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
    check_tagger_args(DBRNN_TAGGER, nO, loss_pooled=loss_pooled, loss_forward=loss_forward,
                       loss_backward=loss_backward)
    n_in = input_width(DBRNN_TAGGER, tok2vec)
    module = DBRNNLabeller(cell=cell, input_width=n_in, width=width, n_labels=nO or 0,
                           period=period, gates=gates, dropout=dropout)
    return with_torch_labeller(tok2vec, module, input_width=n_in,
                               loss_weights=[loss_pooled, loss_forward, loss_backward],
                               name=f"{cell}_dbrnn_tagger")


# --- sequence-to-sequence labellers (pytorch/seq2seq.py) -------------------------
# Models for elstm_tagger and elstm_seq_parser that are fed their previous labels:
# they declare attrs["needs_gold"], and the components hand them the gold labels in
# training (the components' update, layers.labeller.set_teacher).
SEQ2SEQ_TAGGER = "spacy-elstm.Seq2SeqTagger.v1"
SEQ2SEQ_TAGGER_V2 = "spacy-elstm.Seq2SeqTagger.v2"


@registry.architectures(SEQ2SEQ_TAGGER_V2)
def build_seq2seq_tagger_v2(
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
    scores every encoder state of the sentence additively, u = v^T tanh(W_e e_i + W_d d_t),
    and predicts from tanh(W_o [d_t; sum_i softmax(u)_i e_i]). Each sentence of a doc
    is one sequence (a doc without sentence boundaries is one sentence), so the
    attention costs the sum of the sentences' squared lengths. Outputs (n_tokens, nO)
    log-probabilities per doc. (Seq2SeqTagger.v1 takes the same arguments and reads
    each whole doc as one sequence.)

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
    return _seq2seq_tagger(SEQ2SEQ_TAGGER_V2, per_sentence=True, **locals())


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
    """Seq2SeqTagger.v2's model, reading each whole doc as one sequence, its
    sentence boundaries ignored, in training and at inference: the attention
    costs the square of the doc's length (elstm_tagger warns once for a doc over
    LONG_DOC_TOKENS tokens). Kept as it was for the pipelines saved with it."""
    return _seq2seq_tagger(SEQ2SEQ_TAGGER, per_sentence=False, **locals())


def _seq2seq_tagger(name: str, *, per_sentence: bool, tok2vec: Model, width: int,
                    attention: bool, cell: str, decoder_cell: Optional[str], depth: int,
                    bidirectional: bool, period: int, gates: str, label_width: int,
                    dropout: float, interleaved: bool, own_predictions: float,
                    beam_width: int, nO: Optional[int]) -> Model[List[Any], List[Floats2d]]:
    check_encoder_args(name, split_width=bidirectional, width=width, depth=depth,
                       cell=cell, bidirectional=bidirectional, period=period, gates=gates,
                       dropout=dropout)
    check_args(name, attention=attention, interleaved=interleaved, label_width=label_width)
    if decoder_cell is not None:
        check_cell_args(name, decoder_cell, gates, period, arg="decoder_cell")
    check_tagger_args(name, nO)
    n_in = input_width(name, tok2vec)
    module = wrap_errors(name, lambda: Seq2SeqLabeller(
        cell=cell, input_width=n_in, width=width, n_labels=nO or 0, attention=attention,
        decoder_cell=decoder_cell, depth=depth, bidirectional=bidirectional, period=period,
        gates=gates, label_width=label_width, dropout=dropout, interleaved=interleaved,
        own_predictions=own_predictions, beam_width=beam_width, per_sentence=per_sentence))
    kind = "seq2seq_attention" if attention else "seq2seq"
    return with_torch_labeller(tok2vec, module, input_width=n_in,
                               loss_weights=[1.0] * module.n_heads,
                               name=f"{cell}_{kind}_tagger")


# --- the convolutional seq2seq (pytorch/conv_seq2seq.py) --------------------------------
# Gehring et al.'s model, Su & Kuo's "convseq2seq" (Table 8); fed its previous labels
# like the recurrent seq2seq, each sentence of a doc one sequence.
CONV_SEQ2SEQ_TAGGER = "spacy-elstm.ConvSeq2SeqTagger.v1"


@registry.architectures(CONV_SEQ2SEQ_TAGGER)
def build_conv_seq2seq_tagger(
    tok2vec: Model,
    width: int,
    enc_layers: int = 4,
    dec_layers: int = 4,
    kernel_size: int = 3,
    label_width: Optional[int] = None,
    dropout: float = 0.1,
    interleaved: bool = False,
    n_positions: int = 512,
    nO: Optional[int] = None,
) -> Model[List[Any], List[Floats2d]]:
    """The convolutional sequence-to-sequence model of Gehring et al. (2017), as a
    tagger: one output label per token (two with interleaved). The encoder adds
    a learned position embedding to the tok2vec's vectors and runs enc_layers
    convolutions of kernel_size tokens, each with a gated linear unit and a residual
    connection. The decoder embeds the previous label (a start symbol first) and
    runs dec_layers causal convolutions, each attending by dot product over the
    sentence's encoded tokens. It is fed the gold previous labels in training
    (teacher forcing, all steps in one pass; its own prediction where a gold label
    is missing), its own greedy predictions at inference. Each sentence of a doc is
    one sequence (a doc without sentence boundaries is one sentence). Outputs
    (n_tokens, nO) log-probabilities per doc, (n_tokens, 2 * nO) with interleaved.

    tok2vec (Model[List[Doc], List[Floats2d]]): The vectors the encoder reads (the
        source embedding).
    width (int): The convolutions' width (their channels), encoder and decoder alike.
    enc_layers (int): The number of encoder convolutions.
    dec_layers (int): The number of decoder convolutions, each with its own attention.
    kernel_size (int): The tokens (encoder: centred) or steps (decoder: the current
        one and those before it) each convolution reads.
    label_width (Optional[int]): The embedding width: of the labels, the positions and
        the attention's dot products; null for the tok2vec's width (otherwise its
        vectors are mapped to label_width by a linear layer first).
    dropout (float): Dropout on the embeddings, before each convolution and before
        the output layer, while training.
    interleaved (bool): Decode two labels per token, one after the other (2T steps,
        one vocabulary), as the paper's parsing target interleaves each word's
        relation and head position: for elstm_seq_parser's "interleaved" encoding.
        Outputs (n_tokens, 2 * nO) then.
    n_positions (int): The number of learned position embeddings, for the encoder's
        tokens and for the decoder's steps (2 per token with interleaved); later
        positions share the last one.
    nO (Optional[int]): The number of labels; null to take it from the component's labels.
    """
    name = CONV_SEQ2SEQ_TAGGER
    check_args(name, width=width, enc_layers=enc_layers, dec_layers=dec_layers,
               kernel_size=kernel_size, dropout=dropout, interleaved=interleaved,
               n_positions=n_positions)
    if label_width is not None:
        check_args(name, label_width=label_width)
    check_tagger_args(name, nO)
    n_in = input_width(name, tok2vec)
    module = wrap_errors(name, lambda: ConvSeq2SeqLabeller(
        input_width=n_in, width=width, n_labels=nO or 0, enc_layers=enc_layers,
        dec_layers=dec_layers, kernel_size=kernel_size, label_width=label_width or n_in,
        dropout=dropout, interleaved=interleaved, n_positions=n_positions))
    return with_torch_labeller(tok2vec, module, input_width=n_in,
                               loss_weights=[1.0] * module.n_heads, name="conv_seq2seq_tagger")


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
    check_tagger_args(LABEL_RECURRENT_TAGGER, nO)
    n_in = input_width(LABEL_RECURRENT_TAGGER, tok2vec)
    module = wrap_errors(LABEL_RECURRENT_TAGGER, lambda: LabelRecurrentLabeller(
        variant=variant, direction=direction, cell=cell, input_width=n_in, width=width,
        n_labels=nO or 0, n_prev_labels=n_prev_labels, window=window,
        label_width=label_width, period=period, own_predictions=own_predictions,
        dropout=dropout))
    return with_torch_labeller(tok2vec, module, input_width=n_in,
                               loss_weights=[1.0] * module.n_heads,
                               name=f"{cell}_{variant}_{direction}_tagger")
