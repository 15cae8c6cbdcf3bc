"""What the models a pipeline learns at initialisation share (the character
model of `segmenter.py`, the word model of `word_sentences.py`): their table of
what training showed often enough to keep, their training loop, and their
weights as bytes."""
import io
import random
import sys
import time
from collections import Counter
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import torch

from ..pytorch.mode import training_mode


def seen_twice(counts: Counter) -> Dict[str, int]:
    """Each item seen at least twice -> its id, from 2 in sorted order (0 is
    unused, 1 is every other item)."""
    return {item: i + 2 for i, item in enumerate(sorted(x for x, n in counts.items() if n >= 2))}


def fit(model: torch.nn.Module, data: List, batch_loss: Callable[[Sequence], torch.Tensor], *,
        epochs: int, batch_size: int, learn_rate: float, seed: int, label: str,
        after_update: Optional[Callable[[int, bool], None]] = None,
        ) -> Tuple[List[float], float]:
    """Train `model` on `data` (shuffled each epoch, `seed`) with Adam, the
    gradient's norm clipped at 1.0, a batch's loss given by `batch_loss`;
    reports each epoch's mean loss on stderr as `label`. `after_update(epoch,
    last)`, if given, is called after each update with its epoch (from 1) and
    whether it is the epoch's last (for studies: `lab.senter_average`). Returns
    the losses and the seconds it took."""
    optimizer = torch.optim.Adam(model.parameters(), lr=learn_rate)
    rng = random.Random(seed)
    start, losses = time.perf_counter(), []
    for epoch in range(epochs):
        rng.shuffle(data)
        total = 0.0
        for k in range(0, len(data), batch_size):
            batch = data[k:k + batch_size]
            with training_mode(True):
                loss = batch_loss(batch)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            total += float(loss.detach()) * len(batch)
            if after_update is not None:
                after_update(epoch + 1, k + batch_size >= len(data))
        losses.append(round(total / len(data), 5))
        print(f"{label}: epoch {epoch + 1}/{epochs}, loss {losses[-1]:.4f} "
              f"({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    return losses, round(time.perf_counter() - start, 1)


def weights_to_bytes(model: torch.nn.Module) -> bytes:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getvalue()


def load_weights(model: torch.nn.Module, data: bytes) -> torch.nn.Module:
    model.load_state_dict(torch.load(io.BytesIO(data), map_location="cpu", weights_only=True))
    return model
