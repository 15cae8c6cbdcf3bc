"""A recurrence started from a given state and returning the state it ends in
(``Recurrence.run_state``): what a language model carries across segments."""
import pytest
import torch

from spacy_elstm.pytorch import Recurrence, kernels
from spacy_elstm.pytorch.packing import Packing

from kernel_utils import fast_kernels, using

CELLS = ("elstm", "elstm2", "lstm", "gru", "srn", "solstm")


def make(cell, gates="recurrent", reverse=False, width=5, hidden=6, seed=0):
    torch.manual_seed(seed)
    rec = Recurrence(cell=cell, input_width=width, hidden_width=hidden, gates=gates, period=3,
                     reverse=reverse).double()
    with torch.no_grad():  # scaling factors away from 1, so s_ts is exercised
        if rec.scale is not None:
            rec.scale.uniform_(0.5, 1.5)
            rec.state_bias.uniform_(-0.3, 0.3)
    return rec


def state_for(rec, batch, seed=1):
    gen = torch.Generator().manual_seed(seed)
    h = torch.randn(batch, rec.hidden_width, generator=gen, dtype=torch.float64)
    c = (torch.randn(batch, rec.hidden_width, generator=gen, dtype=torch.float64)
         if rec.spec.cell_state else None)
    return h, c


def segments(rec, x, lengths, cut, state=None):
    """The sequences (zero-padded, equal cut for all) run as two segments, the
    state carried from the first to the second; returns outputs and final state."""
    first = torch.clamp(lengths, max=cut)
    second = lengths - first
    y1, state = rec.run_state(*_packed(x[:, :cut], first), state)
    y2, state = rec.run_state(*_packed(x[:, cut:], second), state, start=cut)
    return torch.cat([_padded(y1, first, cut), _padded(y2, second, x.shape[1] - cut)], 1), state


def _packed(x, lengths):
    packing = Packing(lengths, x.device)
    return packing.from_padded(x), packing


def _padded(y, lengths, seq_len):
    return Packing(lengths, y.device).to_padded(y, seq_len)


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("gates", ["recurrent", "input"])
def test_two_segments_with_carried_state_equal_one_pass(cell, gates):
    """Forward only: splitting a text and carrying the state changes nothing."""
    if gates == "input" and cell in ("gru", "srn", "solstm"):
        pytest.skip("no gates='input' variant")
    rec = make(cell, gates)
    lengths = torch.tensor([9, 4, 7, 1])
    x = torch.randn(4, 9, 5, dtype=torch.float64)
    whole, end = rec.run_state(*_packed(x, lengths))
    whole = _padded(whole, lengths, 9)
    for kernel in ("reference",) + fast_kernels(cell, gates):
        with using(kernel, rec, lengths):
            split, split_end = segments(rec, x, lengths, cut=4)
        torch.testing.assert_close(split, whole, msg=kernel)
        torch.testing.assert_close(split_end[0], end[0], msg=kernel)
        if end[1] is not None:
            torch.testing.assert_close(split_end[1], end[1], msg=kernel)


@pytest.mark.parametrize("cell,gates", [(c, g) for c in ("elstm", "elstm2", "lstm")
                                         for g in ("recurrent", "input")]
                         + [("solstm", "recurrent")])
@pytest.mark.parametrize("reverse", [False, True])
def test_kernels_agree_with_the_reference_on_state_and_gradients(cell, gates, reverse):
    """Outputs, final states and the gradients of every input, parameter and of
    the initial state, against the reference loop under autograd."""
    rec = make(cell, gates, reverse)
    lengths = torch.tensor([6, 0, 3, 6, 2])
    packing = Packing(lengths, torch.device("cpu"))
    x = torch.randn(packing.n_tokens, 5, dtype=torch.float64)
    gen = torch.Generator().manual_seed(3)
    w_y = torch.randn(packing.n_tokens, 6, generator=gen, dtype=torch.float64)
    w_h, w_c = (torch.randn(5, 6, generator=gen, dtype=torch.float64) for _ in range(2))

    def result(kernel):
        h0, c0 = (t.clone().requires_grad_() for t in state_for(rec, 5))
        xin = x.clone().requires_grad_()
        rec.zero_grad()
        with kernels.use(kernel):
            y, (h, c) = rec.run_state(xin, packing, (h0, c0))
        ((y * w_y).sum() + (h * w_h).sum() + (c * w_c).sum()).backward()
        grads = [xin.grad, h0.grad, c0.grad] + [p.grad for p in rec.parameters()]
        return [y, h, c] + grads

    want = result("reference")
    for kernel in fast_kernels(cell, gates):
        with using(kernel, rec, lengths):
            pass
        got = result(kernel)
        for a, b in zip(got, want):
            if b is None:
                assert a is None or not a.abs().max() > 0, kernel
            else:
                torch.testing.assert_close(a, b, msg=kernel)


@pytest.mark.parametrize("cell,kernel", [("elstm", "torch"), ("elstm", "cpp"),
                                         ("elstm", "reference"), ("solstm", "cpp")])
def test_gradcheck_through_the_initial_state(cell, kernel):
    rec = make(cell, hidden=3, width=2)
    lengths = torch.tensor([3, 2, 2])
    packing = Packing(lengths, torch.device("cpu"))
    x = torch.randn(packing.n_tokens, 2, dtype=torch.float64)
    h0, c0 = (t.requires_grad_() for t in state_for(rec, 3))

    def f(h0, c0):
        with kernels.use(kernel):
            y, (h, c) = rec.run_state(x, packing, (h0, c0))
        return y, h, c

    with using(kernel, rec, lengths):
        pass
    assert torch.autograd.gradcheck(f, (h0, c0))


def test_lstm_state_matches_torch_nn_lstm():
    """Scaling fixed at 1 and b = 0: the ELSTM from (h0, c0) is PyTorch's LSTM from (h0, c0)."""
    rec = make("elstm")
    with torch.no_grad():
        rec.scale.fill_(1.0)
        rec.state_bias.zero_()
    ref = torch.nn.LSTM(5, 6, batch_first=True).double()
    with torch.no_grad():
        ref.weight_ih_l0.copy_(rec.weight_x)
        ref.weight_hh_l0.copy_(rec.weight_h)
        ref.bias_ih_l0.copy_(rec.bias)
        ref.bias_hh_l0.zero_()
    h0, c0 = state_for(rec, 3)
    x = torch.randn(3, 7, 5, dtype=torch.float64)
    lengths = torch.tensor([7, 7, 7])
    y, (h, c) = rec.run_state(*_packed(x, lengths), (h0, c0))
    want, (h_ref, c_ref) = ref(x, (h0[None], c0[None]))
    torch.testing.assert_close(_padded(y, lengths, 7), want)
    torch.testing.assert_close(h, h_ref[0])
    torch.testing.assert_close(c, c_ref[0])


def test_empty_sequences_keep_their_state():
    rec = make("lstm")
    h0, c0 = state_for(rec, 2)
    y, (h, c) = rec.run_state(*_packed(torch.zeros(2, 3, 5, dtype=torch.float64),
                                       torch.tensor([0, 0])), (h0, c0))
    assert y.shape == (0, 6)
    torch.testing.assert_close(h, h0)
    torch.testing.assert_close(c, c0)


def test_a_wrong_state_names_the_shapes():
    rec = make("elstm")
    x, packing = _packed(torch.zeros(2, 3, 5, dtype=torch.float64), torch.tensor([3, 2]))
    with pytest.raises(ValueError, match=r"two \(2, 6\) tensors, got \(3, 6\)"):
        rec.run_state(x, packing, (torch.zeros(3, 6), torch.zeros(3, 6)))
    with pytest.raises(ValueError, match="carries a cell state"):
        rec.run_state(x, packing, (torch.zeros(2, 6, dtype=torch.float64), None))


def test_the_triton_kernels_are_passed_over_for_a_carried_state():
    spec = make("elstm").spec
    problem = kernels.Problem(spec, "recurrent", torch.device("cuda", 0), torch.float32, steps=5,
                              tokens=10, hidden=8, stateful=True)
    assert kernels.explain(problem)["triton"] == "cannot: the Triton kernels take no initial state"
    assert kernels.select(problem).kernel == "torch"


def test_onednn_products_carry_the_state_too():
    rec = make("elstm").float()
    lengths = torch.tensor([9, 4, 7, 1])
    x = torch.randn(4, 9, 5)
    whole, end = rec.run_state(*_packed(x, lengths))
    whole = _padded(whole, lengths, 9)
    with using("cpp-onednn", rec, lengths):
        split, split_end = segments(rec, x, lengths, cut=4)
    torch.testing.assert_close(split, whole, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(split_end[1], end[1], rtol=1e-4, atol=1e-5)
