"""Layer benchmark: forward+backward tokens/second of every cell and gate mode
against torch.nn.LSTM and torch.nn.GRU of the same sizes, in the same run."""
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

from ..pytorch.cells import FIRST_ORDER, INPUT_GATED
from ..pytorch.recurrence import Recurrence
from .timing import cuda_peak_bytes, interleaved_median_seconds, peak_rss_increase

SHAPES: Tuple[Tuple[int, int, int], ...] = ((32, 25, 128), (64, 50, 256), (16, 200, 256))
# one very long sequence at a small and a mid width: where a per-step library
# call would cost more than the step (the kernel registry's cost rule)
LONG_SHAPES: Tuple[Tuple[int, int, int], ...] = ((1, 30_000, 32), (1, 50_000, 128))
# on a GPU the long case is a batch of long sequences at a large width (cuDNN's
# strength); a per-step loop of 50,000 launches would say little more
CUDA_LONG_SHAPES: Tuple[Tuple[int, int, int], ...] = ((8, 1000, 512),)
# the long shapes time only these (the reference loop of gru and srn would take minutes)
LONG_CANDIDATES = ("elstm/recurrent", "elstm/input", "lstm/recurrent")
LONG_REPEATS = 3
REFERENCES = ("torch.nn.LSTM", "torch.nn.GRU")


def candidates() -> List[str]:
    """Names like "elstm/recurrent", plus the torch references (the second-order
    cell is left out: its C++ loops are written for the papers' small widths,
    not these shapes)."""
    ours = [f"{c}/recurrent" for c in FIRST_ORDER] + [f"{c}/input" for c in INPUT_GATED]
    return list(REFERENCES) + ours


def kernel(name: str, batch: int, length: int, width: int, device: str = "cpu") -> Dict[str, str]:
    """Which kernel the registry picks for candidate ``name`` at this shape, and why."""
    if name in REFERENCES:
        return {"kernel": "torch.nn", "kernel_reason": "the reference itself"}
    cell, gates = name.split("/")
    rec = Recurrence(cell=cell, input_width=width, hidden_width=width, period=100, gates=gates)
    choice = rec.kernel_for(torch.full((batch,), length), device=torch.device(device))
    return {"kernel": choice.kernel, "kernel_reason": choice.reason,
            "products": choice.products}


def make_step(name: str, batch: int, length: int, width: int,
              device: str = "cpu") -> Callable[[], Any]:
    """A closure running one forward+backward pass of ``name`` on random data.
    One direction, input width = hidden width = ``width``, every sequence full length."""
    torch.manual_seed(0)
    dev = torch.device(device)
    x = torch.randn(batch, length, width, device=dev, requires_grad=True)
    if name in REFERENCES:
        module = getattr(torch.nn, name.rsplit(".", 1)[1])(width, width, batch_first=True).to(dev)

        def run():
            y, _ = module(x)
            y.sum().backward()
    else:
        cell, gates = name.split("/")
        module = Recurrence(cell=cell, input_width=width, hidden_width=width, period=100,
                            gates=gates).to(dev)
        lengths = torch.full((batch,), length, dtype=torch.int64)

        def run():
            module(x, lengths).sum().backward()
    return run


def run_layer_benchmark(*, device: str = "cpu", shapes: Sequence[Tuple[int, int, int]] = SHAPES,
                        long_shapes: Optional[Sequence[Tuple[int, int, int]]] = None,
                        names: Sequence[str] = (), repeats: int = 5,
                        memory: bool = True, progress: Callable[[str], None] = print
                        ) -> List[Dict[str, Any]]:
    """Returns one row per (shape, candidate) with tokens/s, ratios, peak memory
    and the kernel that ran. ``long_shapes`` time only ``LONG_CANDIDATES`` (of
    ``names``), in at most ``LONG_REPEATS`` rounds; by default ``LONG_SHAPES`` on
    the CPU and ``CUDA_LONG_SHAPES`` on a GPU."""
    if long_shapes is None:
        long_shapes = CUDA_LONG_SHAPES if device.startswith("cuda") else LONG_SHAPES
    names = list(names) or candidates()
    for ref in REFERENCES:  # ratios need the references in the same run
        if ref not in names:
            names.insert(0, ref)
    long_names = [n for n in names if n in REFERENCES or n in LONG_CANDIDATES]
    plan = [(shape, names, repeats) for shape in shapes]
    if len(long_names) > len(REFERENCES):
        plan += [(shape, long_names, min(repeats, LONG_REPEATS)) for shape in long_shapes]
    dev = torch.device(device)
    rows: List[Dict[str, Any]] = []
    for (batch, length, width), names, rounds in plan:
        progress(f"  {device} batch {batch}, length {length}, width {width}: "
                 f"{len(names)} candidates, timed in {rounds} interleaved rounds")
        steps = {name: make_step(name, batch, length, width, device) for name in names}
        seconds = interleaved_median_seconds(steps, device=dev, repeats=rounds)
        shape_rows = []
        for name in names:
            if not memory:
                mem = None
            elif dev.type == "cuda":
                mem = cuda_peak_bytes(steps[name], dev)
            else:
                progress(f"  {device} {name}: peak memory in a fresh process")
                mem = peak_rss_increase(make_step, name=name, batch=batch, length=length,
                                        width=width)
            shape_rows.append({"device": device, "batch": batch, "length": length,
                               "width": width, "name": name, "seconds": seconds[name],
                               "tokens_per_second": batch * length / seconds[name],
                               "repeats": rounds, "peak_memory_bytes": mem,
                               **kernel(name, batch, length, width, device)})
        del steps
        by_name = {r["name"]: r for r in shape_rows}
        for row in shape_rows:
            for ref in REFERENCES:
                key = "vs_" + ref.rsplit(".", 1)[1]
                row[key] = by_name[ref]["seconds"] / row["seconds"]
        rows.extend(shape_rows)
    return rows
