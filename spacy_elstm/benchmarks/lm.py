"""LM benchmark: training words/second of a word-level language model on each
cell (``pytorch.language_model``: the small PTB setting by default, 2 x 200,
20 rows, 20 steps, 10,000 words) against the same model on ``torch.nn.LSTM``,
timed in the same run, on the same random word ids."""
from typing import Any, Callable, Dict, List, Sequence

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from ..pytorch.language_model import LanguageModel
from .timing import interleaved_median_seconds

REFERENCE = "torch.nn.LSTM"
CELLS = ("lstm", "gru", "elstm", "elstm2", "srn")


class TorchLSTMLanguageModel(nn.Module):
    """The reference: embedding, ``nn.LSTM`` layers and the softmax layer."""

    def __init__(self, *, vocab_size: int, width: int, depth: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, width)
        self.lstm = nn.LSTM(width, width, depth, batch_first=True)
        self.decoder = nn.Linear(width, vocab_size)

    def forward(self, tokens: Tensor, state=None, start: int = 0):
        out, state = self.lstm(self.embedding(tokens), state)
        return self.decoder(out), state


def _detach(state):
    if state is None:
        return None
    if isinstance(state, tuple):  # nn.LSTM's (h, c)
        return tuple(s.detach() for s in state)
    return [(h.detach(), None if c is None else c.detach()) for h, c in state]


def _updates(model: nn.Module, tokens: Tensor, bptt: int, updates: int) -> Callable[[], None]:
    """``updates`` SGD updates over consecutive segments, the state carried."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def run() -> None:
        state = None
        for i in range(updates):
            start = i * bptt
            x, y = tokens[:, start : start + bptt], tokens[:, start + 1 : start + 1 + bptt]
            logits, state = model(x, _detach(state), start)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1),
                                   reduction="sum") / x.shape[0]
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()

    return run


def run_lm_benchmark(*, cells: Sequence[str] = CELLS, device: str = "cpu", repeats: int = 5,
                     updates: int = 10, vocab_size: int = 10_000, width: int = 200,
                     depth: int = 2, batch: int = 20, bptt: int = 20, period: int = 3,
                     progress: Callable[[str], None] = lambda _: None) -> List[Dict[str, Any]]:
    """One row per candidate: training words/s and the ratio to torch.nn.LSTM."""
    dev = torch.device(device)
    gen = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, vocab_size, (batch, updates * bptt + 1), generator=gen).to(dev)
    torch.manual_seed(0)
    models: Dict[str, nn.Module] = {
        REFERENCE: TorchLSTMLanguageModel(vocab_size=vocab_size, width=width, depth=depth)}
    for cell in cells:
        models[cell] = LanguageModel(vocab_size=vocab_size, cell=cell, width=width, depth=depth,
                                     period=period if cell in ("elstm", "elstm2") else 1)
    fns = {name: _updates(m.to(dev), tokens, bptt, updates) for name, m in models.items()}
    progress(f"{len(fns)} models, {updates} updates of {batch} x {bptt} words per pass, "
             f"{repeats} rounds")
    seconds = interleaved_median_seconds(fns, device=dev, repeats=repeats, warmup=1)
    words = updates * batch * bptt
    ref = words / seconds[REFERENCE]
    return [{"name": name, "device": device, "words_per_second": words / t,
             f"vs_{REFERENCE}": words / t / ref, "vocab_size": vocab_size, "width": width,
             "depth": depth, "batch": batch, "bptt": bptt, "updates": updates}
            for name, t in seconds.items()]
