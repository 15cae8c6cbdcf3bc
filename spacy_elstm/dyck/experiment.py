"""Next-symbol language models on m-bounded Dyck-2 (second-order LSTM paper,
Sec. 4): one model per m and cell, trained on the train split with the dev
split picking the epoch, scored on dev and test by perplexity, LDPA and WCPA.

The model is the paper's baseline (Sec. 3.1, 4.3): an embedding (30), one
recurrent layer of 3m units (``pytorch.Recurrence`` of any cell: the LSTM, the
ELSTM with one scaling vector per position, or the second-order LSTM of S
cells) and a linear layer with a softmax over the next symbol. Adam; the
learning rate halves after ``patience`` epochs without a better dev
perplexity, training stops after ``stop_after`` such epochs or at ``epochs``,
and the epoch with the best dev perplexity is the one scored. The
second-order cell's temperature starts at 1 and is multiplied by 0.9 after
each epoch (``anneal_every`` = the batches of an epoch).

A model at the paper's sizes trains for hours, so ``train_one`` can keep a
checkpoint after each epoch (the model, the optimizer, the shuffling stream,
the history and the best epoch so far) and continue from it: a run stopped
and resumed gives the numbers of a run never stopped. ``run`` skips the models
of earlier results of the same settings.
"""
import io
import json
import math
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import torch
from torch import Tensor, nn

from ..files import write_atomically
from ..pytorch.mode import training_mode
from ..pytorch.recurrence import Recurrence
from ..pytorch.second_order import SecondOrder
from . import metrics
from .data import CLOSE_IDS, VOCAB, DyckData, closing_distances, encode

CELLS = ("lstm", "elstm", "solstm")

@dataclass(frozen=True)
class Settings:
    """A whole study. The defaults run on one CPU thread in minutes: smaller
    splits, shorter strings, a larger learning rate and fewer epochs than the
    paper (``paper()`` gives its sizes)."""

    ms: Tuple[int, ...] = (4, 6, 8)
    cells: Tuple[str, ...] = CELLS
    seeds: Tuple[int, ...] = (0,)
    train: int = 1_000
    dev: int = 400
    test: int = 1_000
    min_length: int = 2
    max_length: int = 60
    p_open: float = 0.5
    embedding: int = 30
    hidden_per_m: int = 3
    solstm_cells: int = 2
    anneal: float = 0.9
    batch_size: int = 10
    learn_rate: float = 0.01
    epochs: int = 10
    patience: int = 3
    stop_after: int = 6
    clip: float = 5.0

    @classmethod
    def paper(cls, **changes: Any) -> "Settings":
        """The paper's sizes (Sec. 4.1, 4.3): 10,000 / 4,000 / 10,000 strings,
        Adam at 1e-4, batch 10, early stopping after 6 worse epochs, learning
        rate halved after 3; strings up to 200 brackets (the paper does not
        give its lengths) and at most 100 epochs."""
        return replace(cls(train=10_000, dev=4_000, test=10_000, max_length=200,
                           learn_rate=1e-4, epochs=100), **changes)

    def check(self) -> "Settings":
        for m in self.ms:
            self.data(m, 0).check()
        for cell in self.cells:
            if cell not in CELLS:
                raise ValueError(f"Unknown cell {cell!r}: choose from "
                                 f"{', '.join(map(repr, CELLS))}.")
        for name in ("embedding", "hidden_per_m", "batch_size", "epochs", "patience",
                     "stop_after", "solstm_cells"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}.")
        if self.test < 1 or self.train < 1:
            raise ValueError(f"the train and test sizes must be >= 1 (a model is trained on one "
                             f"and scored on the other), got {self.train} and {self.test}.")
        if not self.learn_rate > 0:
            raise ValueError(f"learn_rate must be > 0, got {self.learn_rate!r}.")
        SecondOrder(cells=self.solstm_cells, anneal=self.anneal).check()
        return self

    def to_json(self) -> Dict[str, Any]:
        """The settings as they read back from a results file (lists, not tuples)."""
        return json.loads(json.dumps(asdict(self)))

    def data(self, m: int, seed: int) -> DyckData:
        return DyckData(m=m, train=self.train, dev=self.dev, test=self.test,
                        min_length=self.min_length, max_length=self.max_length,
                        p_open=self.p_open, seed=seed)


class DyckLM(nn.Module):
    """Symbols (batch, steps) with their lengths -> next-symbol logits (batch, steps, vocab)."""

    def __init__(self, *, cell: str, hidden: int, embedding: int, period: int,
                 second_order: SecondOrder):
        super().__init__()
        self.embed = nn.Embedding(len(VOCAB), embedding)
        self.rnn = Recurrence(cell=cell, input_width=embedding, hidden_width=hidden,
                              period=period, second_order=second_order)
        self.out = nn.Linear(hidden, len(VOCAB))

    def forward(self, ids: Tensor, lengths: Tensor) -> Tensor:
        return self.out(self.rnn(self.embed(ids), lengths))


def batches(strings: Sequence[List[str]], size: int,
            order: Optional[Sequence[int]] = None) -> Iterator[Tuple[List[int], Tensor, Tensor,
                                                                     Tensor]]:
    """(indices, inputs, targets, lengths) of padded batches (padding: -100 in targets)."""
    order = range(len(strings)) if order is None else order
    order = list(order)
    for start in range(0, len(order), size):
        chunk = order[start:start + size]
        pairs = [encode(strings[i]) for i in chunk]
        steps = max(len(x) for x, _ in pairs)
        inputs = torch.zeros(len(chunk), steps, dtype=torch.int64)
        targets = torch.full((len(chunk), steps), -100, dtype=torch.int64)
        for row, (x, y) in enumerate(pairs):
            inputs[row, :len(x)] = torch.tensor(x)
            targets[row, :len(y)] = torch.tensor(y)
        yield chunk, inputs, targets, torch.tensor([len(x) for x, _ in pairs])


def evaluate(model: DyckLM, strings: Sequence[List[str]], batch_size: int = 50) -> Dict[str, Any]:
    """Perplexity (every symbol and </s> counted), LDPA by distance, WCPA."""
    nll, count, predictions = 0.0, 0, []
    with torch.no_grad(), training_mode(False):
        for chunk, inputs, targets, lengths in batches(strings, batch_size):
            log_p = torch.log_softmax(model(inputs, lengths), dim=-1)
            mask = targets >= 0
            nll -= float(log_p.gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)[mask].sum())
            count += int(mask.sum())
            p = log_p.exp()
            for row, i in enumerate(chunk):
                for t, distance in enumerate(closing_distances(strings[i])):
                    if distance:
                        true = int(targets[row, t])
                        other = CLOSE_IDS[1 - CLOSE_IDS.index(true)]
                        predictions.append((distance, float(p[row, t, true]),
                                            float(p[row, t, other])))
    by_distance = metrics.ldpa(predictions)
    return {"ppl": _number(math.exp(nll / count) if count else math.nan),
            "wcpa": _number(metrics.wcpa(by_distance)),
            "wcpa_10": _number(metrics.wcpa(by_distance, min_count=10)),
            "accuracy": _number(metrics.accuracy(by_distance)),
            "ldpa": {str(d): [round(a, 6), n] for d, (a, n) in by_distance.items()}}


def _number(value: float) -> Optional[float]:
    """JSON has no nan: None where there is nothing to score."""
    return None if math.isnan(value) else value


def train_one(settings: Settings, m: int, cell: str, seed: int,
              splits: Dict[str, List[List[str]]],
              tick: Callable[[str], None] = lambda desc: None,
              checkpoint: Optional[Path] = None) -> Dict[str, Any]:
    """Train and score one model; ``tick(description)`` after each batch.
    ``checkpoint``: a file to keep the training's state in after each epoch and
    to continue from if it is there (it must come from the same settings)."""
    torch.manual_seed(seed)
    n_batches = math.ceil(len(splits["train"]) / settings.batch_size)
    model = DyckLM(cell=cell, hidden=settings.hidden_per_m * m, embedding=settings.embedding,
                   period=settings.max_length + 1,  # one scaling vector per position
                   second_order=SecondOrder(cells=settings.solstm_cells,
                                            anneal=settings.anneal,
                                            anneal_every=max(n_batches, 1)))
    optimizer = torch.optim.Adam(model.parameters(), lr=settings.learn_rate)
    loss_fn = nn.CrossEntropyLoss(ignore_index=-100)
    shuffle = torch.Generator().manual_seed(seed)
    state: Dict[str, Any] = {"settings": settings.to_json(), "model_of": [m, cell, seed],
                             "epoch": 0, "history": [], "best": math.inf, "best_state": None,
                             "worse": 0, "stopped": False, "seconds": 0.0}
    if checkpoint is not None and checkpoint.is_file():
        state = _load_checkpoint(checkpoint, state)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        shuffle.set_state(state["shuffle"])
    history: List[Dict[str, Any]] = state["history"]
    started = time.perf_counter() - state["seconds"]
    for epoch in range(state["epoch"] + 1, settings.epochs + 1):
        if state["stopped"]:
            break
        order = torch.randperm(len(splits["train"]), generator=shuffle).tolist()
        temperature = model.rnn.mixer.temperature if cell == "solstm" else None
        total, tokens = 0.0, 0
        for _, inputs, targets, lengths in batches(splits["train"], settings.batch_size, order):
            with training_mode(True):
                logits = model(inputs, lengths)
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            if settings.clip:
                nn.utils.clip_grad_norm_(model.parameters(), settings.clip)
            optimizer.step()
            n = int((targets >= 0).sum())
            total, tokens = total + loss.item() * n, tokens + n
            tick(f"m={m} {cell} seed {seed} epoch {epoch}")
        dev_ppl = evaluate(model, splits["dev"])["ppl"] if splits["dev"] else math.nan
        row = {"epoch": epoch, "train_ppl": math.exp(total / max(tokens, 1)), "dev_ppl": dev_ppl,
               "learn_rate": optimizer.param_groups[0]["lr"]}
        if temperature is not None:
            row["temperature"] = temperature  # the one this epoch trained at
        history.append(row)
        if dev_ppl < state["best"]:
            state["best"], state["worse"] = dev_ppl, 0
            state["best_state"] = {k: v.clone() for k, v in model.state_dict().items()}
        else:
            state["worse"] += 1
            if state["worse"] % settings.patience == 0:
                for group in optimizer.param_groups:
                    group["lr"] *= 0.5
            state["stopped"] = state["worse"] >= settings.stop_after
        if checkpoint is not None:
            state.update(epoch=epoch, model=model.state_dict(),
                         optimizer=optimizer.state_dict(), shuffle=shuffle.get_state(),
                         seconds=time.perf_counter() - started)
            _save_checkpoint(checkpoint, state)
    seconds = time.perf_counter() - started
    if state["best_state"] is not None:
        model.load_state_dict(state["best_state"])
    best_epoch = min(history, key=lambda r: r["dev_ppl"])["epoch"] if history else 0
    result = {"m": m, "cell": cell, "seed": seed, "hidden": settings.hidden_per_m * m,
              "params": sum(p.numel() for p in model.parameters()), "epochs": len(history),
              "best_epoch": best_epoch, "train_seconds": round(seconds, 1), "history": history,
              "dev": evaluate(model, splits["dev"]) if splits["dev"] else None,
              "test": evaluate(model, splits["test"])}
    if cell == "solstm":
        result["temperature"] = model.rnn.mixer.temperature
    return result


def _save_checkpoint(path: Path, state: Dict[str, Any]) -> None:
    buffer = io.BytesIO()
    torch.save(state, buffer)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, buffer.getvalue())


def _load_checkpoint(path: Path, fresh: Dict[str, Any]) -> Dict[str, Any]:
    """The state in ``path``; a ValueError where it is not one of this model's
    under these settings (``fresh`` says which)."""
    try:
        state = torch.load(path, weights_only=True)
    except Exception as err:  # torch raises many kinds for a file that is not its own
        raise ValueError(f"{path}: not a Dyck-2 training checkpoint ({err}); remove it to "
                         f"train that model afresh.") from None
    if not isinstance(state, dict) or state.get("model_of") != fresh["model_of"]:
        raise ValueError(f"{path}: not a checkpoint of m={fresh['model_of'][0]} "
                         f"{fresh['model_of'][1]} seed {fresh['model_of'][2]}; remove it.")
    differ = differing(state.get("settings"), fresh["settings"])
    if differ:
        raise ValueError(f"{path}: a checkpoint of other settings (they differ in "
                         f"{', '.join(differ)}); remove it to train that model afresh.")
    return state


class OtherSettings(ValueError):
    """Earlier results handed to ``run`` were written under other settings; its
    message says which differ and reads after the results' file name."""


def differing(old: Any, new: Dict[str, Any]) -> List[str]:
    """The names of the settings (``Settings.to_json``) in which ``old`` differs from ``new``."""
    old = old if isinstance(old, dict) else {}
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))


def run(settings: Settings, *, progress: bool = True,
        done: Callable[[Dict[str, Any]], None] = lambda result: None,
        previous: Optional[Dict[str, Any]] = None,
        checkpoints: Optional[Path] = None) -> Dict[str, Any]:
    """Every (m, cell, seed) of ``settings``; ``done(partial results)`` after each
    model. ``previous``: results of these settings written before (``done``'s
    argument), whose models are kept rather than trained again. ``checkpoints``:
    a folder for each model's checkpoint while it trains (removed once it is in
    the results)."""
    from tqdm import tqdm

    settings.check()
    differ = [] if previous is None else differing(previous.get("settings"), settings.to_json())
    if differ:
        raise OtherSettings(f"holds the results of other settings (they differ in "
                            f"{', '.join(differ)})")
    kept = {(r["m"], r["cell"], r["seed"]): r for r in (previous or {}).get("runs", [])}
    out: Dict[str, Any] = {"settings": asdict(settings), "data": {}, "runs": [],
                           "threads": torch.get_num_threads()}
    per_epoch = math.ceil(settings.train / settings.batch_size)
    total = len(settings.ms) * len(settings.cells) * len(settings.seeds) * settings.epochs * per_epoch
    with tqdm(total=total, disable=not progress, unit="batch", leave=False) as bar:
        def tick(desc: str) -> None:
            bar.set_description(desc, refresh=False)
            bar.update(1)

        for m in settings.ms:
            for seed in settings.seeds:
                data = settings.data(m, seed)
                splits = data.splits()
                out["data"][f"m{m}-seed{seed}"] = {
                    **data.to_dict(), **{f"{k}_symbols": sum(map(len, v)) for k, v in splits.items()}}
                for cell in settings.cells:
                    before = bar.n
                    if (m, cell, seed) in kept:
                        out["runs"].append(kept[(m, cell, seed)])
                    else:
                        checkpoint = (None if checkpoints is None
                                      else checkpoints / f"m{m}-{cell}-seed{seed}.pt")
                        out["runs"].append(train_one(settings, m, cell, seed, splits, tick,
                                                     checkpoint))
                        done(out)
                        if checkpoint is not None:
                            checkpoint.unlink(missing_ok=True)
                    bar.update(settings.epochs * per_epoch - (bar.n - before))  # stopped early
    if checkpoints is not None and checkpoints.is_dir() and not any(checkpoints.iterdir()):
        checkpoints.rmdir()
    return out


def plot(results: Dict[str, Any], path) -> None:
    """LDPA (test) against closing distance, one panel per m, one line per cell
    (seed 0's model; distances with fewer than 10 closing brackets left out)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ms = sorted({r["m"] for r in results["runs"]})
    fig, axes = plt.subplots(1, len(ms), figsize=(4.5 * len(ms), 3.6), squeeze=False)
    for ax, m in zip(axes[0], ms):
        for name, (xs, ys) in ldpa_lines(results, m).items():
            ax.plot(xs, ys, marker=".", markersize=3, label=name)
        ax.set_title(f"{m}-bounded Dyck-2 (test)")
        ax.set_xlabel("closing distance")
        ax.set_ylabel("LDPA")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def ldpa_lines(results: Dict[str, Any], m: int, min_count: int = 10,
               split: str = "test") -> Dict[str, Tuple[List[int], List[float]]]:
    """{cell: (distances, LDPA)} of the first seed's models for ``m``."""
    lines = {}
    for r in results["runs"]:
        if r["m"] != m or r["cell"] in lines or not r.get(split):
            continue
        points = [(int(d), a) for d, (a, n) in r[split]["ldpa"].items() if n >= min_count]
        lines[r["cell"]] = ([d for d, _ in points], [a for _, a in points])
    return lines
