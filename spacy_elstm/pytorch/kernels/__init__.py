"""Every implementation of the recurrence, and the one place that picks among them.

A kernel registers here under a name with the conditions it needs
(``cannot``: what rules it out for a problem) and, where it is fast only for
some problems, its cost rule (``pays``). ``select`` decides, from the cell,
gate mode, device, dtype, build, environment and problem size, and returns
the choice with the reason; the recurrent layers call nothing else. Ask it
yourself with ``Recurrence.kernel_for(lengths)``; the choice is also logged
at DEBUG level on the ``spacy_elstm.kernels`` logger.

Kernels, best first:

- ``cpp-onednn``: the C++ kernels with each step's recurrent product on oneDNN
  (weight reordered once per pass). CPU, float32, gates="recurrent"; pays
  where every step's product is large.
- ``cpp``: the C++ kernels (``csrc/cell_state.cpp``) with their own blocked
  products fused into each step (gates="recurrent"), or each sequence on its
  own thread through time (gates="input"); for the second-order cell (solstm)
  plain loops per row (``second_order``). CPU.
- ``triton``: two persistent Triton kernels, all steps forward in one launch
  and all steps backward in another (``triton_cell``). CUDA, float32,
  gates="recurrent", Triton installed; on the CPU only under the Triton
  interpreter (TRITON_INTERPRET=1, for tests).
- ``torch``: PyTorch ops per step with a hand-written backward through time
  (gates="recurrent"). Any device.
- ``scan``: PyTorch ops with a parallel scan over time (gates="input"). Any device.
- ``reference``: ``cells.step`` under autograd. Every cell; the only one for
  cells without a cell state (gru, srn), and for the second-order cell (solstm)
  off the CPU.

A kernel can be forced by name, for tests and for debugging: ``with use("cpp"):``
or the environment variable SPACY_ELSTM_KERNEL; a forced kernel that cannot run
a problem raises a ValueError saying why. SPACY_ELSTM_NO_EXTENSION=1 and
SPACY_ELSTM_NO_ONEDNN=1 rule out the C++ kernels and the oneDNN products.
"""
import functools
import importlib.util
import logging
import os
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Dict, Iterator, List, Optional, Tuple

import torch
from torch import Tensor

from . import extension
from ..cells import Cell
from ..packing import Packing
from . import onednn, reference, second_order
from .fused import CellStateRecurrence

log = logging.getLogger("spacy_elstm.kernels")

# cpp-onednn pays where a step's recurrent product is large. Measured on 2 cores
# (forward+backward per step, cpp / cpp-onednn): 4,096 multiply-adds per step
# (1 row, N = 32) 3.4 / 49.5 µs, and far worse on a busy machine (a 30,000-step
# sequence: 0.25 s against 22.6 s); 524,288 (8 rows, N = 128) 134 / 149 µs;
# 1,048,576 (1 row, N = 512) 540 / 214 µs; 2,097,152 (32 rows, N = 128) 534 / 397 µs
ONEDNN_MIN_STEP_MACS = 1_000_000
# ... and where the whole pass repays reordering the weight forward and back
# (0.6 ms at N = 128, 1.7 ms at 256, 4.9 ms at 512: 8 to 15 steps' savings)
ONEDNN_MIN_MACS = 20_000_000


@dataclass(frozen=True)
class Problem:
    """What a recurrence is asked to run: ``tokens`` rows over ``steps`` steps
    of a cell with hidden width ``hidden``."""

    cell: Cell
    gates: str
    device: torch.device
    dtype: torch.dtype
    steps: int
    tokens: int
    hidden: int
    stateful: bool = False  # an initial state goes in, or the last state's gradient comes back

    @classmethod
    def of(cls, cell: Cell, gates: str, x: Tensor, packing: Packing, hidden: int,
           stateful: bool = False) -> "Problem":
        return cls(cell, gates, x.device, x.dtype, len(packing.sizes), packing.n_tokens, hidden,
                   stateful)

    @property
    def step_macs(self) -> float:
        """Multiply-adds of one step's recurrent product, on average over the steps."""
        if self.gates != "recurrent" or not self.steps:
            return 0.0
        return self.tokens / self.steps * self.cell.n_gates * self.hidden ** 2


@dataclass(frozen=True)
class Kernel:
    name: str
    summary: str
    cannot: Callable[[Problem], Optional[str]]
    pays: Callable[[Problem], Optional[str]] = lambda problem: None


@dataclass(frozen=True)
class Choice:
    """The kernel that runs a problem, where its input products run ("onednn"
    or "torch"), and why."""

    kernel: str
    products: str
    reason: str


KERNELS: Dict[str, Kernel] = {}  # best first


def register(kernel: Kernel) -> None:
    KERNELS[kernel.name] = kernel


def _needs_cell_state(problem: Problem) -> Optional[str]:
    if not problem.cell.cell_state:
        return f"cell {problem.cell.name!r} has no cell state"
    if problem.cell.second_order:
        return f"cell {problem.cell.name!r} mixes several cells (the fused kernels run one)"
    return None


def _cpp(problem: Problem) -> Optional[str]:
    if problem.device.type != "cpu":
        return f"the C++ kernels run on the CPU, not {problem.device.type}"
    if problem.dtype not in (torch.float32, torch.float64):
        return f"the C++ kernels take float32 and float64, not {problem.dtype}"
    if not problem.cell.cell_state:
        return f"cell {problem.cell.name!r} has no cell state"
    return extension.unavailable()


def _cpp_onednn(problem: Problem) -> Optional[str]:
    if problem.gates != "recurrent":
        return "gates='input' has no recurrent product"
    if problem.dtype != torch.float32:
        return f"the oneDNN products take float32, not {problem.dtype}"
    if problem.cell.second_order:
        return f"cell {problem.cell.name!r} mixes several cells (the oneDNN steps run one)"
    return _cpp(problem) or onednn.unavailable() or _cpp_onednn_probe()


def _cpp_onednn_pays(problem: Problem) -> Optional[str]:
    macs = problem.step_macs
    if macs < ONEDNN_MIN_STEP_MACS:
        return f"{macs:,.0f} multiply-adds per step < {ONEDNN_MIN_STEP_MACS:,}"
    if macs * problem.steps < ONEDNN_MIN_MACS:
        return f"{macs * problem.steps:,.0f} multiply-adds in all < {ONEDNN_MIN_MACS:,}"
    return None


def _triton(problem: Problem) -> Optional[str]:
    why = _gates("recurrent")(problem)
    if why is not None:
        return why
    if problem.dtype != torch.float32:
        return f"the Triton kernels take float32, not {problem.dtype}"
    if problem.stateful:
        return "the Triton kernels take no initial state"
    interpreter = os.environ.get("TRITON_INTERPRET", "0") == "1"
    if problem.device.type != "cuda" and not (interpreter and problem.device.type == "cpu"):
        return (f"the Triton kernels run on CUDA (on the CPU only under TRITON_INTERPRET=1), "
                f"not {problem.device.type}")
    if not _triton_installed():
        return "Triton is not installed"
    return None


@functools.lru_cache(maxsize=None)
def _triton_installed() -> bool:
    """Looked up once: the registry is asked at every forward pass."""
    return importlib.util.find_spec("triton") is not None


def _gates(mode: str) -> Callable[[Problem], Optional[str]]:
    def cannot(problem: Problem) -> Optional[str]:
        if problem.gates != mode:
            return f"it runs gates={mode!r} only"
        return _needs_cell_state(problem)
    return cannot


register(Kernel("cpp-onednn", "C++ steps, recurrent products on oneDNN", _cpp_onednn,
                _cpp_onednn_pays))
register(Kernel("cpp", "C++ steps with their own products", _cpp))
register(Kernel("triton", "persistent Triton kernels, one launch per pass", _triton))
register(Kernel("torch", "PyTorch ops per step, backward by hand", _gates("recurrent")))
register(Kernel("scan", "PyTorch ops, parallel scan over time", _gates("input")))
register(Kernel("reference", "cells.step under autograd", lambda problem: None))

_forced: List[str] = []
_probe: Optional[str] = None
_probed = False


def _cpp_onednn_probe() -> Optional[str]:
    """The C++ kernels call a private oneDNN operator looked up by schema; run
    them once on a tiny problem with a reordered weight, against their own
    products, so a changed schema falls back here and not inside a forward pass."""
    global _probe, _probed
    if not _probed:
        _probed = True
        try:
            gen = torch.Generator().manual_seed(0)
            proj, w = torch.randn(6, 8, generator=gen), torch.randn(8, 2, generator=gen)
            module, gates = extension.get(), [0, 1, 2, 3]
            want = module.forward(proj, w, None, None, None, None, [3, 2, 1], gates)[0]
            got = module.forward(proj, w, onednn.reorder_weight(w, 3), None, None, None,
                                 [3, 2, 1], gates)[0]
            _probe = (None if torch.allclose(got, want, rtol=1e-4, atol=1e-5)
                      else "the C++ kernels' oneDNN products gave a wrong answer on a probe")
        except Exception as err:
            _probe = (f"the C++ kernels' oneDNN products failed on a probe "
                      f"({type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''})")
        if _probe is not None:
            warnings.warn(f"spacy-elstm: {_probe}; using the C++ kernels' own products.")
    return _probe


def _forced_name() -> Optional[str]:
    name = _forced[-1] if _forced else os.environ.get("SPACY_ELSTM_KERNEL") or None
    if name is not None and name not in KERNELS:
        raise ValueError(f"Unknown kernel {name!r}: choose one of "
                         f"{', '.join(map(repr, KERNELS))}.")
    return name


@contextmanager
def use(name: str) -> Iterator[None]:
    """Run every recurrence inside the block on kernel ``name``."""
    if name not in KERNELS:
        raise ValueError(f"Unknown kernel {name!r}: choose one of {', '.join(map(repr, KERNELS))}.")
    _forced.append(name)
    try:
        yield
    finally:
        _forced.pop()


def explain(problem: Problem) -> Dict[str, Optional[str]]:
    """For every kernel, None where it would run ``problem`` if chosen, else
    why not ("cannot: ..." or "does not pay: ...")."""
    out: Dict[str, Optional[str]] = {}
    for name, kernel in KERNELS.items():
        why = kernel.cannot(problem)
        if why is not None:
            out[name] = f"cannot: {why}"
        else:
            pays = kernel.pays(problem)
            out[name] = None if pays is None else f"does not pay: {pays}"
    return out


def select(problem: Problem) -> Choice:
    """The kernel for ``problem``: the forced one, else the best that can run it and pays."""
    products = "onednn" if onednn.runs_on(problem.device, problem.dtype) else "torch"
    forced = _forced_name()
    if forced is not None:
        why = KERNELS[forced].cannot(problem)
        if why is not None:
            raise ValueError(f"Kernel {forced!r} cannot run {problem.cell.name}/{problem.gates} "
                             f"on {problem.device.type} {problem.dtype}: {why}.")
        choice = Choice(forced, products, "forced")
    else:
        passed = []
        for name, kernel in KERNELS.items():
            why = kernel.cannot(problem)
            why = why if why is not None else kernel.pays(problem)
            if why is None:
                break
            passed.append(f"{name}: {why}")
        choice = Choice(name, products, KERNELS[name].summary
                        + (f" (passed over {'; '.join(passed)})" if passed else ""))
    if log.isEnabledFor(logging.DEBUG):
        log.debug("%s/%s %s %s, %d steps, %d tokens, N=%d: %s, products on %s; %s",
                  problem.cell.name, problem.gates, problem.device, problem.dtype, problem.steps,
                  problem.tokens, problem.hidden, choice.kernel, choice.products, choice.reason)
    return choice


def run(choice: Choice, cell: Cell, proj: Tensor, packing: Packing, *,
        weight_h: Optional[Tensor], scale: Optional[Tensor], state_bias: Optional[Tensor],
        bias_hn: Optional[Tensor], h0: Optional[Tensor] = None,
        c0: Optional[Tensor] = None) -> Tuple[Tensor, Tensor, Optional[Tensor]]:
    """The recurrence over the packed projection ``proj`` on the chosen kernel.
    h0, c0: the states before the first step, one row per sequence of length
    >= 1 in packed order, (sizes[0], N), or None for zeros. Returns h, (n_tokens,
    N), packed, and each sequence's last h and c (packed order; c is None for
    cells without a cell state), all with gradient."""
    if choice.kernel == "reference":
        return reference.loop(cell, proj, packing, weight_h, scale, state_bias, bias_hn, h0, c0)
    if h0 is not None and weight_h is not None:
        # h_(-1) enters a cell-state cell only through W_h h_(-1) in the gates
        # of step 0 (with gates="input" not at all); a second-order cell's
        # alpha columns follow its gates
        k, width = packing.sizes[0], weight_h.shape[0]
        first = torch.addmm(proj[:k, :width], h0, weight_h.t())
        if width < proj.shape[1]:
            first = torch.cat([first, proj[:k, width:]], 1)
        proj = torch.cat([first, proj[k:]])
    if cell.second_order:  # "cpp"
        hs, c_last = second_order.run(cell, proj, packing, weight_h, c0)
        return hs, hs.index_select(0, packing.last_rows), c_last
    hs, c_last = CellStateRecurrence.apply(proj, weight_h, scale, state_bias, c0, packing, cell,
                                           choice.kernel)
    return hs, hs.index_select(0, packing.last_rows), c_last


__all__ = ["KERNELS", "Kernel", "Problem", "Choice", "register", "select", "explain", "use",
           "run", "onednn"]
