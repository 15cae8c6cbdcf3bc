"""Gradients, padding, the periodic scaling index and long sequences."""
import pytest
import torch

from spacy_elstm.pytorch import CELLS, DBRNN, Packing, Recurrence, RecurrentEncoder, check_cell
from spacy_elstm.pytorch import kernels

from kernel_utils import fast_kernels, using

CELL_GATES = [(c, "recurrent") for c in CELLS] + [(c, "input") for c in ("elstm", "elstm2", "lstm")]
# every kernel that runs each cell and gate mode, each once, the reference too
CELL_GATE_KERNELS = [(c, g, k) for c, g in CELL_GATES for k in fast_kernels(c, g) + ("reference",)]
STATE_CELL_GATES = [c for c in CELL_GATES if c[0] in ("elstm", "elstm2", "lstm", "solstm")]


def random_inputs(device, lengths=(4, 1, 3), width=3):
    torch.manual_seed(1)
    x = torch.randn(len(lengths), max(lengths), width, dtype=torch.float64, device=device)
    lengths = torch.tensor(lengths)
    mask = torch.arange(x.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)
    return x * mask.unsqueeze(2).to(x), lengths


def perturb(module):
    """Move every parameter off its initial value so s != 1, b != 0 are checked too."""
    with torch.no_grad():
        for p in module.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return module


@pytest.mark.parametrize("cell,gates,kernel", CELL_GATE_KERNELS)
@pytest.mark.parametrize("reverse", [False, True])
def test_gradcheck_recurrence(cell, gates, kernel, reverse, device):
    rec = perturb(Recurrence(cell=cell, input_width=3, hidden_width=2, period=2, gates=gates,
                             reverse=reverse).double().to(device))
    x, lengths = random_inputs(device)
    with using(kernel, rec, lengths):
        assert rec.kernel_for(lengths).kernel == kernel
        gradcheck_input_and_parameters(rec, x, lengths)


def gradcheck_input_and_parameters(model, x, lengths):
    """gradcheck with respect to the input, then to every parameter (through
    torch.func, so that every weight's gradient is verified too)."""
    assert torch.autograd.gradcheck(lambda x: model(x, lengths), (x.clone().requires_grad_(),))
    names = [n for n, _ in model.named_parameters()]
    values = tuple(p.detach().clone().requires_grad_() for p in model.parameters())

    def by_params(*vals):
        return torch.func.functional_call(model, dict(zip(names, vals)), (x.detach(), lengths))

    assert torch.autograd.gradcheck(by_params, values)


@pytest.mark.parametrize("gates", ["recurrent", "input"])
def test_gradcheck_dbrnn(gates, device):
    model = perturb(DBRNN(cell="elstm", input_width=3, width=4, period=2, gates=gates)).double().to(device)
    x, lengths = random_inputs(device)
    gradcheck_input_and_parameters(model, x, lengths)


def test_gradcheck_stacked_encoder(device):
    model = perturb(RecurrentEncoder(cell="elstm2", input_width=3, width=4, depth=2, period=3))
    model = model.double().to(device)
    x, lengths = random_inputs(device)
    assert torch.autograd.gradcheck(lambda x: model(x, lengths), (x.requires_grad_(),))


@pytest.mark.parametrize("cell,gates", CELL_GATES)
def test_batch_invariance(cell, gates, device):
    """A sequence's output is the same alone and among longer and shorter ones,
    in both directions, and however the padding is filled."""
    torch.manual_seed(2)
    model = perturb(RecurrentEncoder(cell=cell, input_width=4, width=6, gates=gates, period=3))
    model = model.to(device).eval()
    alone = torch.randn(1, 5, 4, device=device)
    batch = torch.randn(4, 9, 4, device=device) * 3  # padding filled with garbage
    batch[2, :5] = alone[0]
    lengths = torch.tensor([9, 2, 5, 7])
    y_alone = model(alone, torch.tensor([5]))
    y_batch = model(batch, lengths)
    torch.testing.assert_close(y_batch[2, :5], y_alone[0], rtol=1e-5, atol=1e-6)
    assert torch.all(y_batch[2, 5:] == 0)
    # garbage in the padding changes nothing
    batch[2, 5:] = 100.0
    torch.testing.assert_close(model(batch, lengths), y_batch, rtol=0, atol=0)


def test_batch_invariance_dbrnn(device):
    torch.manual_seed(3)
    model = perturb(DBRNN(cell="elstm", input_width=4, width=6, period=3)).to(device).eval()
    alone = torch.randn(1, 6, 4, device=device)
    batch = torch.randn(3, 10, 4, device=device)
    batch[1, :6] = alone[0]
    y_batch = model(batch, torch.tensor([10, 6, 2]))
    torch.testing.assert_close(y_batch[1, :6], model(alone, torch.tensor([6]))[0],
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("cell", ["elstm", "elstm2"])
def test_periodic_scaling_index(cell, reverse):
    """Changing row r of s (0-based) first moves step t = r, counted in the
    direction of processing: from each sequence's own last token backwards
    for the backward direction."""
    torch.manual_seed(4)
    period, seq_len = 3, 8
    rec = perturb(Recurrence(cell=cell, input_width=2, hidden_width=3, period=period,
                             gates="input", reverse=reverse)).double()
    x = torch.randn(1, seq_len, 2, dtype=torch.float64)
    lengths = torch.tensor([seq_len])
    row = 1
    before = rec(x, lengths)
    with torch.no_grad():
        rec.scale[row] += 0.5
    after = rec(x, lengths)
    changed = (before - after).abs().amax(dim=2)[0] > 0
    if reverse:  # step t of the backward direction is position seq_len - 1 - t
        changed = changed.flip(0)
    assert changed.tolist() == (torch.arange(seq_len) >= row).tolist()


def test_periodic_scaling_exact_steps():
    """With the forget gate closed to an identity (ELSTM-II, gates="input"),
    c_t - c_(t-1) = s_ts * i_t * g_t: the increments change exactly at the steps
    with t mod Ts == r, and nowhere else."""
    torch.manual_seed(5)
    rec = Recurrence(cell="elstm2", input_width=2, hidden_width=3, period=3, gates="input").double()
    x = torch.randn(1, 8, 2, dtype=torch.float64)

    def increments():
        o_gate = rec.weight_x[6:9] @ x[0].t() + rec.bias[6:9, None]  # (N, T)
        h = rec(x, torch.tensor([8]))[0].t()  # (N, T)
        c = torch.atanh(h / torch.sigmoid(o_gate)) - rec.state_bias[:, None]
        return torch.diff(torch.cat([torch.zeros(3, 1, dtype=c.dtype), c], dim=1), dim=1)

    before = increments()
    with torch.no_grad():
        rec.scale[2] = 2.0
    after = increments()
    moved = ((after - before).abs().amax(dim=0) > 1e-9).tolist()
    assert moved == [t % 3 == 2 for t in range(8)]
    # and there they doubled
    idx = [2, 5]
    torch.testing.assert_close(after[:, idx], 2 * before[:, idx])


@pytest.mark.parametrize("cell", CELLS)
def test_long_sequence_is_finite(cell):
    torch.manual_seed(6)
    rec = RecurrentEncoder(cell=cell, input_width=8, width=8, period=100).eval()
    x = torch.randn(1, 10_000, 8)
    with torch.no_grad():
        y = rec(x, torch.tensor([10_000]))
    assert torch.isfinite(y).all()


def test_packing_layout_and_roundtrips():
    """Packed: time-major, longest first, no padding; in and out of both layouts."""
    lengths = torch.tensor([2, 0, 3, 1])
    packing = Packing(lengths, torch.device("cpu"))
    assert packing.sizes == [3, 2, 1] and packing.offsets == [0, 3, 5, 6]
    # token j of sequence b carries the value 10 * b + j
    padded = torch.tensor([[10.0 * b + j for j in range(3)] for b in range(4)]).unsqueeze(2)
    padded = padded * (torch.arange(3).unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(2)
    packed = packing.from_padded(padded)
    assert packed.squeeze(1).tolist() == [20.0, 0.0, 30.0, 21.0, 1.0, 22.0]
    assert torch.equal(packing.to_padded(packed, 3), padded)
    flat = torch.tensor([0.0, 1.0, 20.0, 21.0, 22.0, 30.0]).unsqueeze(1)  # docs in order
    assert torch.equal(packing.from_flat(flat), packed)
    assert torch.equal(packing.to_flat(packed), flat)
    reversed_ = packing.reverse(packed)
    assert reversed_.squeeze(1).tolist() == [22.0, 1.0, 30.0, 21.0, 0.0, 20.0]
    assert torch.equal(packing.reverse(reversed_), packed)


def test_flat_and_padded_inputs_agree():
    torch.manual_seed(4)
    enc = RecurrentEncoder(cell="elstm", input_width=3, width=4, depth=2).double()
    x, lengths = random_inputs("cpu", lengths=(4, 0, 1, 3))
    mask = torch.arange(x.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)
    y_padded = enc(x, lengths)
    y_flat = enc(x[mask], lengths, flat=True)
    assert torch.equal(y_flat, y_padded[mask])
    with pytest.raises(ValueError, match="Expected 8 rows"):
        enc(x[mask][:-1], lengths, flat=True)
    with pytest.raises(ValueError, match="do not fit"):
        enc(x, torch.tensor([4, 0, 1, 5]))


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"cell": "lstn"}, "'lstn'.*'elstm', 'elstm2', 'lstm', 'gru', 'srn'"),
        ({"cell": "gru", "gates": "input"}, "'gru' has no gates='input'"),
        ({"cell": "srn", "gates": "input"}, "'srn' has no gates='input'"),
        ({"cell": "lstm", "gates": "both"}, "'both'.*'recurrent', 'input'"),
        ({"cell": "elstm", "period": 0}, "period must be an integer >= 1, got 0"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        check_cell(**kwargs)


def outputs_and_grads(rec, x, lengths, kernel):
    """y, dx and every parameter's gradient of a weighted sum of y, on ``kernel``."""
    with kernels.use(kernel):
        rec.zero_grad()
        xg = x.clone().requires_grad_()
        y = rec(xg, lengths)
        weights = torch.linspace(-1, 1, y.numel(), dtype=y.dtype, device=y.device).view_as(y)
        (y * weights).sum().backward()
        return [y.detach(), xg.grad] + [p.grad.clone() for p in rec.parameters()]


@pytest.mark.parametrize("cell,gates,kernel",
                         [(c, g, k) for c, g in STATE_CELL_GATES for k in fast_kernels(c, g)])
@pytest.mark.parametrize("reverse", [False, True])
def test_fast_path_equals_reference(cell, gates, kernel, reverse, device):
    """The hand-written backward through time against autograd through cells.step."""
    rec = perturb(Recurrence(cell=cell, input_width=5, hidden_width=4, period=3, gates=gates,
                             reverse=reverse).double().to(device))
    x, lengths = random_inputs(device, lengths=(6, 2, 9, 9, 1, 0), width=5)
    with using(kernel, rec, lengths):
        got = outputs_and_grads(rec, x, lengths, kernel)
    want = outputs_and_grads(rec, x, lengths, "reference")
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)


def test_dbrnn_heads_combine_as_weighted_sum():
    """p = w_f * p^f + w_b * p^b (Eq. 42), and forward() returns p."""
    torch.manual_seed(7)
    model = perturb(DBRNN(cell="elstm", input_width=3, width=4, period=2)).double().eval()
    x, lengths = random_inputs("cpu")
    packing = Packing(lengths, x.device)
    packed = packing.from_padded(x)
    fwd, bwd = model.run_pair(packed, packing)
    pool = model.upper.layer.pool
    combined = pool.weight_forward * fwd + pool.weight_backward * bwd
    assert combined.shape == fwd.shape == bwd.shape == (8, 4)
    torch.testing.assert_close(model.run(packed, packing), combined)
    torch.testing.assert_close(model(x, lengths), packing.to_padded(combined, x.shape[1]))
    # the upper forward RNN is the upper backward one's mirror image: each reads
    # the lower layer in its own direction
    assert not torch.allclose(fwd, bwd)


@pytest.mark.parametrize("cell,gates,kernel,products", [
    (c, g, k, p) for c, g in STATE_CELL_GATES for k in fast_kernels(c, g, float32=True)
    for p in ("onednn", "torch") if not (k == "cpp-onednn" and p == "torch")])
@pytest.mark.parametrize("hidden", [19, 32])
def test_float32_fast_path_matches_float64_reference(cell, gates, kernel, products, hidden,
                                                     monkeypatch):
    """float32 takes its own paths (oneDNN products, a reordered weight at every
    step even on a problem this small, vectorised float kernels with a ragged
    tail when the width is not a multiple of the vector width); they must agree
    with the float64 reference to float32 precision."""
    from spacy_elstm.pytorch.kernels import onednn

    if products == "torch":
        monkeypatch.setenv("SPACY_ELSTM_NO_ONEDNN", "1")
    elif onednn.unavailable():
        pytest.skip(f"oneDNN products: {onednn.unavailable()}")
    rec = perturb(Recurrence(cell=cell, input_width=24, hidden_width=hidden, period=3,
                             gates=gates))
    torch.manual_seed(3)
    x = torch.randn(5, 11, 24)
    lengths = torch.tensor([11, 4, 7, 1, 11])
    x = x * (torch.arange(11).unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(2)
    with using(kernel, rec, lengths):
        assert rec.kernel_for(lengths).products == products
        got = outputs_and_grads(rec, x, lengths, kernel)
    want = outputs_and_grads(rec.double(), x.double(), lengths, "reference")
    for a, b in zip(got, want):
        torch.testing.assert_close(a.double(), b, rtol=1e-4, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["avx2", "portable"])
def test_other_instruction_set_builds(variant, monkeypatch):
    """The kernels as a machine with fewer vector instructions builds them
    (the suite itself runs the best variant this machine has)."""
    from spacy_elstm.pytorch.kernels import extension

    if variant not in extension.supported_variants():
        pytest.skip(f"this machine cannot run {variant}")
    monkeypatch.setattr(extension, "_module", extension.build(variant))
    monkeypatch.setattr(extension, "_tried", True)
    for cell, gates in [("elstm", "recurrent"), ("elstm2", "recurrent"), ("lstm", "input")]:
        for dtype, tol in ((torch.float32, 1e-4), (torch.float64, 1e-10)):
            rec = perturb(Recurrence(cell=cell, input_width=24, hidden_width=19, period=3,
                                     gates=gates).to(dtype))
            x, lengths = torch.randn(5, 11, 24, dtype=dtype), torch.tensor([11, 4, 7, 1, 11])
            results = [outputs_and_grads(rec, x, lengths, k) for k in ("cpp", "reference")]
            for a, b in zip(*results):
                torch.testing.assert_close(a, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("kernel", ["cpp-onednn", "cpp", "torch"])
def test_batch_of_one_token_sequences_trains(kernel):
    """Every sequence one token long: no step past the first, so the recurrent
    weight's gradient is a product over no rows (which oneDNN refuses); it is zero."""
    rec = Recurrence(cell="elstm", input_width=6, hidden_width=8)
    lengths = torch.tensor([1, 1, 1])
    x = torch.randn(3, 1, 6)
    with using(kernel, rec, lengths):
        rec(x, lengths).sum().backward()
    assert torch.equal(rec.weight_h.grad, torch.zeros_like(rec.weight_h))
    assert rec.weight_x.grad.abs().sum() > 0


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("reverse", [False, True])
def test_a_projected_input_runs_as_the_input_it_was_projected_from(cell, reverse):
    """run_state(project(x), projected=True) is run_state(x): outputs, states and
    gradients, from a given state and step (what the seq2seq decoder does with its
    table of projected label embeddings)."""
    torch.manual_seed(0)
    layer = Recurrence(cell=cell, input_width=3, hidden_width=4, period=3, reverse=reverse)
    lengths = torch.tensor([3, 0, 2])
    packing = Packing(lengths, torch.device("cpu"))
    x = torch.randn(packing.n_tokens, 3, requires_grad=True)
    h = torch.randn(3, 4)
    c = torch.randn(3, 4) if layer.spec.cell_state else None
    runs = []
    for projected in (False, True):
        layer.zero_grad()
        x.grad = None
        inputs = layer.project(x) if projected else x
        y, (h_out, c_out) = layer.run_state(inputs, packing, (h, c), start=2, projected=projected)
        (y.sum() + h_out.sum()).backward()
        runs.append((y, h_out, x.grad.clone(), layer.weight_x.grad.clone()))
    for a, b in zip(*runs):
        torch.testing.assert_close(a, b)
    with pytest.raises(ValueError, match="expected a projected input of width"):
        layer.run_state(x, packing, projected=True)
