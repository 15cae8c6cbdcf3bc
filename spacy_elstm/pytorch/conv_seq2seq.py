"""The convolutional sequence-to-sequence labeller of Gehring et al. (2017,
"Convolutional Sequence to Sequence Learning"), the "convseq2seq" Su & Kuo
compare with (Table 8), in the tagging setting: T' = T output labels for T
tokens, or T' = 2T with ``interleaved`` (``autoregressive``).

Notation: x_j the input vectors (the tok2vec's), f = ``label_width`` the
embedding width, d = ``width`` the convolutions' width, k = ``kernel_size``,
r = sqrt(0.5), m the sequence's length, drop() dropout while training,
GLU([A; B]) = A * sigmoid(B) (the gated linear unit, halving the width), and
P, Q learned position embeddings (rows beyond ``n_positions`` share the last).

Encoder (``enc_layers`` = L blocks), over the sequence's own tokens j = 1..m:

    e_j   = drop(W_s x_j + P_j)          (W_s the identity where x_j is f wide)
    h^0_j = W_i e_j + b_i                                   (f -> d)
    h^l   = r * (GLU(conv_l(drop(h^(l-1)))) + h^(l-1)),     l = 1..L
    z_j   = W_z h^L_j + b_z                                 (d -> f)

where conv_l is a 1-D convolution of width k to 2d channels that sees
(k-1) // 2 positions before j and the rest after, zeros beyond the sequence's
ends (never another sequence's tokens, nor padding).

Decoder (``dec_layers`` = L' blocks), at steps i = 1..T', fed the previous
label y_(i-1) (y_0 the start symbol):

    g_i   = drop(E[y_(i-1)] + Q_i)
    s^0_i = W_g g_i + b_g                                   (f -> d)
    u^l   = GLU(causal_conv_l(drop(s^(l-1))))     (sees steps i-k+1..i only)
    q^l_i = r * (W^l_q u^l_i + b^l_q + g_i)                 (d -> f)
    a^l_ij = exp(q^l_i . z_j) / sum_(j'=1..m) exp(q^l_i . z_j')
    c^l_i = sqrt(m) * sum_j a^l_ij * r * (z_j + e_j)
    s^l_i = r * (r * (u^l_i + W^l_c c^l_i + b^l_c) + s^(l-1)_i)    (f -> d)
    o_i   = W_o s^L'_i + b_o                                (d -> f)
    log p_i = log_softmax(W_y drop(o_i) + b_y).

The attention of every decoder layer ("multi-step attention") reads the
encoder's output z as keys and z + e as values; the scalings by r and sqrt(m)
keep the activations' variance (Gehring et al., Sec. 3.4). Weights are
initialised as in their Sec. 3.5: embeddings N(0, 0.1); a layer of n inputs
N(0, sqrt(4p / n)) before a GLU, N(0, sqrt(p / n)) after dropout and
N(0, sqrt(1 / n)) otherwise, p = 1 - dropout; biases 0. Every convolution and
linear layer is then weight-normalised (Salimans & Kingma, 2016: W = g v / |v|
per output unit, g and v trained), as in Gehring et al.'s code: without it
their optimizer (NAG, learning rate 0.25, momentum 0.99) does not train this
model on EWT (the loss rises again within 100 batches), with it the loss falls
steadily. Not done here: scaling the encoder's gradient by the number of
attention layers, so that the gradient stays the derivative of the loss.

Which y_(i-1) is fed: as the recurrent seq2seq (``seq2seq``). In training
(teacher forcing) the gold label; the causal convolutions make every step's
output depend on the steps before it only, so with every gold label known the
decoder runs over the whole sequence in one pass. Where a gold label is
missing (-1), and at inference, the model's own most probable label, step by
step: each decoder layer keeps the last k - 1 inputs of its convolution, so a
step costs one window per layer and one attention row, and gives what the one
pass gives for the same labels.

Each sequence is one sentence (``per_sentence``): the thinc layer hands the
module each sentence of a doc, so positions count within the sentence, as the
parser's interleaved head positions do. The convolutions run on the packed
layout (``packed_conv``), spending nothing on padding; the attention reads a
padded batch of the sequences, masked.
"""
import math
from typing import Callable, List, NamedTuple, Optional

import torch
from torch import Tensor, nn
from torch.nn import functional as F
from torch.nn.utils.parametrizations import weight_norm

from .autoregressive import AutoregressiveLabeller
from .mode import Dropout
from .packed_conv import convolve, convolve_windows, window_rows
from .packing import Packing

SCALE = math.sqrt(0.5)  # r above


class Memory(NamedTuple):
    """The encoder's output for the attention, one sequence per row (batch,
    T, f), longest first: keys z, values r * (z + e), mask (batch, T), True at
    a sequence's own tokens, and sqrt(m) per sequence, (batch, 1, 1)."""
    keys: Tensor
    values: Tensor
    mask: Tensor
    scale: Tensor

    def read(self, q: Tensor) -> Tensor:
        """c for queries q (b, n, f) of the first b sequences -> (b, n, f)."""
        b = q.shape[0]
        scores = torch.bmm(q, self.keys[:b].transpose(1, 2))
        a = torch.softmax(scores.masked_fill(~self.mask[:b, None, :], float("-inf")), dim=-1)
        return torch.bmm(a, self.values[:b]) * self.scale[:b]


class DecoderLayer(nn.Module):
    """One decoder block: its causal convolution, and its attention's W_q, W_c."""

    def __init__(self, *, width: int, embed_width: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv1d(width, 2 * width, kernel_size)     # causal_conv_l
        self.query = nn.Linear(width, embed_width)               # W_q, b_q
        self.context = nn.Linear(embed_width, width)             # W_c, b_c

    def attend(self, u: Tensor, g: Tensor, s: Tensor, read: Callable[[Tensor], Tensor]) -> Tensor:
        """s^l from u^l, g and s^(l-1), each (n, .), with read(q) = c for the
        queries q (n, f) -> (n, width)."""
        c = read(SCALE * (self.query(u) + g))
        return SCALE * (SCALE * (u + self.context(c)) + s)


class ConvSeq2SeqLabeller(AutoregressiveLabeller):
    """Convolutional encoder, convolutional decoder fed its previous label,
    attention in every decoder layer (see the module docstring); one head.

    run: x (n_tokens, input_width), packed, and gold (n_tokens,) int64, packed,
    -1 where missing, or None -> log p (n_tokens, n_labels), packed; with
    ``interleaved``, gold pairs as one id each and log p (n_tokens, 2 * n_labels).
    """

    per_sentence = True  # the thinc layer hands it each sentence as a sequence

    def __init__(self, *, input_width: int, width: int, n_labels: int, enc_layers: int = 4,
                 dec_layers: int = 4, kernel_size: int = 3, label_width: int = 512,
                 dropout: float = 0.0, interleaved: bool = False, n_positions: int = 512):
        for name, value in (("input_width", input_width), ("width", width),
                            ("enc_layers", enc_layers), ("dec_layers", dec_layers),
                            ("kernel_size", kernel_size), ("label_width", label_width),
                            ("n_positions", n_positions)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}.")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) \
                or not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be a number in [0, 1), got {dropout!r}.")
        super().__init__(head_width=label_width, n_labels=n_labels, interleaved=interleaved)
        self.kernel_size = kernel_size
        self.dropout = Dropout(dropout)
        # the encoder
        self.source_map = (nn.Identity() if input_width == label_width
                           else nn.Linear(input_width, label_width))      # W_s
        self.source_positions = nn.Embedding(n_positions, label_width)   # P
        self.encoder_in = nn.Linear(label_width, width)                  # W_i, b_i
        self.encoder_convs = nn.ModuleList(nn.Conv1d(width, 2 * width, kernel_size)
                                           for _ in range(enc_layers))
        self.encoder_out = nn.Linear(width, label_width)                 # W_z, b_z
        # the decoder; label_embed: row 0 the start symbol, row l + 1 label l (E)
        self.label_embed = nn.Embedding(n_labels + 1, label_width)
        self.target_positions = nn.Embedding(n_positions, label_width)   # Q
        self.decoder_in = nn.Linear(label_width, width)                  # W_g, b_g
        self.decoder_layers = nn.ModuleList(
            DecoderLayer(width=width, embed_width=label_width, kernel_size=kernel_size)
            for _ in range(dec_layers))
        self.decoder_out = nn.Linear(width, label_width)                 # W_o, b_o
        self._init_weights()
        for layer in self.modules():
            if isinstance(layer, (nn.Linear, nn.Conv1d)) and layer.weight.numel():
                weight_norm(layer)

    # --- initialisation (Gehring et al., Sec. 3.5), then weight normalisation ------

    def _init_weights(self) -> None:
        kept = 1.0 - self.dropout.p
        if isinstance(self.source_map, nn.Linear):
            _init(self.source_map, 1.0)
        for table in (self.source_positions, self.target_positions):
            nn.init.normal_(table.weight, 0.0, 0.1)
        _init(self.encoder_in, kept)
        for conv in self.encoder_convs:
            _init(conv, 4.0 * kept)
        _init(self.encoder_out, 1.0)
        _init(self.decoder_in, kept)
        for layer in self.decoder_layers:
            _init(layer.conv, 4.0 * kept)
            _init(layer.query, 1.0)
            _init(layer.context, 1.0)
        _init(self.decoder_out, 1.0)
        self._init_label_weights()

    def _init_label_weights(self) -> None:
        nn.init.normal_(self.label_embed.weight, 0.0, 0.1)
        _init(self.heads[0], 1.0 - self.dropout.p)

    def resize_labels(self, n_labels: int) -> None:
        """New label embeddings and head (weight-normalised), initialised as above."""
        if n_labels == self.n_labels:
            return
        super().resize_labels(n_labels)
        self._init_label_weights()
        if n_labels:
            weight_norm(self.heads[0])

    # --- the passes ----------------------------------------------------------------

    def run(self, x: Tensor, packing: Packing, gold: Optional[Tensor] = None) -> Tensor:
        gold = self.checked_gold(gold, packing, x.device)
        memory = self.encode(x, packing)
        steps = packing
        if self.interleaved:
            steps, gold = self.interleave(packing, gold)
        if gold is not None and bool((gold >= 0).all()):
            log_p = self.teacher_forced(memory, steps, gold)
        else:
            log_p = self.greedy(memory, steps, gold)
        return self.fold(packing, steps, log_p) if self.interleaved else log_p

    def encode(self, x: Tensor, packing: Packing) -> Memory:
        """The encoder over the packed x; the memory holds the sequences that
        have a token, in the packed order (longest first)."""
        e = self.dropout(self.source_map(x) + self._positions(self.source_positions,
                                                              packing.steps))
        h = self.encoder_in(e)
        before = (self.kernel_size - 1) // 2
        rows = window_rows(packing, range(-before, self.kernel_size - before))
        for conv in self.encoder_convs:
            h = SCALE * (F.glu(convolve(conv, self.dropout(h), rows), dim=-1) + h)
        z = self.encoder_out(h)
        batch = packing.sizes[0]
        lengths = packing.lengths[packing.order[:batch]].to(x.device)
        mask = torch.arange(packing.seq_len, device=x.device)[None, :] < lengths[:, None]

        def by_sequence(y: Tensor) -> Tensor:  # packed -> (batch, T, f)
            return packing.to_time_major(y).transpose(0, 1)

        return Memory(keys=by_sequence(z), values=by_sequence(SCALE * (z + e)), mask=mask,
                      scale=lengths.to(x.dtype).sqrt().view(-1, 1, 1))

    @staticmethod
    def _positions(table: nn.Embedding, steps: Tensor) -> Tensor:
        """The rows of a position table for 0-based positions ``steps``;
        positions beyond the table read its last row."""
        return table(steps.clamp(max=table.num_embeddings - 1))

    def _embed_labels(self, previous: Tensor, steps: Tensor) -> Tensor:
        """g for label ids ``previous`` (-1: the start symbol) fed at ``steps``."""
        return self.dropout(self.label_embed(previous + 1)
                            + self._positions(self.target_positions, steps))

    def _log_p(self, s: Tensor) -> Tensor:
        return torch.log_softmax(self.heads[0](self.dropout(self.decoder_out(s))), dim=-1)

    def teacher_forced(self, memory: Memory, steps: Packing, gold: Tensor) -> Tensor:
        """Every previous label known (gold: packed on ``steps``): the decoder in
        one pass -> log p (n steps, n_labels), packed."""
        previous = torch.full_like(gold, -1)
        previous[steps.sizes[0]:] = gold.index_select(0, steps.previous)
        g = self._embed_labels(previous, steps.steps)
        s = self.decoder_in(g)
        rows = window_rows(steps, range(1 - self.kernel_size, 1))

        def read(q: Tensor) -> Tensor:
            padded = steps.to_time_major(q).transpose(0, 1)  # (batch, T', f)
            return steps.from_time_major(memory.read(padded).transpose(0, 1))

        for layer in self.decoder_layers:
            u = F.glu(convolve(layer.conv, self.dropout(s), rows), dim=-1)
            s = layer.attend(u, g, s, read)
        return self._log_p(s)

    def greedy(self, memory: Memory, steps: Packing, gold: Optional[Tensor] = None) -> Tensor:
        """Step by step, each step fed the previous gold label where known
        (gold: packed on ``steps``, -1 where missing) and the previous
        prediction elsewhere -> log p (n steps, n_labels), packed. The k
        sequences running at step i are the first k, so the state shrinks by
        slicing: each layer's last k - 1 inputs (zeros before the first step)."""
        batch, width = steps.sizes[0], self.decoder_in.out_features
        device = memory.keys.device
        windows: List[Tensor] = [memory.keys.new_zeros(batch, self.kernel_size - 1, width)
                                 for _ in self.decoder_layers]
        previous = torch.full((batch,), -1, dtype=torch.int64, device=device)

        def read(q: Tensor) -> Tensor:  # one query per running sequence
            return memory.read(q[:, None, :]).squeeze(1)

        scores = []
        for i, k in enumerate(steps.sizes):
            g = self._embed_labels(previous[:k], torch.full((k,), i, device=device))
            s = self.decoder_in(g)
            for n, layer in enumerate(self.decoder_layers):
                window = torch.cat([windows[n][:k], self.dropout(s)[:, None, :]], dim=1)
                windows[n] = window[:, 1:]
                s = layer.attend(F.glu(convolve_windows(layer.conv, window), dim=-1), g, s, read)
            log_p = self._log_p(s)
            scores.append(log_p)
            previous = log_p.detach().argmax(dim=-1)
            if gold is not None:
                known = gold[steps.offsets[i]: steps.offsets[i] + k]
                previous = torch.where(known >= 0, known, previous)
        return torch.cat(scores)


def _init(layer: nn.Module, gain: float) -> None:
    """Weights N(0, sqrt(gain / n)), n a unit's inputs; bias 0 (Sec. 3.5)."""
    if layer.weight.numel():  # a head has no rows until the labels are known
        n = math.prod(layer.weight.shape[1:])
        nn.init.normal_(layer.weight, 0.0, math.sqrt(gain / n))
        nn.init.zeros_(layer.bias)
