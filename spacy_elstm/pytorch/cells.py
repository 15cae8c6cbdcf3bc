"""The recurrent cells: their names, gate layouts and one time step each.

Every cell reads a pre-computed input projection ``a_x`` (``W_x X_t + bias`` for
all gates at once) and, with ``gates="recurrent"``, adds ``W_h h_{t-1}``. The
gate order inside the projection follows PyTorch's own modules so that
weights copy over one to one:

- ``lstm``: [i, f, g, o]  c = f*c + i*g,            h = o*tanh(c)          (Eqs. 6-7)
- ``elstm``: [i, f, g, o] c = f*c + s_ts*i*g,        h = o*tanh(c + b)      (ELSTM-I, Eqs. 24-25)
- ``elstm2``: [i, g, o]   c = c + s_ts*i*g,          h = o*tanh(c + b)      (ELSTM-II)
- ``gru``: [r, z, n]      n = tanh(a_n + r*(W_hn h + b_hn)), h = (1-z)*n + z*h
- ``srn``: [h]            h = tanh(a + W_h h)                               (Elman)

The GRU follows PyTorch/cuDNN in applying the reset gate after the recurrent
product (Eq. 14 of the paper applies it before); this is the form that every
GRU implementation we compare against computes.
"""
from typing import Dict, Optional, Tuple

import torch
from torch import Tensor

CELLS: Tuple[str, ...] = ("elstm", "elstm2", "lstm", "gru", "srn")
GATE_MODES: Tuple[str, ...] = ("recurrent", "input")
N_GATES: Dict[str, int] = {"elstm": 4, "elstm2": 3, "lstm": 4, "gru": 3, "srn": 1}
# Cells whose hidden state h_{t-1} can be dropped from the gate inputs: the
# GRU's and SRN's only recurrence *is* through h, so "input" would remove it.
INPUT_GATED: Tuple[str, ...] = ("elstm", "elstm2", "lstm")
SCALED: Tuple[str, ...] = ("elstm", "elstm2")
HAS_CELL_STATE: Tuple[str, ...] = ("elstm", "elstm2", "lstm")


def check_cell(cell: str, gates: str = "recurrent", period: int = 1) -> None:
    """Raise a ValueError naming the bad value and the allowed ones."""
    if cell not in CELLS:
        raise ValueError(f"Unknown cell {cell!r}: choose one of {', '.join(map(repr, CELLS))}.")
    if gates not in GATE_MODES:
        raise ValueError(f"Unknown gates {gates!r}: choose one of {', '.join(map(repr, GATE_MODES))}.")
    if gates == "input" and cell not in INPUT_GATED:
        raise ValueError(
            f"Cell {cell!r} has no gates='input' variant (its only recurrence is through "
            f"h_(t-1)); use gates='recurrent', or one of {', '.join(map(repr, INPUT_GATED))}."
        )
    if isinstance(period, bool) or not isinstance(period, int) or period < 1:
        raise ValueError(f"period must be an integer >= 1, got {period!r}.")


def step(
    cell: str,
    a: Tensor,
    h: Tensor,
    c: Optional[Tensor],
    *,
    weight_h: Optional[Tensor],
    scale: Optional[Tensor] = None,
    state_bias: Optional[Tensor] = None,
    bias_hn: Optional[Tensor] = None,
) -> Tuple[Tensor, Optional[Tensor]]:
    """One time step of ``cell`` for the k sequences still running.

    a: input projection, shape (k, n_gates * N). h, c: previous states, (k, N).
    weight_h: (n_gates * N, N), or None for gates="input". scale: s_ts, (N,).
    Returns the new (h, c); c is None for cells without a cell state.
    """
    if cell == "gru":
        ah = h @ weight_h.t()
        ar, az, an = a.chunk(3, dim=1)
        hr, hz, hn = ah.chunk(3, dim=1)
        r = torch.sigmoid(ar + hr)
        z = torch.sigmoid(az + hz)
        n = torch.tanh(an + r * (hn + bias_hn))
        return n + z * (h - n), None
    if weight_h is not None:
        a = torch.addmm(a, h, weight_h.t())
    if cell == "srn":
        return torch.tanh(a), None
    if cell == "elstm2":
        i, g, o = a.chunk(3, dim=1)
        c = c + scale * torch.sigmoid(i) * torch.tanh(g)
    else:
        i, f, g, o = a.chunk(4, dim=1)
        u = torch.sigmoid(i) * torch.tanh(g)
        if scale is not None:
            u = scale * u
        c = torch.sigmoid(f) * c + u
    if state_bias is not None:
        return torch.sigmoid(o) * torch.tanh(c + state_bias), c
    return torch.sigmoid(o) * torch.tanh(c), c
