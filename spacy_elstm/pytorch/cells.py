"""The recurrent cells: one table that says what each cell is, and one time step each.

Every cell reads a pre-computed input projection ``a_x`` (``W_x X_t + bias`` for
all gates at once) and, with ``gates="recurrent"``, adds ``W_h h_{t-1}``. The
gate order inside the projection follows PyTorch's own modules so that
weights copy over one to one:

- ``lstm``: [i, f, g, o]  c = f*c + i*g,            h = o*tanh(c)          (Eqs. 6-7)
- ``elstm``: [i, f, g, o] c = f*c + s_ts*i*g,        h = o*tanh(c + b)      (ELSTM-I, Eqs. 24-25)
- ``elstm2``: [i, g, o]   c = c + s_ts*i*g,          h = o*tanh(c + b)      (ELSTM-II)
- ``gru``: [r, z, n]      n = tanh(a_n + r*(W_hn h + b_hn)), h = (1-z)*n + z*h
- ``srn``: [h]            h = tanh(a + W_h h)                               (Elman)
- ``solstm``: S x [i, f, g, o], then S mixing weights alpha (second-order LSTM paper, Sec. 3.2.2):
  c^(s) = f^(s)*c + i^(s)*g^(s), h^(s) = o^(s)*tanh(c^(s)), h = sum_s alpha_s h^(s), c likewise

The GRU follows PyTorch/cuDNN in applying the reset gate after the recurrent
product (Eq. 14 of the paper applies it before); this is the form that every
GRU implementation we compare against computes.

``TABLE`` is the one place a cell's layout is written: the modules size their
parameters from it, the reference ``step`` and the fused kernels (PyTorch ops
and C++, which receive the gate offsets) read their gates through it. A cell
of the same shape as an existing one is a new entry here plus its equations
in ``step``.
"""
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import torch
from torch import Tensor


@dataclass(frozen=True)
class Cell:
    """What a cell is. ``gates``: the blocks of the projection, in order, each
    ``hidden_width`` wide. ``cell_state``: it carries c beside h (the fused
    kernels run exactly these: c = f*c + s*i*g, h = o*tanh(c + b), with any of
    f, s, b absent). ``scaled``: it has the ELSTM's s (Ts x N) and b (N).
    ``input_gates``: it allows gates="input" (its recurrence survives without
    h_(t-1) in the gates). ``forget_init``: the initial bias of its forget gate.
    ``second_order``: S copies of ``gates`` side by side, mixed by weights alpha
    that the projection carries in its last S columns (``second_order.Mixer``);
    the reference loop runs it, and on the CPU the C++ kernels'
    ``second_order_*`` (``kernels.second_order``)."""

    name: str
    gates: Tuple[str, ...]
    cell_state: bool = False
    scaled: bool = False
    input_gates: bool = False
    forget_init: Optional[float] = None
    second_order: bool = False

    @property
    def n_gates(self) -> int:
        return len(self.gates)

    def index(self, gate: str) -> int:
        """The block of ``gate`` in the projection, or -1 where the cell has none."""
        return self.gates.index(gate) if gate in self.gates else -1

    def block(self, gate: str, n: int) -> Optional[slice]:
        """The columns of ``gate`` in a projection of hidden width ``n``."""
        q = self.index(gate)
        return None if q < 0 else slice(q * n, (q + 1) * n)

    @property
    def state_gates(self) -> Tuple[int, int, int, int]:
        """Blocks of (i, f, g, o) for the cell-state kernels; f is -1 where absent."""
        return (self.index("i"), self.index("f"), self.index("g"), self.index("o"))


TABLE: Dict[str, Cell] = {c.name: c for c in (
    Cell("elstm", ("i", "f", "g", "o"), cell_state=True, scaled=True, input_gates=True,
         forget_init=1.0),
    Cell("elstm2", ("i", "g", "o"), cell_state=True, scaled=True, input_gates=True),
    Cell("lstm", ("i", "f", "g", "o"), cell_state=True, input_gates=True, forget_init=1.0),
    Cell("gru", ("r", "z", "n")),
    Cell("srn", ("h",)),
    Cell("solstm", ("i", "f", "g", "o"), cell_state=True, forget_init=1.0, second_order=True),
)}
CELLS: Tuple[str, ...] = tuple(TABLE)
GATE_MODES: Tuple[str, ...] = ("recurrent", "input")
# derived views, kept for readers of the names
N_GATES: Dict[str, int] = {name: c.n_gates for name, c in TABLE.items()}
INPUT_GATED: Tuple[str, ...] = tuple(n for n, c in TABLE.items() if c.input_gates)
SCALED: Tuple[str, ...] = tuple(n for n, c in TABLE.items() if c.scaled)
HAS_CELL_STATE: Tuple[str, ...] = tuple(n for n, c in TABLE.items() if c.cell_state)
FIRST_ORDER: Tuple[str, ...] = tuple(n for n, c in TABLE.items() if not c.second_order)


def check_cell(cell: str, gates: str = "recurrent", period: int = 1) -> Cell:
    """The table entry of ``cell``; a ValueError naming the bad value and the allowed ones."""
    if cell not in TABLE:
        raise ValueError(f"Unknown cell {cell!r}: choose one of {', '.join(map(repr, CELLS))}.")
    if gates not in GATE_MODES:
        raise ValueError(f"Unknown gates {gates!r}: choose one of {', '.join(map(repr, GATE_MODES))}.")
    if gates == "input" and not TABLE[cell].input_gates:
        raise ValueError(
            f"Cell {cell!r} has no gates='input' variant (its only recurrence is through "
            f"h_(t-1)); use gates='recurrent', or one of {', '.join(map(repr, INPUT_GATED))}."
        )
    if isinstance(period, bool) or not isinstance(period, int) or period < 1:
        raise ValueError(f"period must be an integer >= 1, got {period!r}.")
    return TABLE[cell]


def step(
    cell: Cell,
    a: Tensor,
    h: Tensor,
    c: Optional[Tensor],
    *,
    weight_h: Optional[Tensor],
    scale: Optional[Tensor] = None,
    state_bias: Optional[Tensor] = None,
    bias_hn: Optional[Tensor] = None,
) -> Tuple[Tensor, Optional[Tensor]]:
    """One time step of ``cell`` for the k sequences still running: the
    reference the fused kernels are tested against.

    a: input projection, shape (k, n_gates * N); for a second-order cell of S
    cells (k, S * (n_gates * N + 1)): the S cells' gates, then alpha (k, S).
    h, c: previous states, (k, N).
    weight_h: (n_gates * N, N), or None for gates="input". scale: s_ts, (N,).
    Returns the new (h, c); c is None for cells without a cell state.
    """
    n = h.shape[1]

    def gate(name: str, x: Tensor) -> Tensor:
        return x[:, cell.block(name, n)]

    if cell.name == "gru":
        ah = h @ weight_h.t()
        r = torch.sigmoid(gate("r", a) + gate("r", ah))
        z = torch.sigmoid(gate("z", a) + gate("z", ah))
        n_ = torch.tanh(gate("n", a) + r * (gate("n", ah) + bias_hn))
        return n_ + z * (h - n_), None
    if cell.second_order:
        return _second_order_step(cell, a, h, c, weight_h)
    if weight_h is not None:
        a = torch.addmm(a, h, weight_h.t())
    if cell.name == "srn":
        return torch.tanh(a), None
    # the cell-state cells: c = f*c + s*i*g (f = 1 without a forget gate)
    u = torch.sigmoid(gate("i", a)) * torch.tanh(gate("g", a))
    if scale is not None:
        u = scale * u
    c = c + u if cell.index("f") < 0 else torch.sigmoid(gate("f", a)) * c + u
    o = torch.sigmoid(gate("o", a))
    return o * torch.tanh(c if state_bias is None else c + state_bias), c


def _second_order_step(cell: Cell, a: Tensor, h: Tensor, c: Tensor,
                       weight_h: Optional[Tensor]) -> Tuple[Tensor, Tensor]:
    """S LSTM steps from the same (h, c), mixed by alpha (Eqs. c-e).
    weight_h: (S * n_gates * N, N), the S cells' W_h stacked."""
    k, n = h.shape
    width = cell.n_gates * n
    s = a.shape[1] // (width + 1)
    alpha = a[:, s * width:].unsqueeze(-1)  # (k, S, 1)
    a = a[:, :s * width]
    if weight_h is not None:
        a = torch.addmm(a, h, weight_h.t())
    a = a.reshape(k, s, width)

    def gate(name: str) -> Tensor:
        return a[:, :, cell.block(name, n)]

    u = torch.sigmoid(gate("i")) * torch.tanh(gate("g"))
    cs = torch.sigmoid(gate("f")) * c.unsqueeze(1) + u
    hs = torch.sigmoid(gate("o")) * torch.tanh(cs)
    return (alpha * hs).sum(1), (alpha * cs).sum(1)
