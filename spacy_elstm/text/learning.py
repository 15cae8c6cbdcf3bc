"""What the models a pipeline learns at initialisation share (the character
model of `segmenter.py`, the word model of `word_sentences.py`): their table of
what training showed often enough to keep, their training loop, and their
weights as bytes."""
import copy
import io
import random
import sys
import time
from collections import Counter
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import torch

from ..pytorch.mode import training_mode
from .training_text import for_seed


SEED_STEP = 7919  # the seed of a model's k-th other (from 1) is its own + k * SEED_STEP


def seeds_of_others(seed: int, models: int) -> List[int]:
    """The seeds of the models trained beside the one of `seed`, where `models`
    learn from one training text and their probabilities are averaged."""
    return [seed + k * SEED_STEP for k in range(1, models)]


def check_models(models: object, setting: str, owner: str) -> int:
    """`models` where it is an integer >= 1, else an error naming `setting`."""
    if not isinstance(models, int) or isinstance(models, bool) or models < 1:
        raise ValueError(f"{owner}: {setting} must be an integer >= 1, got {models!r}.")
    return models


def seen_twice(counts: Counter) -> Dict[str, int]:
    """Each item seen at least twice -> its id, from 2 in sorted order (0 is
    unused, 1 is every other item)."""
    return {item: i + 2 for i, item in enumerate(sorted(x for x, n in counts.items() if n >= 2))}


# the sentences an epoch reads at most: a larger training text is passed over
# fewer times in all (`passes`), so that the models learn from a treebank of any
# size in about the time one of this many sentences takes (UD's largest have
# 60,000 and more; English-EWT 12,544 and the seven of docs/results/treebanks.md
# fewer, so none of them is cut)
MAX_EPOCH_SENTENCES = 20000


def epoch_repeats(sentences: int, min_epoch_sentences: int) -> float:
    """How many times an epoch passes over a training text of `sentences`
    sentences so that it sees about `min_epoch_sentences` (at least once): a
    small treebank's model then gets as many updates as a large one's. A text
    of more than MAX_EPOCH_SENTENCES is passed over that share of it, below one."""
    if not isinstance(min_epoch_sentences, int) or isinstance(min_epoch_sentences, bool) \
            or min_epoch_sentences < 0:
        raise ValueError("min_epoch_sentences must be an integer >= 0, "
                         f"got {min_epoch_sentences!r}.")
    if sentences > MAX_EPOCH_SENTENCES:
        return round(MAX_EPOCH_SENTENCES / sentences, 4)
    return max(1, round(min_epoch_sentences / max(sentences, 1)))


def passes(epochs: int, repeats: float) -> int:
    """The passes over the training text of `epochs` epochs of `repeats`
    passes each (`epoch_repeats`), at least one."""
    return max(1, round(epochs * repeats))


class Fitted(NamedTuple):
    """What `fit` did: each epoch's mean loss, and its score where it was
    asked to score; the epoch whose weights the model kept (from 1); seconds."""

    losses: List[float]
    scores: List[float]
    epoch: int
    seconds: float


def fit(model: torch.nn.Module, data: Union[List, Callable[[int], List]],
        batch_loss: Callable[[Sequence], torch.Tensor], *,
        epochs: int, batch_size: int, learn_rate: float, seed: int, label: str,
        after_update: Optional[Callable[[int, bool], None]] = None,
        score: Optional[Callable[[], float]] = None) -> Fitted:
    """Train `model` on `data` (a list, or each epoch's list from a function
    of the epoch, from 1; shuffled each epoch, `seed`) with Adam, the
    gradient's norm clipped at 1.0, a batch's loss given by `batch_loss`;
    reports each epoch's mean loss on stderr as `label`. With `score` (higher
    is better, called after each epoch), the model keeps the weights of the
    epoch that scored best, as UDPipe's tokenizer keeps its best on held-out
    text; else those of the last. `after_update(epoch, last)`, if given, is
    called after each update with its epoch (from 1) and whether it is the
    epoch's last (for studies: `lab.senter_average`)."""
    optimizer = torch.optim.Adam(model.parameters(), lr=learn_rate)
    rng = random.Random(seed)
    start, losses, scores = time.perf_counter(), [], []
    best: Optional[Tuple[float, int, Dict]] = None
    for epoch in range(1, epochs + 1):
        examples = data(epoch) if callable(data) else data
        rng.shuffle(examples)  # in place: the same list again is shuffled further
        total = 0.0
        for k in range(0, len(examples), batch_size):
            batch = examples[k:k + batch_size]
            with training_mode(True):
                loss = batch_loss(batch)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            total += float(loss.detach()) * len(batch)
            if after_update is not None:
                after_update(epoch, k + batch_size >= len(examples))
        losses.append(round(total / len(examples), 5))
        report = f"{label}: epoch {epoch}/{epochs}, loss {losses[-1]:.4f}"
        if score is not None:
            scores.append(round(float(score()), 4))
            report += f", held-out score {scores[-1]:.4f}"
            if best is None or scores[-1] > best[0]:
                best = (scores[-1], epoch, copy.deepcopy(model.state_dict()))
        print(f"{report} ({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    kept = epochs
    if best is not None:
        model.load_state_dict(best[2])
        kept = best[1]
    return Fitted(losses, scores, kept, round(time.perf_counter() - start, 1))


def fit_others(new_model: Callable[[], torch.nn.Module], references, data_of: Callable[[int], List],
               examples: Callable[[Sequence], List],
               loss_of: Callable[[torch.nn.Module], Callable[[Sequence], torch.Tensor]], *,
               seed: int, models: int, epochs: int, batch_size: int, learn_rate: float,
               label: str) -> Tuple[List[torch.nn.Module], List[Dict]]:
    """The models of the seeds after the first's (`seeds_of_others`), each new
    (`new_model`, after its seed is set) and trained as `fit` trained the first,
    on the training Docs laid out with its seed (`training_text.for_seed`:
    `references` as they are where they are not layouts, and then the first's
    examples, `data_of`); with what each learned (its last loss, its seconds)."""
    trained, learned = [], []
    for k, other_seed in enumerate(seeds_of_others(seed, models), start=2):
        torch.manual_seed(other_seed)
        model = new_model()
        theirs = for_seed(references, other_seed)
        their_data = data_of if theirs is references else epoch_examples(
            theirs if callable(theirs) else (lambda epoch: theirs), examples)[1]
        other = fit(model, their_data, loss_of(model), epochs=epochs, batch_size=batch_size,
                    learn_rate=learn_rate, seed=other_seed, label=f"{label} {k}/{models}")
        trained.append(model)
        learned.append({"loss": other.losses[-1], "seconds": other.seconds})
    return trained, learned


def epoch_examples(docs_of: Callable[[int], Sequence], examples: Callable[[Sequence], List],
                   ) -> Tuple[List, Callable[[int], List]]:
    """The first epoch's examples, and each epoch's as `fit` takes them: the
    same list again (reshuffled further) where an epoch's Docs are the first
    epoch's, else the examples of that epoch's Docs (`docs_of(epoch)`, from 1)."""
    first = docs_of(1)
    data = examples(first)

    def data_of(epoch: int) -> List:
        docs = docs_of(epoch)
        return data if docs is first else examples(docs)
    return data, data_of


def weights_to_bytes(model: torch.nn.Module) -> bytes:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getvalue()


def load_weights(model: torch.nn.Module, data: bytes) -> torch.nn.Module:
    model.load_state_dict(torch.load(io.BytesIO(data), map_location="cpu", weights_only=True))
    return model
