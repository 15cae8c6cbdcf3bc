"""Sequence-to-sequence labellers: the "seq2seq" and "seq2seq with attention"
macro-models of Su & Kuo (Sec. 4.1, Fig. 7; Tables 6-8), in the tagging
setting, where the output has one label per input token (T' = T).

Encoder: a ``RecurrentEncoder`` (any cell, uni- or bidirectional, ``depth``
layers) reads x_1..x_T and writes e_1..e_T. Its top layer's final state
initialises the decoder (the paper's c^Dec_1 = c^Enc_T): unidirectional, the
state after token T; bidirectional, [forward state after token T; backward
state after token 1], each direction having read the whole sentence, so the
decoder is as wide as the encoder's output. The cell state c is carried over
where both cells have one; a decoder cell with one starts it at zero after an
encoder without.

Decoder: a ``Recurrence`` of any cell whose input at step t is the embedding
of the previous label (a start symbol at t = 1),

    d_t = cell(E[y_(t-1)], d_(t-1)),    y_0 = <start>.

Without attention, log p_t = log_softmax(W_y d_t + b_y). With attention
(additive scores, Bahdanau et al. 2015, computed from the current decoder state
and combined with it before the softmax, as Vinyals et al. 2015 and Luong et
al. 2015 do), over the sequence's own encoder states only (with ``per_sentence`` a sequence is
a sentence where the doc has sentence boundaries, so that the attention's O(T^2)
cost is per sentence; without it, a whole doc):

    u_(t,i) = v^T tanh(W_e e_i + W_d d_t + b_a),        i = 1..T
    a_(t,i) = exp(u_(t,i)) / sum_j exp(u_(t,j))
    ctx_t   = sum_i a_(t,i) e_i
    o_t     = tanh(W_o [d_t; ctx_t] + b_o)
    log p_t = log_softmax(W_y o_t + b_y).

The context is not fed back into the recurrence, so with every previous label
known the decoder runs over the whole sequence in one pass.

Which y_(t-1) is fed: in training (teacher forcing) the gold label, and where a
gold label is missing (-1) the model's own most probable label at t-1; at
inference (no gold) always the model's own greedy prediction, step by step,
or with ``beam_width`` > 1 a beam search over the label sequences
(``beam.beam_search``), whose output is each step's label distribution over the
final beam.
``own_predictions`` > 0 (scheduled sampling, Bengio et al. 2015, at a fixed
rate) feeds the model's own prediction in training at that random share of the
steps too, drawn per step and batch, so that it learns to go on from its own
errors as it must at inference; the loss still compares every step with gold.
Any step fed its own prediction makes the decoder run step by step, as at
inference, which is slower than the one pass of full teacher forcing.

Interleaved output (``interleaved=True``; the paper's dependency-parsing target,
Sec. 5): 2T decoder steps, two labels per token, each step attending over the
same T encoder states; output (n_tokens, 2 * n_labels), the gold pair (a, b) of
a token as the one id a * n_labels + b (``autoregressive``, which also holds the
gold hand-over this module shares with ``conv_seq2seq``).
"""
from typing import Optional, Tuple

import torch
from torch import Tensor, nn

from .autoregressive import AutoregressiveLabeller
from .beam import beam_search
from .encoder import RecurrentEncoder
from .labeller import check_own_predictions
from .mode import Dropout, is_training
from .packing import Packing
from .recurrence import Recurrence, State


class AdditiveAttention(nn.Module):
    """The attention above: u, a, ctx and o for decoder states d."""

    def __init__(self, *, width: int):
        super().__init__()
        self.keys = nn.Linear(width, width, bias=False)     # W_e
        self.query = nn.Linear(width, width)                # W_d, b_a
        self.score = nn.Linear(width, 1, bias=False)        # v
        self.output = nn.Linear(2 * width, width)           # W_o, b_o

    def forward(self, d: Tensor, keys: Tensor, memory: Tensor, mask: Tensor,
                rows: Tensor) -> Tuple[Tensor, Tensor]:
        """d: (n, width) decoder states; memory: (batch, T, width) encoder
        states, one sequence per row, and keys = self.keys(memory); mask:
        (batch, T), True at a sequence's own tokens; rows: (n,), the memory row
        each decoder state reads. Returns o (n, width) and a (n, T), zero
        outside the sequence's own tokens."""
        u = self.score(torch.tanh(keys[rows] + self.query(d)[:, None, :])).squeeze(-1)
        a = torch.softmax(u.masked_fill(~mask[rows], float("-inf")), dim=-1)
        ctx = torch.bmm(a[:, None, :], memory[rows]).squeeze(1)
        return torch.tanh(self.output(torch.cat([d, ctx], dim=-1))), a


class Seq2SeqLabeller(AutoregressiveLabeller):
    """Encoder, decoder fed its previous label and, with ``attention``,
    additive attention (see the module docstring); one head.

    run: x (n_tokens, input_width), packed, and gold (n_tokens,) int64, packed,
    -1 where missing, or None -> log p (n_tokens, n_labels), packed; with
    ``interleaved``, gold pairs as one id each and log p (n_tokens, 2 * n_labels).
    """

    def __init__(self, *, cell: str, input_width: int, width: int, n_labels: int,
                 attention: bool = True, decoder_cell: Optional[str] = None, depth: int = 1,
                 bidirectional: bool = True, period: int = 1, gates: str = "recurrent",
                 label_width: int = 32, dropout: float = 0.0, interleaved: bool = False,
                 own_predictions: float = 0.0, beam_width: int = 1,
                 per_sentence: bool = False):
        check_own_predictions(own_predictions)
        if isinstance(beam_width, bool) or not isinstance(beam_width, int) or beam_width < 1:
            raise ValueError(f"beam_width must be a positive integer, got {beam_width!r}.")
        super().__init__(head_width=width, n_labels=n_labels, interleaved=interleaved)
        self.encoder = RecurrentEncoder(cell=cell, input_width=input_width, width=width,
                                        depth=depth, bidirectional=bidirectional,
                                        period=period, gates=gates, dropout=dropout)
        self.decoder = Recurrence(cell=decoder_cell or cell, input_width=label_width,
                                  hidden_width=width, period=period, gates=gates)
        # row 0: the start symbol; row l + 1: label l
        self.label_embed = nn.Embedding(n_labels + 1, label_width)
        self.attention = AdditiveAttention(width=width) if attention else None
        self.dropout = Dropout(dropout)
        self.own_predictions = float(own_predictions)
        self.beam_width = beam_width
        # whether the thinc layer hands it each sentence of a doc as a sequence (the
        # attention costs O(T^2) in a sequence's length) or each whole doc
        self.per_sentence = bool(per_sentence)

    def run(self, x: Tensor, packing: Packing, gold: Optional[Tensor] = None) -> Tensor:
        return self.run_with_weights(x, packing, gold)[0]

    def run_with_weights(self, x: Tensor, packing: Packing,
                         gold: Optional[Tensor] = None) -> Tuple[Tensor, Optional[Tensor]]:
        """``run``, and with attention the weights a (n_tokens, seq_len), packed:
        row t of a sequence holds a_(t, i) at column i - 1 (None without attention).
        Interleaved, the weights are those of the 2T decoder steps, packed as
        sequences twice as long (``interleave``). Under beam search (inference
        with ``beam_width`` > 1) the weights are None: each hypothesis has its own."""
        gold = self.checked_gold(gold, packing, x.device)
        memory, state = self.encode(x, packing)
        if self.attention is None:
            context = None
        else:
            batch = packing.sizes[0]
            padded = packing.to_time_major(memory).transpose(0, 1)  # (batch, T, width)
            lengths = packing.lengths[packing.order[:batch]].to(x.device)
            mask = torch.arange(packing.seq_len, device=x.device)[None, :] < lengths[:, None]
            context = (self.attention.keys(padded), padded, mask)
        steps = packing
        if self.interleaved:
            steps, gold = self.interleave(packing, gold)
        if gold is not None and is_training(self) and self.own_predictions > 0:
            own = torch.rand(gold.shape, device=gold.device) < self.own_predictions
            gold = gold.masked_fill(own, -1)  # -1: fed the model's own prediction
        if gold is not None and bool((gold >= 0).all()):
            log_p, weights = self._teacher_forced(steps, state, gold, context)
        elif gold is None and self.beam_width > 1 and not is_training(self):
            log_p, weights = self._beam(steps, state, context), None
        else:
            log_p, weights = self._greedy(steps, state, gold, context)
        if self.interleaved:
            log_p = self.fold(packing, steps, log_p)
        return log_p, weights

    def encode(self, x: Tensor, packing: Packing) -> Tuple[Tensor, State]:
        """The encoder's output e (n_tokens, width), packed, and the decoder's
        initial state (h, c), each (batch, width) in the batch's order."""
        blocks = self.encoder.layers  # options off: block(x) = dropout(layer(x))
        for block in blocks[:-1]:
            x = block.run(x, packing)
        outputs, hs, cs = [], [], []
        for rnn in blocks[-1].layer.rnns:
            y, (h, c) = rnn.run_state(x, packing)
            outputs.append(y)
            hs.append(h)
            cs.append(c)
        memory = blocks[-1].dropout.run(torch.cat(outputs, dim=-1), packing)
        h = torch.cat(hs, dim=-1)
        c = None
        if self.decoder.spec.cell_state:
            c = torch.zeros_like(h) if cs[0] is None else torch.cat(cs, dim=-1)
        return memory, (h, c)

    def _scores(self, d: Tensor, context, rows: Tensor) -> Tuple[Tensor, Optional[Tensor]]:
        d = self.dropout(d)
        weights = None
        if context is not None:
            d, weights = self.attention(d, *context, rows)
        return torch.log_softmax(self.heads[0](d), dim=-1), weights

    def _teacher_forced(self, packing: Packing, state: State, gold: Tensor, context):
        """Every previous label known: the decoder in one pass."""
        previous = torch.zeros(packing.n_tokens, dtype=torch.int64, device=gold.device)
        previous[packing.sizes[0]:] = gold.index_select(0, packing.previous) + 1
        proj = self._label_projections().index_select(0, previous)
        d, _ = self.decoder.run_state(proj, packing, state, projected=True)
        offsets = torch.tensor(packing.offsets[:-1], device=gold.device)
        rows = torch.arange(packing.n_tokens, device=gold.device) - offsets[packing.steps]
        return self._scores(d, context, rows)

    def _label_projections(self) -> Tensor:
        """The decoder's input projection of every label embedding (row 0: the
        start symbol), (n_labels + 1, n_gates * width): the decoder is only ever
        fed one of these rows."""
        return self.decoder.project(self.label_embed.weight)

    def _step(self, previous: Tensor, h: Tensor, c: Optional[Tensor], t: int, rows: Tensor,
              context, table: Tensor) -> Tuple[Tensor, Optional[Tensor], Tensor, Optional[Tensor]]:
        """One decoder step of m states at step t, each fed the label id in
        ``previous`` (-1: the start symbol) and reading memory row ``rows``:
        log p (m, n_labels), the attention weights (or None) and the new (h, c).
        table: ``_label_projections()``."""
        step = Packing(torch.ones(len(previous), dtype=torch.int64), h.device)
        d, (h, c) = self.decoder.run_state(table.index_select(0, previous + 1), step, (h, c),
                                           start=t, projected=True)
        log_p, a = self._scores(d, context, rows)
        return log_p, a, h, c

    @staticmethod
    def _running_state(packing: Packing, state: State) -> State:
        """The decoder's initial (h, c) in the batch's order -> the rows of the
        sequences that run (length >= 1), in packed order."""
        running = packing.running
        return (state[0].index_select(0, running),
                None if state[1] is None else state[1].index_select(0, running))

    def _greedy(self, packing: Packing, state: State, gold: Optional[Tensor], context):
        """Step by step, each step fed the previous gold label where known and
        the previous prediction elsewhere. The k sequences running at step t
        are the first k of the packed order, so the state shrinks by slicing."""
        h, c = self._running_state(packing, state)
        previous = torch.full((len(h),), -1, dtype=torch.int64, device=h.device)
        scores, weights = [], []
        table = self._label_projections()
        for t, k in enumerate(packing.sizes):
            log_p, a, h, c = self._step(previous[:k], h[:k], None if c is None else c[:k], t,
                                        torch.arange(k, device=h.device), context, table)
            scores.append(log_p)
            weights.append(a)
            previous = log_p.detach().argmax(dim=-1)
            if gold is not None:
                known = gold[packing.offsets[t]: packing.offsets[t] + k]
                previous = torch.where(known >= 0, known, previous)
        return torch.cat(scores), None if context is None else torch.cat(weights)

    def _beam(self, packing: Packing, state: State, context) -> Tensor:
        """Beam search of ``beam_width`` (``beam.beam_search``), at inference."""
        h, c = self._running_state(packing, state)
        table = self._label_projections()

        def step(previous, h, c, t, rows):
            log_p, _, h, c = self._step(previous, h, c, t, rows, context, table)
            return log_p, h, c

        return beam_search(step, packing, h, c, width=self.beam_width, n_labels=self.n_labels)
