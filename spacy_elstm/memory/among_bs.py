"""The "A among Bs" experiment of the ELSTM paper (Sec. 3.1, Table 2).

For a length T the training set holds T + 1 sequences over the symbols A and B:
T positives, the i-th with its single A at position i (i = 1..T) and Bs
elsewhere, and one negative of T Bs. One recurrent layer of one unit (by
default: Table 2's "one RNN cell" read as one unit; ``hidden_width`` sets it) reads the
sequence through a trainable embedding of size 2; its output at step T goes
through a trainable affine map to the logit of "an A is present". The paper
gives the layer, embedding, cell count and batch size (Table 2) and says that
both cells trained for equal numbers of epochs until the training loss stopped
changing; it names no loss, optimiser or initialisation, so here they are
binary cross-entropy (mean over the batch), an optimiser of ``OPTIMIZERS``
(Adam by default) and the package's own initialisation (forget bias +1,
scaling factors 1). The ELSTMs get one scaling factor per position (period
Ts = T).

The paper raises T "by 1 at a time". ``step`` = k trains every T from the
first length to the last by k (besides the listed ones); ``warm_start`` starts
each T's model (per cell and seed) from the previous T's trained one
(``grow``), instead of from a fresh initialisation.

A run stops when the loss over the whole training set (computed after each
epoch) falls below ``stop_loss`` (by default ``solved_loss``; a lower one
trains a solved model on, to a margin that a warm start to the next T keeps),
when its best value has not
improved by a relative ``min_improvement`` for ``patience`` updates (plateau),
or once it has made ``max_updates`` updates. Budgets count updates, not epochs:
an epoch holds ceil((T + 1) / 5) updates, so an epoch budget would give T = 10
a tenth of the updates of T = 100. A model that says "A" whatever it reads has the loss
H(1 / (T + 1)) (``constant_loss``): the plateau a cell that forgets the A
reaches.
"""
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from ..pytorch.cells import check_cell
from ..pytorch.packing import Packing
from ..pytorch.recurrence import Recurrence
from .response import RESPONSE_CELLS, analyse

A, B = 0, 1
DEFAULT_CELLS = ("lstm", "gru", "elstm", "elstm2")
DEFAULT_LENGTHS = (10, 20, 40, 60, 80, 100)
# the optimisers a sweep may use; "sgd" is SGD with momentum 0.9
OPTIMIZERS = ("adam", "rmsprop", "sgd")
# the samples of the paper's Fig. 5: (T, position of the A, 1-based)
FIGURE_SAMPLES = ((10, 9), (60, 30))


@dataclass
class Settings:
    """What a sweep runs; see the module docstring for the stopping rule."""

    cells: Tuple[str, ...] = DEFAULT_CELLS
    lengths: Tuple[int, ...] = DEFAULT_LENGTHS
    seeds: int = 3
    max_updates: int = 3000
    patience: int = 1500
    min_improvement: float = 0.01
    solved_loss: float = 0.01
    stop_loss: Optional[float] = None
    learn_rate: float = 0.05
    optimizer: str = "adam"
    warm_start: bool = False
    step: int = 0
    batch_size: int = 5
    embedding_width: int = 2
    hidden_width: int = 1
    loss_every: int = 1
    samples: Tuple[Tuple[int, int], ...] = field(default=FIGURE_SAMPLES)

    def check(self) -> "Settings":
        for cell in self.cells:
            check_cell(cell)
        for name in ("seeds", "max_updates", "patience", "batch_size", "embedding_width",
                     "hidden_width", "loss_every"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}.")
        if not self.cells or not self.lengths:
            raise ValueError("Give at least one cell and one length T.")
        for length in self.lengths:
            if not isinstance(length, int) or length < 2:
                raise ValueError(f"Every length T must be an integer >= 2, got {length!r}.")
        for length, position in self.samples:
            if not 1 <= position <= length:
                raise ValueError(f"A sample's A must lie in 1..T: got position {position} "
                                 f"for T = {length}.")
        if not self.learn_rate > 0 or not self.solved_loss > 0:
            raise ValueError("learn_rate and solved_loss must be > 0.")
        if self.stop_loss is not None and not 0 < self.stop_loss <= self.solved_loss:
            raise ValueError(f"stop_loss must lie in (0, solved_loss = {self.solved_loss:g}], "
                             f"got {self.stop_loss!r}.")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"Unknown optimizer {self.optimizer!r}: choose one of "
                             f"{', '.join(map(repr, OPTIMIZERS))}.")
        if isinstance(self.step, bool) or not isinstance(self.step, int) or self.step < 0:
            raise ValueError(f"step must be an integer >= 0 (0: only the listed lengths), "
                             f"got {self.step!r}.")
        if (self.warm_start or self.step) and list(self.lengths) != sorted(set(self.lengths)):
            raise ValueError(f"With warm_start or step the lengths must rise, got "
                             f"{', '.join(map(str, self.lengths))}.")
        return self

    def trained_lengths(self) -> Tuple[int, ...]:
        """Every T a sweep trains, in order: the listed lengths, and with
        ``step`` = k every k-th T from the first to the last."""
        if not self.step:
            return tuple(self.lengths)
        raised = range(self.lengths[0], self.lengths[-1] + 1, self.step)
        return tuple(sorted(set(raised) | set(self.lengths)))


def make_optimizer(name: str, parameters, learn_rate: float) -> torch.optim.Optimizer:
    """The optimiser ``name`` of ``OPTIMIZERS`` at ``learn_rate``."""
    if name == "adam":
        return torch.optim.Adam(parameters, lr=learn_rate)
    if name == "rmsprop":
        return torch.optim.RMSprop(parameters, lr=learn_rate)
    if name == "sgd":
        return torch.optim.SGD(parameters, lr=learn_rate, momentum=0.9)
    raise ValueError(f"Unknown optimizer {name!r}: choose one of "
                     f"{', '.join(map(repr, OPTIMIZERS))}.")


def dataset(length: int) -> Tuple[Tensor, Tensor]:
    """The training set for T = ``length``: tokens (T + 1, T) of A = 0 and B = 1,
    row i < T with its one A at position i + 1, the last row all Bs; and labels
    (T + 1,), 1.0 for the positives and 0.0 for the negative."""
    tokens = torch.full((length + 1, length), B, dtype=torch.long)
    tokens[torch.arange(length), torch.arange(length)] = A
    labels = torch.ones(length + 1)
    labels[-1] = 0.0
    return tokens, labels


def constant_loss(length: int) -> float:
    """The cross-entropy of the best constant guess, H(1 / (T + 1))."""
    p = 1.0 / (length + 1)
    return -(p * math.log(p) + (1 - p) * math.log(1 - p))


class Detector(nn.Module):
    """Embedding -> one recurrent layer -> affine map of its last output to a logit."""

    def __init__(self, *, cell: str, length: int, embedding_width: int = 2, hidden_width: int = 1):
        super().__init__()
        self.length = length
        self.embed = nn.Embedding(2, embedding_width)
        self.rnn = Recurrence(cell=cell, input_width=embedding_width, hidden_width=hidden_width,
                              period=length)
        self.read = nn.Linear(hidden_width, 1)
        self._packings: Dict[Tuple[int, int], Packing] = {}

    def forward(self, tokens: Tensor) -> Tensor:
        """tokens: (batch, T) -> logits (batch,)."""
        batch, length = tokens.shape
        key = (batch, length)
        if key not in self._packings:  # every sequence is T long: the layout is time-major
            self._packings[key] = Packing(torch.full((batch,), length), torch.device("cpu"))
        x = self.embed(tokens.t()).reshape(length * batch, -1)
        h = self.rnn.run(x, self._packings[key]).reshape(length, batch, -1)[-1]
        return self.read(h).squeeze(1)


def grow(model: Detector, length: int) -> Detector:
    """A detector for sequences of ``length`` that starts where ``model``
    (trained on a shorter T) ended: the same weights, and for the ELSTMs the
    scaling factors of positions 1..T' kept and those of the new positions at
    their initial value 1."""
    if length < model.length:
        raise ValueError(f"A detector of T = {model.length} cannot grow to the shorter "
                         f"T = {length}.")
    old = model.rnn.period
    grown = Detector(cell=model.rnn.cell, length=length,
                     embedding_width=model.embed.embedding_dim,
                     hidden_width=model.rnn.hidden_width)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    if old:
        state["rnn.scale"] = torch.cat([state["rnn.scale"],
                                        torch.ones(length - old, model.rnn.hidden_width)])
    grown.load_state_dict(state)
    return grown


def _loss(model: Detector, tokens: Tensor, labels: Tensor) -> Tuple[float, float]:
    with torch.no_grad():
        logits = model(tokens)
        loss = float(F.binary_cross_entropy_with_logits(logits, labels))
        accuracy = float(((logits > 0).float() == labels).float().mean())
    return loss, accuracy


def train(cell: str, length: int, seed: int, settings: Settings,
          tick: Optional[Callable[[int], None]] = None,
          start: Optional[Detector] = None) -> Tuple[Detector, Dict]:
    """Train one detector, from a fresh initialisation or, given ``start``
    (a detector of the same cell trained on a shorter T), from where that one
    ended (``grow``); returns it and its record (losses every epoch,
    why it stopped, its final loss and accuracy on the training set). The
    per-epoch losses are kept every ``settings.loss_every`` epochs (epochs 1,
    1 + loss_every, ...), and the last epoch's always, in ``losses`` with their
    epoch numbers in ``loss_epochs``; the loss before the first update in
    ``initial_loss``. A run whose start is already below the stopping loss
    makes no update. A run is solved if its final loss is below ``solved_loss``."""
    torch.manual_seed(seed)
    if start is None:
        model = Detector(cell=cell, length=length, embedding_width=settings.embedding_width,
                         hidden_width=settings.hidden_width)
    else:
        model = grow(start, length)
    tokens, labels = dataset(length)
    optimizer = make_optimizer(settings.optimizer, model.parameters(), settings.learn_rate)
    order = torch.Generator().manual_seed(seed)
    losses: List[float] = []
    best, best_at, stop, updates = math.inf, 0, "max_updates", 0
    began = time.perf_counter()
    initial, _ = _loss(model, tokens, labels)
    stop_loss = settings.solved_loss if settings.stop_loss is None else settings.stop_loss
    if initial < stop_loss:  # a warm start that already solves this T
        stop = "solved"
    while updates < settings.max_updates and stop != "solved":
        before = updates
        for batch in torch.randperm(length + 1, generator=order).split(settings.batch_size):
            loss = F.binary_cross_entropy_with_logits(model(tokens[batch]), labels[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            updates += 1
        loss_value, _ = _loss(model, tokens, labels)
        losses.append(loss_value)
        if tick is not None:
            tick(updates - before)
        if loss_value < best * (1 - settings.min_improvement):
            best, best_at = loss_value, updates
        if not math.isfinite(loss_value):
            stop = "not_finite"
            break
        if loss_value < stop_loss:
            stop = "solved"
            break
        if updates - best_at >= settings.patience:
            stop = "plateau"
            break
    final, accuracy = _loss(model, tokens, labels)
    kept = list(range(1, len(losses) + 1, settings.loss_every))
    if kept and kept[-1] != len(losses):
        kept.append(len(losses))
    record = {"cell": cell, "T": length, "seed": seed,
              "start_T": None if start is None else start.length,
              "epochs": len(losses), "updates": updates, "stop": stop,
              "initial_loss": initial, "final_loss": final, "best_loss": min(losses + [initial]),
              "accuracy": accuracy, "solved": final < settings.solved_loss,
              "constant_loss": constant_loss(length),
              "seconds": round(time.perf_counter() - began, 2),
              "losses": [round(losses[e - 1], 6) for e in kept], "loss_epochs": kept}
    return model, record


def _rounded(value, digits: int = 6):
    """``value`` with every float in it rounded to ``digits`` significant digits."""
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    if isinstance(value, list):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v, digits) for k, v in value.items()}
    return value


def sample_response(model: Detector, length: int, position: int) -> Dict:
    """The memory response of a trained detector to the sample of length T
    with its A at ``position`` (1-based), and its probability of "A"; every
    float to 6 significant digits (the JSON of a sweep keeps them all)."""
    tokens = torch.full((1, length), B, dtype=torch.long)
    tokens[0, position - 1] = A
    with torch.no_grad():
        x = model.embed(tokens[0])
        probability = float(torch.sigmoid(model(tokens))[0])
    result = analyse(model.rnn, x)
    result.update({"T": length, "position": position, "probability": probability,
                   "read_weight": model.read.weight.detach().flatten().tolist()})
    return _rounded(result)


def sweep(settings: Settings, progress: Optional[Callable[[int], Callable[[], None]]] = None,
          models: Optional[Path] = None, on_run: Optional[Callable[[Dict], None]] = None
          ) -> Dict:
    """Every cell, trained length (``Settings.trained_lengths``) and seed of
    ``settings``, with ``warm_start`` each run starting from the same cell's
    and seed's model of the previous T; the memory responses of seed
    0's detectors to the figure samples whose T is in the sweep (for the cells
    of ``response.RESPONSE_CELLS``). ``progress``
    is given the total number of updates at most and returns a callable
    given the updates of each epoch trained (those a run leaves by stopping
    early are given when it stops). ``models``: a folder to save seed 0's
    detectors of the listed lengths in, as
    ``<cell>-T<T>.pt``, for `spacy-elstm memory response`. ``on_run``: given
    each run's record as it ends."""
    settings.check()
    lengths = settings.trained_lengths()
    total = len(settings.cells) * len(lengths) * settings.seeds * settings.max_updates
    tick = progress(total) if progress is not None else None
    runs, responses = [], []
    previous: Dict[Tuple[str, int], Detector] = {}
    for length in lengths:
        for cell in settings.cells:
            for seed in range(settings.seeds):
                start = previous.get((cell, seed)) if settings.warm_start else None
                model, record = train(cell, length, seed, settings, tick, start=start)
                if settings.warm_start:
                    previous[(cell, seed)] = model
                if tick is not None and record["updates"] < settings.max_updates:
                    tick(settings.max_updates - record["updates"])
                runs.append(record)
                if on_run is not None:
                    on_run(record)
                if seed == 0 and models is not None and length in settings.lengths:
                    models.mkdir(parents=True, exist_ok=True)
                    save_detector(model, models / f"{cell}-T{length}.pt", cell, length, settings)
                if seed == 0 and cell in RESPONSE_CELLS:  # no memory response for solstm
                    for sample_length, position in settings.samples:
                        if sample_length == length:
                            response = sample_response(model, length, position)
                            response["seed"] = seed
                            responses.append(response)
    return {"experiment": "among-bs", "settings": asdict(settings), "runs": runs,
            "summary": summarise(runs), "responses": responses,
            "torch": torch.__version__, "threads": torch.get_num_threads()}


def summarise(runs: Sequence[Dict]) -> List[Dict]:
    """Per cell and T: how many seeds solved it, and the final losses over seeds."""
    groups: Dict[Tuple[str, int], List[Dict]] = {}
    for run in runs:
        groups.setdefault((run["cell"], run["T"]), []).append(run)
    rows = []
    for (cell, length), found in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        losses = [r["final_loss"] for r in found]
        mean = sum(losses) / len(losses)
        sd = (sum((v - mean) ** 2 for v in losses) / (len(losses) - 1)) ** 0.5 if len(losses) > 1 else 0.0
        rows.append({"cell": cell, "T": length, "seeds": len(found),
                     "solved": sum(r["solved"] for r in found), "loss_mean": mean, "loss_sd": sd,
                     "loss_min": min(losses), "loss_max": max(losses),
                     "accuracy_mean": sum(r["accuracy"] for r in found) / len(found),
                     "epochs_mean": sum(r["epochs"] for r in found) / len(found),
                     "constant_loss": found[0]["constant_loss"]})
    return rows


def save_detector(model: Detector, path, cell: str, length: int, settings: Settings) -> None:
    """Write a trained detector, with what rebuilds it, for `memory response`."""
    torch.save({"cell": cell, "T": length, "embedding_width": settings.embedding_width,
                "hidden_width": settings.hidden_width, "state": model.state_dict()}, path)


def load_detector(path) -> Detector:
    """A detector written by ``save_detector``; a ValueError if the file is not one."""
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
        model = Detector(cell=saved["cell"], length=saved["T"],
                         embedding_width=saved["embedding_width"],
                         hidden_width=saved["hidden_width"])
        model.load_state_dict(saved["state"])
    except (OSError, RuntimeError, KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{path}: not a detector written by `spacy-elstm memory among-bs` "
                         f"({str(err).splitlines()[0] if str(err) else type(err).__name__}).")
    return model


def encode(text: str) -> Tensor:
    """A string of As and Bs (case and spaces ignored) as tokens (T,)."""
    letters = text.replace(" ", "").upper()
    bad = sorted(set(letters) - {"A", "B"})
    if not letters or bad:
        raise ValueError(f"an among-Bs model reads a string of A and B, got {text!r}"
                         + (f" (bad letters: {', '.join(bad)})" if bad else "") + ".")
    return torch.tensor([A if ch == "A" else B for ch in letters])


def solved_through(runs: Sequence[Dict], cell: str, seed: int) -> Optional[int]:
    """The largest T up to which ``cell``'s seed ``seed`` solved every T it
    trained (in increasing T); None if it did not solve the first."""
    through = None
    for run in sorted((r for r in runs if r["cell"] == cell and r["seed"] == seed),
                      key=lambda r: r["T"]):
        if not run["solved"]:
            break
        through = run["T"]
    return through
