"""The memory response of one recurrent layer (one direction) to each input
position, as the ELSTM paper defines it, from the gate values of a forward pass.

For a sequence x_1 .. x_T run in the layer's own direction, the response of
the last step T to position k is the term of x_k in the closed form of the
state at T (c_0 = h_0 = 0):

- ``lstm`` (Eq. 26): mr_k = [prod_{j=k+1..T} f_j] i_k g_k
- ``elstm`` (Eq. 27): mr_k = s_k [prod_{j=k+1..T} f_j] i_k g_k
- ``elstm2`` (ELSTM-II, no forget gate): mr_k = s_k i_k g_k
- ``gru`` (Eq. 19, our cell's h = z h + (1 - z) n): mr_k = [prod_{j=k+1..T} z_j] (1 - z_k) n_k
- ``srn`` (Eq. 4, the linear-state SRN): mr_k = W_h^(T-k) (W_x x_k + b)

Here f, i, o, z are the sigmoid gates and g = tanh(...), n the GRU's candidate,
each with its actual value in the forward pass (the gates read h_(t-1), so the
products are the ones the trained cell really applied), and s_k the ELSTM's
scaling factor of position k (s_((k-1) mod Ts + 1)). For the cell-state cells
the responses add up to c_T, for the GRU to h_T; for our SRN, whose state goes
through tanh at every step, Eq. 4 is the linearised path, not an exact sum.

Each mr_k is a vector (one value per hidden unit). Beside it, ``jacobian_norms``
gives the Frobenius norm of the Jacobian ||dh_T / dx_k|| by autograd: the
sensitivity of the output to the input, which also counts the paths through
h_(t-1) in the gates and the output gate.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional

import torch
from torch import Tensor

from ..pytorch import cells
from ..pytorch.recurrence import Recurrence


@dataclass
class Trace:
    """One sequence through one layer, in the layer's own time order (a
    ``reverse`` layer's step 0 is the sequence's last token).
    h: (T, N) outputs; c: (T, N) cell states or None; gates: {name: (T, N)}
    activations (i, f, g, o; r, z, n; or a for the SRN's pre-activation
    W_x x + b); scale: (T, N) the s_k applied at each step, or None."""

    cell: str
    h: Tensor
    c: Optional[Tensor]
    gates: Dict[str, Tensor]
    scale: Optional[Tensor]


# the cells that memory_response has a form for (not the second-order LSTM)
RESPONSE_CELLS = ("lstm", "elstm", "elstm2", "gru", "srn")


def trace(rnn: Recurrence, x: Tensor) -> Trace:
    """Run ``rnn`` over one sequence x: (T, input_width), given in the
    sentence's order, keeping every gate's value. The states come from
    ``cells.step``, the reference every kernel is tested against."""
    if x.dim() != 2 or x.shape[1] != rnn.input_width:
        raise ValueError(f"Expected one sequence of shape (T, {rnn.input_width}), "
                         f"got {tuple(x.shape)}.")
    if rnn.reverse:
        x = x.flip(0)
    spec, n = rnn.spec, rnn.hidden_width
    a_all = rnn.project(x)
    h = x.new_zeros(1, n)
    c = x.new_zeros(1, n) if spec.cell_state else None
    hs: List[Tensor] = []
    cs: List[Tensor] = []
    gates: Dict[str, List[Tensor]] = {}
    scales: List[Tensor] = []

    def keep(name: str, value: Tensor) -> None:
        gates.setdefault(name, []).append(value[0])

    for t in range(x.shape[0]):
        a = a_all[t:t + 1]
        scale = None if rnn.scale is None else rnn.scale[t % rnn.scale.shape[0]]
        if spec.name == "gru":
            ah = h @ rnn.weight_h.t()
            block = lambda name, v: v[:, spec.block(name, n)]  # noqa: E731
            r = torch.sigmoid(block("r", a) + block("r", ah))
            z = torch.sigmoid(block("z", a) + block("z", ah))
            keep("r", r)
            keep("z", z)
            keep("n", torch.tanh(block("n", a) + r * (block("n", ah) + rnn.bias_hn)))
        else:
            full = a if rnn.weight_h is None else a + h @ rnn.weight_h.t()
            if spec.name == "srn":
                keep("a", a)
            else:
                for name in spec.gates:
                    act = torch.tanh if name == "g" else torch.sigmoid
                    keep(name, act(full[:, spec.block(name, n)]))
        if scale is not None:
            scales.append(scale)
        h, c = cells.step(spec, a, h, c, weight_h=rnn.weight_h, scale=scale,
                          state_bias=rnn.state_bias, bias_hn=rnn.bias_hn)
        hs.append(h[0])
        if c is not None:
            cs.append(c[0])
    return Trace(cell=spec.name, h=torch.stack(hs), c=torch.stack(cs) if cs else None,
                 gates={k: torch.stack(v) for k, v in gates.items()},
                 scale=torch.stack(scales) if scales else None)


def _after(gate: Tensor) -> Tensor:
    """(T, N): row k holds prod_{j=k+1..T-1} gate_j (0-based; the last row is 1)."""
    ones = gate.new_ones(1, gate.shape[1])
    # reverse cumulative product of gate[1:], then a row of ones at the end
    tail = torch.flip(torch.cumprod(torch.flip(gate[1:], [0]), 0), [0])
    return torch.cat([tail, ones])


def memory_response(rnn: Recurrence, tr: Trace) -> Tensor:
    """mr_k for every step k of ``tr`` (in the layer's time order): (T, N),
    by the formulas of the module docstring."""
    g = tr.gates
    if tr.cell in ("lstm", "elstm", "elstm2"):
        written = g["i"] * g["g"]
        if tr.scale is not None:
            written = tr.scale * written
        return written if "f" not in g else _after(g["f"]) * written
    if tr.cell == "gru":
        return _after(g["z"]) * (1 - g["z"]) * g["n"]
    if tr.cell == "srn":
        steps = g["a"].shape[0]
        w = rnn.weight_h if rnn.weight_h is not None else None
        out = torch.empty_like(g["a"])
        v = None
        for k in range(steps - 1, -1, -1):  # W_h^(T-k) a_k, powers built from the end
            power = torch.eye(rnn.hidden_width, dtype=g["a"].dtype) if v is None else v
            out[k] = power @ g["a"][k]
            v = power @ w if w is not None else torch.zeros_like(power)
        return out
    raise ValueError(f"No memory response for cell {tr.cell!r}.")


def jacobian_norms(rnn: Recurrence, x: Tensor) -> Tensor:
    """||dh_T / dx_k||_F for every position k of x: (T, input_width), in the
    sentence's order, where h_T is the layer's last output in its own direction
    (the first token's output for a reverse layer). (T,)."""
    x = x.detach().clone().requires_grad_(True)
    h_last = trace(rnn, x).h[-1]
    rows = []
    for unit in range(h_last.shape[0]):
        (grad,) = torch.autograd.grad(h_last[unit], x, retain_graph=True)
        rows.append(grad)
    jac = torch.stack(rows)  # (N, T, input_width)
    return jac.pow(2).sum(dim=(0, 2)).sqrt()


def sentence_order(rnn: Recurrence, values: Tensor) -> Tensor:
    """Rows given in the layer's time order, put back in the sentence's order."""
    return values.flip(0) if rnn.reverse else values


def analyse(rnn: Recurrence, x: Tensor, *, jacobian: bool = True) -> Dict:
    """The memory response of the last step to each position of x (T,
    input_width), the scaling factors applied there and, with ``jacobian``, the
    Jacobian norms: a JSON-ready dict, every list in the sentence's order."""
    with torch.no_grad():
        tr = trace(rnn, x.detach())
        mr = memory_response(rnn, tr)
    steps = x.shape[0]
    result = {
        "cell": tr.cell,
        "direction": "backward" if rnn.reverse else "forward",
        "length": steps,
        "hidden_width": rnn.hidden_width,
        "output_position": 1 if rnn.reverse else steps,
        "response": sentence_order(rnn, mr).tolist(),
        "response_norm": sentence_order(rnn, mr.norm(dim=1)).tolist(),
        "gates": {k: sentence_order(rnn, v).tolist() for k, v in tr.gates.items()},
        "output": tr.h[-1].tolist(),
    }
    if tr.c is not None:
        result["cell_state"] = tr.c[-1].tolist()
    if tr.scale is not None:
        result["scale"] = sentence_order(rnn, tr.scale).tolist()
        result["period"] = rnn.period
    if jacobian:
        result["jacobian_norm"] = jacobian_norms(rnn, x).tolist()
    return result
