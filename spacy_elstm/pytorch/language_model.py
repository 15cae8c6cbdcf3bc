"""A word-level language model on the recurrent cells: embedding, stacked
unidirectional recurrences, and a softmax over the vocabulary.

It reads a batch of text segments, (batch, steps) word ids, and predicts each
next word. The state each layer ends in is returned so that the next segment of
the same texts can start from it (truncated back-propagation through time over
a continuous stream: the caller detaches it between segments), and ``start``
says how many steps the texts have already run, so the ELSTM's scaling index
continues across segments. Dropout, where asked, is applied to the embeddings,
between layers and before the softmax (the non-recurrent connections, as in
Zaremba et al. 2014), never inside a recurrence.

``bidirectional=True`` builds the model that papers sometimes report as a
"bidirectional language model": each layer also runs backwards over the
segment, so the state that predicts word t + 1 has already read it. It exists
to show that leak (``tools.lm.leak``) and is not a next-word model; it carries
no state across segments.
"""
from typing import List, Optional, Tuple

import torch
from torch import Tensor, nn

from .cells import check_cell
from .encoder import Layer, half_width
from .mode import Dropout
from .packing import Packing
from .recurrence import Recurrence, State


class LanguageModel(nn.Module):
    def __init__(self, *, vocab_size: int, cell: str, width: int, depth: int = 2,
                 period: int = 1, gates: str = "recurrent", dropout: float = 0.0,
                 tie_weights: bool = False, init_range: Optional[float] = 0.1,
                 bidirectional: bool = False):
        super().__init__()
        check_cell(cell, gates, period)
        for name, value in (("vocab_size", vocab_size), ("width", width), ("depth", depth)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}.")
        if not 0 <= dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}.")
        if bidirectional:
            half_width(width)
        self.vocab_size, self.width, self.bidirectional = vocab_size, width, bidirectional
        self.embedding = nn.Embedding(vocab_size, width)
        if bidirectional:
            self.layers = nn.ModuleList(
                Layer(cell=cell, input_width=width, hidden_width=width // 2, period=period,
                      gates=gates, bidirectional=True) for _ in range(depth))
        else:
            self.layers = nn.ModuleList(
                Recurrence(cell=cell, input_width=width, hidden_width=width, period=period,
                           gates=gates) for _ in range(depth))
        self.dropout = Dropout(dropout)
        self.decoder = nn.Linear(width, vocab_size)
        if tie_weights:
            self.decoder.weight = self.embedding.weight
        if init_range is not None:
            self._init(init_range)
        self._packings = {}

    def _init(self, init_range: float) -> None:
        """Every weight and bias uniform in +-init_range, except the ELSTM's
        scaling factors (1) and state bias (0), which keep their own start."""
        keep = {"scale", "state_bias"}
        with torch.no_grad():
            for name, param in self.named_parameters():
                if name.rsplit(".", 1)[-1] not in keep:
                    param.uniform_(-init_range, init_range)

    def _packing(self, batch: int, steps: int, device: torch.device) -> Packing:
        key = (batch, steps, device)
        if key not in self._packings:
            self._packings = {key: Packing(torch.full((batch,), steps), device)}
        return self._packings[key]

    def forward(self, tokens: Tensor, state: Optional[List[State]] = None,
                start: int = 0) -> Tuple[Tensor, List[State]]:
        """tokens: (batch, steps) int64. state: one (h, c) per layer, or None
        for zeros. Returns the logits of the next word, (batch, steps,
        vocab_size), and the state each layer ends in."""
        if tokens.dim() != 2:
            raise ValueError(f"Expected word ids of shape (batch, steps), got {tuple(tokens.shape)}.")
        batch, steps = tokens.shape
        packing = self._packing(batch, steps, tokens.device)
        x = self.dropout(packing.from_padded(self.embedding(tokens)))
        states: List[State] = []
        for i, layer in enumerate(self.layers):
            if self.bidirectional:
                x = layer.run(x, packing)
            else:
                x, end = layer.run_state(x, packing, None if state is None else state[i], start)
                states.append(end)
            x = self.dropout(x)
        return self.decoder(packing.to_padded(x, steps)), states
