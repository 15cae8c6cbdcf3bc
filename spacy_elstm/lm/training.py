"""Training and evaluating word-level language models (``spacy-elstm lm``).

The standard setup of the literature (Zaremba et al. 2014): the training text
is one continuous stream cut into ``batch_size`` rows; each update reads the
next ``bptt`` words of every row, starting from the state the previous segment
ended in (detached, so back-propagation is truncated at the segment's start);
the loss is the cross-entropy summed over the segment's steps and averaged over
the rows (the scale their learning rates and clipping bound are given for);
SGD with the learning rate multiplied by ``decay`` after each epoch past
``decay_after``, or Adam or AdaGrad at a constant rate; the gradient's global norm clipped at ``grad_clip``.
Perplexity is exp of the mean cross-entropy per word over a whole file, every
word (``<eos>`` included) counted once, the state carried through the file.

A run writes into its output folder: ``checkpoint.pt`` (everything needed to go
on, written every ``checkpoint_every`` updates and at each epoch's end, each
time to a new file renamed over the old, so an interruption loses at most that
many updates; ``--resume`` continues from it exactly where it stopped),
``model-best.pt`` (the model with the best validation perplexity so far, with
its settings and vocabulary), and ``metrics.json`` (settings, one row per
epoch, and at the end the test perplexity of the best model).
"""
import dataclasses
import io
import json
import math
import pickle
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Sequence

import torch
from torch import Tensor
from torch.nn import functional as F

from ..pytorch.language_model import LanguageModel
from ..benchmarks.timing import cpu_model
from ..files import write_atomically
from .data import Vocab, batchify, segments

OPTIMIZERS = ("sgd", "adam", "adagrad")
SPLITS = ("train", "valid", "test")  # the [paths] of a config


@dataclass(frozen=True)
class ModelSettings:
    cell: str = "lstm"
    width: int = 200
    depth: int = 2
    period: int = 1
    gates: str = "recurrent"
    dropout: float = 0.0
    tie_weights: bool = False
    init_range: float = 0.1
    # each layer also reads the segment backwards: NOT a next-word model, it
    # reads the word it predicts; only for showing that leak (README)
    bidirectional: bool = False


@dataclass(frozen=True)
class TrainingSettings:
    seed: int = 0
    batch_size: int = 20
    bptt: int = 20
    epochs: int = 13
    optimizer: str = "sgd"
    learn_rate: float = 1.0
    decay: float = 0.5
    decay_after: int = 4
    grad_clip: float = 5.0
    eval_batch_size: int = 10
    checkpoint_every: int = 500
    max_updates: int = 0  # 0: no cap besides the epochs


@dataclass(frozen=True)
class Settings:
    train: str
    valid: str
    test: str
    model: ModelSettings = ModelSettings()
    training: TrainingSettings = TrainingSettings()

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Settings":
        """From a config's [paths], [model] and [training] sections; unknown
        sections or keys are errors naming the allowed ones."""
        allowed = {"paths", "model", "training"}
        if set(config) - allowed:
            raise ValueError(f"Unknown config section(s) {sorted(set(config) - allowed)}: "
                             f"allowed are {sorted(allowed)}.")
        paths = dict(config.get("paths", {}))
        missing = [k for k in SPLITS if not paths.get(k)]
        if missing:
            raise ValueError(f"[paths] needs {', '.join(missing)} (the text files).")
        if set(paths) - set(SPLITS):
            raise ValueError(f"Unknown [paths] key(s) {sorted(set(paths) - set(SPLITS))}: "
                             f"allowed are {', '.join(SPLITS)}.")
        model = _section(ModelSettings, config.get("model", {}), "model")
        training = _section(TrainingSettings, config.get("training", {}), "training")
        if training.optimizer not in OPTIMIZERS:
            raise ValueError(f"Unknown optimizer {training.optimizer!r}: choose one of "
                             f"{', '.join(map(repr, OPTIMIZERS))}.")
        for name in ("batch_size", "bptt", "epochs", "eval_batch_size", "checkpoint_every"):
            if getattr(training, name) < 1:
                raise ValueError(f"[training] {name} must be >= 1, got {getattr(training, name)}.")
        return cls(str(paths["train"]), str(paths["valid"]), str(paths["test"]), model, training)

    def to_dict(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Settings":
        return cls(data["train"], data["valid"], data["test"], ModelSettings(**data["model"]),
                   TrainingSettings(**data["training"]))


def _section(kind, values: Dict[str, Any], name: str):
    fields = {f.name: f for f in dataclasses.fields(kind)}
    unknown = set(values) - set(fields)
    if unknown:
        raise ValueError(f"Unknown [{name}] key(s) {sorted(unknown)}: allowed are "
                         f"{', '.join(fields)}.")
    out = {}
    for key, value in values.items():
        want = type(fields[key].default)
        if want is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            raise ValueError(f"[{name}] {key} must be {want.__name__}, got {value!r}.")
        out[key] = value
    return kind(**out)


def build_model(settings: ModelSettings, vocab_size: int) -> LanguageModel:
    return LanguageModel(vocab_size=vocab_size, cell=settings.cell, width=settings.width,
                         depth=settings.depth, period=settings.period, gates=settings.gates,
                         dropout=settings.dropout, tie_weights=settings.tie_weights,
                         init_range=settings.init_range, bidirectional=settings.bidirectional)


def detach(state):
    return [(h.detach(), None if c is None else c.detach()) for h, c in state]


def segment_loss(model: LanguageModel, inputs: Tensor, targets: Tensor, state, start: int):
    """Summed cross-entropy of a segment, and the state it ends in."""
    logits, state = model(inputs, state, start)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                           reduction="sum")
    return loss, state


@torch.no_grad()
def perplexity(model: LanguageModel, stream: Tensor, batch_size: int, bptt: int) -> float:
    """exp(mean cross-entropy per word) over the whole stream, the state carried."""
    was_training = model.training
    model.eval()
    data = batchify(stream, batch_size).to(model.decoder.weight.device)
    total, count, state = 0.0, 0, None
    for start, inputs, targets in segments(data, bptt):
        loss, state = segment_loss(model, inputs, targets, None if model.bidirectional else state,
                                   start)
        total += float(loss)
        count += targets.numel()
    model.train(was_training)
    return math.exp(total / count)


def learn_rate(training: TrainingSettings, epoch: int) -> float:
    """The rate of ``epoch`` (1-based): constant up to decay_after, then decayed
    once per epoch (SGD); constant for Adam and AdaGrad, which adapt their own."""
    if training.optimizer != "sgd":
        return training.learn_rate
    return training.learn_rate * training.decay ** max(0, epoch - training.decay_after)


def _save(obj: Dict[str, Any], path: Path) -> None:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    write_atomically(path, buffer.getvalue())


def load_checkpoint(path: Path, device: str, keys: Sequence[str]) -> Dict[str, Any]:
    """What ``_save`` wrote to ``path``; a ValueError naming the file if it is
    missing, cut short (an interrupted copy), or not such a checkpoint."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such checkpoint.")
    try:
        saved = torch.load(path, map_location=device, weights_only=False)
    except (RuntimeError, OSError, EOFError, pickle.UnpicklingError, zipfile.BadZipFile) as err:
        reason = str(err).split(".")[0].strip() or type(err).__name__
        raise ValueError(f"{path}: cannot read this checkpoint ({reason}); the file is "
                         f"truncated or corrupt (an interrupted copy or write?).") from None
    missing = [key for key in keys if not isinstance(saved, dict) or key not in saved]
    if missing:
        raise ValueError(f"{path}: not a spacy-elstm language-model checkpoint (no "
                         f"{', '.join(map(repr, missing))}).")
    return saved


def _progress(total: int, desc: str, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="seg", disable=not enabled, leave=False,
                mininterval=0.5 if sys.stderr.isatty() else 30.0, file=sys.stderr)


def train(settings: Settings, output_dir: Path, *, resume: bool = False,
          device: str = "cpu", progress: bool = True,
          log: Callable[[str], None] = print) -> Dict[str, Any]:
    """Train (or, with ``resume``, go on training) and evaluate; returns the
    metrics also written to ``output_dir/metrics.json``."""
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    checkpoint_path = output_dir / "checkpoint.pt"
    if checkpoint_path.exists() and not resume:
        raise ValueError(f"{output_dir} holds a run already ({checkpoint_path.name}): pass "
                         f"--resume to go on with it, or choose another folder.")
    if resume and not checkpoint_path.exists():
        raise ValueError(f"Nothing to resume: {checkpoint_path} does not exist.")
    tr = settings.training
    vocab = Vocab.from_file(Path(settings.train))
    streams = {name: vocab.encode_file(Path(getattr(settings, name))) for name in SPLITS}
    torch.manual_seed(tr.seed)
    model = build_model(settings.model, len(vocab)).to(device)
    make_optimizer = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam,
                      "adagrad": torch.optim.Adagrad}[tr.optimizer]
    optimizer = make_optimizer(model.parameters(), lr=tr.learn_rate)
    data = batchify(streams["train"], tr.batch_size).to(device)
    n_segments = math.ceil((data.shape[1] - 1) / tr.bptt)
    run: Dict[str, Any] = {"epoch": 1, "start": 0, "updates": 0, "history": [],
                           "loss": 0.0, "words": 0, "seconds": 0.0, "best": None}
    state = None
    if resume:
        saved = load_checkpoint(checkpoint_path, device,
                                ("settings", "model", "optimizer", "rng", "run", "state"))
        if saved["settings"] != settings.to_dict():
            raise ValueError(f"{checkpoint_path} was written with other settings; resume it "
                             f"with the config it started from.")
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        torch.set_rng_state(saved["rng"])
        run, state = saved["run"], saved["state"]
        log(f"Resuming at epoch {run['epoch']}, word {run['start']} of each row "
            f"({run['updates']} updates done).")
    log(f"{settings.model.cell}, {settings.model.depth} x {settings.model.width}, vocabulary "
        f"{len(vocab):,}, {streams['train'].numel():,} training words, "
        f"{n_segments} segments per epoch, {sum(p.numel() for p in model.parameters()):,} "
        f"parameters, on {device}.")

    def checkpoint():
        _save({"settings": settings.to_dict(), "model": model.state_dict(),
               "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state(), "run": run,
               "state": state}, checkpoint_path)

    stopped = False
    while run["epoch"] <= tr.epochs and not stopped:
        epoch = run["epoch"]
        for group in optimizer.param_groups:
            group["lr"] = learn_rate(tr, epoch)
        model.train()
        bar = _progress(n_segments, f"epoch {epoch}", progress)
        bar.update(math.ceil(run["start"] / tr.bptt))
        began = time.perf_counter() - run["seconds"]
        for start, inputs, targets in segments(data, tr.bptt):
            if start < run["start"]:
                continue
            state = None if state is None or model.bidirectional else detach(state)
            loss, state = segment_loss(model, inputs, targets, state, start)
            optimizer.zero_grad()
            (loss / tr.batch_size).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), tr.grad_clip)
            optimizer.step()
            run["loss"] += float(loss.detach())
            run["words"] += targets.numel()
            run["updates"] += 1
            run["start"] = start + inputs.shape[1]
            run["seconds"] = time.perf_counter() - began
            bar.update(1)
            bar.set_postfix(ppl=f"{math.exp(run['loss'] / run['words']):.1f}", refresh=False)
            if tr.max_updates and run["updates"] >= tr.max_updates:
                stopped = True
                break
            if run["updates"] % tr.checkpoint_every == 0:
                state = detach(state) if state else state
                checkpoint()
        bar.close()
        if stopped and run["start"] < data.shape[1] - 1:
            log(f"Stopped after {run['updates']} updates (max_updates), inside epoch {epoch}.")
        valid = perplexity(model, streams["valid"], tr.eval_batch_size, tr.bptt)
        row = {"epoch": epoch, "learn_rate": learn_rate(tr, epoch),
               "train_ppl": math.exp(run["loss"] / max(run["words"], 1)), "valid_ppl": valid,
               "seconds": run["seconds"], "words": run["words"],
               "words_per_second": run["words"] / max(run["seconds"], 1e-9),
               "complete": not stopped}
        run["history"].append(row)
        log(f"epoch {epoch}: lr {row['learn_rate']:.4g}, train ppl {row['train_ppl']:.2f}, "
            f"valid ppl {valid:.2f}, {row['seconds']:.0f} s, {row['words_per_second']:.0f} words/s")
        if run["best"] is None or valid < run["best"]:
            run["best"] = valid
            _save({"settings": settings.to_dict(), "vocab": vocab.words,
                   "model": model.state_dict(), "epoch": epoch}, output_dir / "model-best.pt")
        run.update(epoch=epoch + 1, start=0, loss=0.0, words=0, seconds=0.0)
        state = None
        checkpoint()
    best = load_model(output_dir / "model-best.pt", device)
    test = perplexity(best, streams["test"], tr.eval_batch_size, tr.bptt)
    best_row = min(run["history"], key=lambda r: r["valid_ppl"])
    metrics = {"settings": settings.to_dict(), "vocab_size": len(vocab),
               "parameters": sum(p.numel() for p in model.parameters()),
               "history": run["history"], "best_epoch": best_row["epoch"],
               "valid_ppl": best_row["valid_ppl"], "test_ppl": test,
               "train_seconds": sum(r["seconds"] for r in run["history"]),
               "device": device, "torch": torch.__version__, "threads": torch.get_num_threads(),
               "machine": (torch.cuda.get_device_name(torch.device(device))
                           if device.startswith("cuda") else cpu_model())}
    write_atomically(output_dir / "metrics.json", (json.dumps(metrics, indent=2) + "\n").encode())
    log(f"best epoch {best_row['epoch']}: valid ppl {best_row['valid_ppl']:.2f}, "
        f"test ppl {test:.2f}")
    return metrics


def load_model(path: Path, device: str = "cpu") -> LanguageModel:
    saved = load_checkpoint(path, device, ("settings", "model", "vocab"))
    settings = Settings.from_dict(saved["settings"])
    model = build_model(settings.model, len(saved["vocab"])).to(device)
    model.load_state_dict(saved["model"])
    model.vocab = Vocab(saved["vocab"])
    return model


def evaluate(model_path: Path, text: Path, *, batch_size: int = 10, bptt: int = 20,
             device: str = "cpu") -> float:
    """The perplexity of a saved model on a text file."""
    model = load_model(model_path, device)
    return perplexity(model, model.vocab.encode_file(text), batch_size, bptt)
