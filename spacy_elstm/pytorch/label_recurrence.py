"""Label-recurrent taggers: the RNNs of Dinarelli & Tellier (Sec. 2-2.4), whose
recurrence runs through the labels they predicted, decoded greedily.

Notation as in the paper: x_t the tok2vec vector of token t (the paper's word
embedding E_w(v(w_t))), I_t = [x_(t-w) ... x_t ... x_(t+w)] the word window
(zero beyond the sequence's edges), y_t the label at t (gold or predicted, see
below), E_l the label embeddings (``label_width`` wide), c = ``n_prev_labels``
and Sigma the cell (one ``cells.step`` of any cell in ``cells.TABLE``):

- ``jordan``, Eq. 3:   h_t = Sigma(I_t H + [y_(t-c) ... y_(t-1)] R)
  The labels enter as one-hot vectors, so [y] R adds one learned row of R per
  previous position (R: c tables of |L| + 1 rows, each as wide as the cell's gate
  pre-activations), summed to I_t H. No hidden-to-hidden recurrence.
- ``i-rnn``, Sec. 2.3:  h_t = Sigma([I_t L_t] H),  L_t = [E_l(y_(t-1)) ... E_l(y_(t-c))]
  The label embeddings are an input beside the words, through the same H. No
  hidden-to-hidden recurrence.
- ``i+e-rnn``, Sec. 2.3: h_t = Sigma([I_t L_t] H + h_(t-1) R)
  I-RNN plus the cell's own recurrence. The paper sums c previous hidden states
  [h_(t-c+1) ... h_(t-1)] R; here the cell reads its previous state (h_(t-1),
  and c_(t-1) for the cells that carry one), as every cell of this project does:
  their memory of older steps lives in that state.

"No hidden-to-hidden recurrence" means Sigma starts each step from the zero
state: srn is then the paper's Sigma(a) with tanh for the sigmoid, the
cell-state cells a gated feed-forward unit (c = s * i * g, h = o * tanh(c + b)),
the GRU (1 - z) * n. The ELSTM's scaling s_t counts t from the sequence's first
token in reading order, as in ``Recurrence``.

The paper writes the label history as y_(t-c+1) ... y_(t-1) (c - 1 labels) in Eq. 3
and in L_t, but as c labels in the bidirectional L^f_t and in its parameter
count; we use c labels on each side. Positions before the first token (after
the last) read a learned boundary label, row |L| of the tables.

Directions (Sec. 2.4): ``backward`` is the same network reading each sequence
from its end. ``bidirectional`` first runs a backward network, which predicts
the labels right to left; a forward network then reads, besides its own c
previous labels, the c following labels the backward network predicted,
L^f_t = [E_l(y_(t+1)) ... E_l(y_(t+c))] (Jordan: c more tables of R):

    h_t = Sigma([I_t L^p_t L^f_t] H)  (for i+e-rnn, + h_(t-1) R).

The forward network's prediction is the output (head 0); the backward
network's is head 1, trained with its own loss, so that it learns the labels
the forward network reads.

Which labels y are fed: at inference, always the network's own greedy
predictions (argmax), never gold. In training (teacher forcing), the gold label
of each position, except on a random share ``own_predictions`` of the positions
(drawn per token, per batch), which feed the prediction instead -- the
forward network's own for the past context, the backward network's for the
future context --, and at positions whose gold label is missing (-1). The fed
labels are discrete: no gradient flows through them.
"""
from typing import Optional, Tuple

import torch
from torch import Tensor, nn

from . import cells
from .labeller import _Labeller, check_own_predictions
from .mode import Dropout, is_training
from .packing import Packing, run_packed
from .recurrence import Recurrence

VARIANTS: Tuple[str, ...] = ("jordan", "i-rnn", "i+e-rnn")
# the order in which the labels are decoded (the ``direction`` argument)
DECODING_ORDERS: Tuple[str, ...] = ("forward", "backward", "bidirectional")


def _choose(what: str, value, allowed: Tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"Unknown {what} {value!r}: choose one of "
                         f"{', '.join(map(repr, allowed))}.")


class LabelRecurrentLabeller(_Labeller):
    """A label-recurrent tagger (see the module docstring).

    run: x (n_tokens, input_width), packed, and gold (n_tokens,) int64 packed
    (-1 where missing) or None -> log p (n_tokens, n_heads * n_labels), packed:
    one head, or for ``bidirectional`` two: [log p (forward), log p (backward)].
    """

    needs_gold = True  # the thinc layer hands it the gold labels while training

    def __init__(self, *, variant: str, direction: str, cell: str, input_width: int,
                 width: int, n_labels: int, n_prev_labels: int = 6, window: int = 3,
                 label_width: int = 32, period: int = 1, own_predictions: float = 0.0,
                 dropout: float = 0.0):
        _choose("variant", variant, VARIANTS)
        _choose("direction", direction, DECODING_ORDERS)
        cells.check_cell(cell, "recurrent", period)
        if cells.TABLE[cell].second_order:
            # its projection carries the mixing weights, which the label inputs added
            # to the gates here (``_label_input``) know nothing of
            raise ValueError(f"Cell {cell!r} cannot read previous labels: choose one of "
                             f"{', '.join(map(repr, cells.FIRST_ORDER))}.")
        for arg, value, low in (("n_prev_labels", n_prev_labels, 1), ("window", window, 0),
                                ("label_width", label_width, 1), ("width", width, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{arg} must be an integer >= {low}, got {value!r}.")
        check_own_predictions(own_predictions)
        n_heads = 2 if direction == "bidirectional" else 1
        self._n_heads = n_heads
        super().__init__(head_width=width, n_labels=n_labels)
        self.variant = variant
        self.direction = direction
        self.window = window
        self.own_predictions = float(own_predictions)
        self.dropout = Dropout(dropout)
        words = (2 * window + 1) * input_width
        # decoders[0] predicts head 0; for "bidirectional", decoders[1] is the backward network
        n_future = n_prev_labels if direction == "bidirectional" else 0
        self.decoders = nn.ModuleList([_Decoder(
            variant=variant, cell=cell, word_width=words, width=width, period=period,
            n_past=n_prev_labels, n_future=n_future, label_width=label_width,
            n_labels=n_labels)])
        if direction == "bidirectional":
            self.decoders.append(_Decoder(
                variant=variant, cell=cell, word_width=words, width=width, period=period,
                n_past=n_prev_labels, n_future=0, label_width=label_width, n_labels=n_labels))

    @property
    def n_heads(self) -> int:
        return self._n_heads

    def resize_labels(self, n_labels: int) -> None:
        super().resize_labels(n_labels)
        for decoder in self.decoders:
            decoder.resize_labels(n_labels)

    def forward(self, x: Tensor, lengths: Tensor, flat: bool = False,
                gold: Optional[Tensor] = None) -> Tensor:
        """As ``SequenceModule.forward``, with ``gold`` label ids laid out as x
        without its last dimension ((n_tokens,) with ``flat``, else (batch,
        seq_len)), -1 where missing; read only in training mode."""
        def run(x_packed: Tensor, packing: Packing) -> Tensor:
            g = None
            if gold is not None:
                g = (packing.from_flat(gold) if flat
                     else packing.from_padded(gold.unsqueeze(-1)).squeeze(-1))
            return self.run(x_packed, packing, gold=g)

        return run_packed(run, x, lengths, self.output_width, flat)

    def run(self, x: Tensor, packing: Packing, gold: Optional[Tensor] = None) -> Tensor:
        words = self.dropout(_window(x, packing, self.window))
        fed = self._fed_labels(gold, words.shape[0], words.device)
        if self.direction == "backward":
            logp, _ = self._decode_backward(self.decoders[0], self.heads[0], words, packing, fed)
            return logp
        future = None
        if self.direction == "bidirectional":
            logp_b, pred_b = self._decode_backward(self.decoders[1], self.heads[1], words,
                                                   packing, fed)
            future = _following(torch.where(fed >= 0, fed, pred_b), packing,
                                self.decoders[0].n_future, self.decoders[0].boundary)
        logp, _ = self.decoders[0].decode(words, packing, self.heads[0], self.dropout, fed,
                                          future)
        return logp if future is None else torch.cat([logp, logp_b], dim=-1)

    def _fed_labels(self, gold: Optional[Tensor], n: int, device) -> Tensor:
        """The gold label to feed at each position, -1 where the prediction is fed."""
        if gold is None or not is_training(self):
            return torch.full((n,), -1, dtype=torch.int64, device=device)
        fed = gold.to(torch.int64)
        if self.own_predictions > 0:
            own = torch.rand(n, device=device) < self.own_predictions
            fed = fed.masked_fill(own, -1)
        return fed

    def _decode_backward(self, decoder: "_Decoder", head: nn.Linear, words: Tensor,
                         packing: Packing, fed: Tensor) -> Tuple[Tensor, Tensor]:
        logp, pred = decoder.decode(packing.reverse(words), packing, head, self.dropout,
                                    packing.reverse(fed))
        return packing.reverse(logp), packing.reverse(pred)


class _Decoder(nn.Module):
    """One label-recurrent network reading its packed sequences from step 0 on;
    callers reverse the sequences for a backward one. Its cell's parameters
    live in a ``Recurrence`` (H is its weight_x over [I_t L_t]); the steps run
    here through ``cells.step``, since each needs the label chosen at the one before."""

    def __init__(self, *, variant: str, cell: str, word_width: int, width: int, period: int,
                 n_past: int, n_future: int, label_width: int, n_labels: int):
        super().__init__()
        self.variant = variant
        self.n_past = n_past
        self.n_future = n_future
        self.label_width = label_width
        self.word_width = word_width
        self.recurrent = variant == "i+e-rnn"
        spec = cells.TABLE[cell]
        # without a hidden-to-hidden recurrence, W_h would multiply a zero state:
        # leave it out where the cell allows (the GRU and the SRN keep theirs unused)
        gates = "input" if not self.recurrent and spec.input_gates else "recurrent"
        n_ctx = n_past + n_future
        label_inputs = 0 if variant == "jordan" else n_ctx * label_width
        self.cell = Recurrence(cell=cell, input_width=word_width + label_inputs,
                               hidden_width=width, period=period, gates=gates)
        self.labels = self._make_labels(n_labels)

    @property
    def boundary(self) -> int:
        """The id of the label read before the first (after the last) token."""
        return self.labels.shape[-2] - 1

    def _make_labels(self, n_labels: int, **device_dtype) -> nn.Parameter:
        rows = n_labels + 1  # + the boundary label
        if self.variant == "jordan":
            # R: one table per context position, rows added to the gate pre-activations
            width = self.cell.spec.n_gates * self.cell.hidden_width
            table = torch.empty(self.n_past + self.n_future, rows, width, **device_dtype)
            bound = 1.0 / self.cell.hidden_width ** 0.5
            nn.init.uniform_(table, -bound, bound)
        else:
            table = torch.empty(rows, self.label_width, **device_dtype)
            nn.init.normal_(table)
        return nn.Parameter(table)

    def resize_labels(self, n_labels: int) -> None:
        if self.labels.shape[-2] != n_labels + 1:
            like = self.labels
            self.labels = self._make_labels(n_labels, device=like.device, dtype=like.dtype)

    def _label_input(self, context: Tensor) -> Tensor:
        """context: (k, n_ctx) label ids -> their share of the gate
        pre-activations, (k, n_gates * width)."""
        if self.variant == "jordan":
            positions = torch.arange(context.shape[1], device=context.device)
            return self.labels[positions, context].sum(1)
        embedded = self.labels[context].reshape(context.shape[0], -1)
        return embedded @ self.cell.weight_x[:, self.word_width:].t()

    def decode(self, words: Tensor, packing: Packing, head: nn.Linear, dropout: nn.Module,
               fed: Tensor, future: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
        """Greedy decoding over the packed steps. words: (n_tokens, word_width);
        fed: (n_tokens,) the label to feed from each position, -1 for the
        prediction; future: (n_tokens, n_future) label ids or None. Returns log p
        (n_tokens, n_labels) and the predictions (n_tokens,), packed."""
        rec = self.cell
        proj = words @ rec.weight_x[:, :self.word_width].t() + rec.bias
        n = rec.hidden_width
        batch = packing.sizes[0] if packing.sizes else 0
        history = torch.full((batch, self.n_past), self.boundary, dtype=torch.int64,
                             device=words.device)
        h = words.new_zeros(batch, n)
        c = words.new_zeros(batch, n) if rec.spec.cell_state else None
        log_probs, predictions = [], []
        for t, (start, k) in enumerate(zip(packing.offsets, packing.sizes)):
            rows = slice(start, start + k)
            context = history[:k] if future is None else torch.cat([history[:k], future[rows]], 1)
            a = proj[rows] + self._label_input(context)
            if self.recurrent:
                h0, c0 = h[:k], None if c is None else c[:k]
            else:
                h0, c0 = words.new_zeros(k, n), None if c is None else words.new_zeros(k, n)
            scale = None if rec.scale is None else rec.scale[t % rec.period]
            h, c = cells.step(rec.spec, a, h0, c0, weight_h=rec.weight_h, scale=scale,
                              state_bias=rec.state_bias, bias_hn=rec.bias_hn)
            log_p = torch.log_softmax(head(dropout(h)), dim=-1)
            prediction = log_p.argmax(-1)
            label = torch.where(fed[rows] >= 0, fed[rows], prediction)
            history = torch.cat([label.unsqueeze(1), history[:k, :-1]], dim=1)
            log_probs.append(log_p)
            predictions.append(prediction)
        return torch.cat(log_probs), torch.cat(predictions)


def _window(x: Tensor, packing: Packing, w: int) -> Tensor:
    """I_t = [x_(t-w) ... x_(t+w)] per packed row, zero beyond the sequence's edges."""
    if w == 0:
        return x
    seq_len = packing.seq_len
    padded = nn.functional.pad(packing.to_padded(x, seq_len), (0, 0, w, w))
    shifted = [padded[:, i:i + seq_len] for i in range(2 * w + 1)]
    return packing.from_padded(torch.cat(shifted, dim=-1))


def _following(labels: Tensor, packing: Packing, c: int, boundary: int) -> Tensor:
    """For each packed row, the labels of the c following tokens of its sequence,
    (n_tokens, c); ``boundary`` beyond the sequence's end."""
    seq_len = packing.seq_len
    # shift by one so that padding (0) is told apart from label 0
    padded = packing.to_padded((labels + 1).unsqueeze(1), seq_len + c)
    following = torch.cat([padded[:, i:i + seq_len] for i in range(1, c + 1)], dim=-1)
    ids = packing.from_padded(following) - 1
    return torch.where(ids >= 0, ids, torch.full_like(ids, boundary))
