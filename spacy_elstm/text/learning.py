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


# The trained model keeps the running average of its weights over the updates:
# after update t the average moves towards the weights by 1 - d, d = min(
# AVERAGE_DECAY, (1 + t) / (10 + t)) (spaCy's own schedule, so that a short
# training is not held at its initial weights; about the last ninth of the updates
# count, 170 of the 1,500 on EWT train): from one epoch to the next the weights
# themselves move EWT dev's sentence F1 by up to 2 points, their average far less
# (`python -m lab.senter_average`)
AVERAGE_DECAY = 0.995


def fit(model: torch.nn.Module, data: List, batch_loss: Callable[[Sequence], torch.Tensor], *,
        epochs: int, batch_size: int, learn_rate: float, seed: int, label: str,
        after_epoch: Optional[Callable[[int, Dict[str, torch.Tensor]], None]] = None,
        ) -> Tuple[List[float], float]:
    """Train `model` on `data` (shuffled each epoch, `seed`) with Adam, the
    gradient's norm clipped at 1.0, a batch's loss given by `batch_loss`, and
    leave it with the running average of its weights (AVERAGE_DECAY); reports
    each epoch's mean loss on stderr as `label`. `after_epoch(epoch, average)`,
    if given, is called after each epoch with the model's own weights in it (for
    studies). Returns the losses and the seconds it took."""
    optimizer = torch.optim.Adam(model.parameters(), lr=learn_rate)
    rng = random.Random(seed)
    average = {name: value.detach().clone() for name, value in model.state_dict().items()}
    start, losses, updates = time.perf_counter(), [], 0
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
            update_average(average, model, updates)
            updates += 1
            total += float(loss.detach()) * len(batch)
        losses.append(round(total / len(data), 5))
        if after_epoch is not None:
            after_epoch(epoch + 1, average)
        print(f"{label}: epoch {epoch + 1}/{epochs}, loss {losses[-1]:.4f} "
              f"({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    model.load_state_dict(average)
    return losses, round(time.perf_counter() - start, 1)


@torch.no_grad()
def update_average(average: Dict[str, torch.Tensor], model: torch.nn.Module,
                   updates: int) -> None:
    """The running average of the model's weights after its update number
    `updates` (from 0); its other state, if any, copied."""
    decay = min(AVERAGE_DECAY, (1 + updates) / (10 + updates))
    for name, value in model.state_dict().items():
        if value.dtype.is_floating_point:
            average[name].lerp_(value, 1 - decay)
        else:
            average[name].copy_(value)


def weights_to_bytes(model: torch.nn.Module) -> bytes:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getvalue()


def load_weights(model: torch.nn.Module, data: bytes) -> torch.nn.Module:
    model.load_state_dict(torch.load(io.BytesIO(data), map_location="cpu", weights_only=True))
    return model
