"""The Triton kernels (``kernels.triton_cell``) against the float64 reference:
on CUDA where present, else on the CPU under the Triton interpreter, which
runs the same kernels one program after another."""
import pytest
import torch

triton = pytest.importorskip("triton")

from spacy_elstm.pytorch import Recurrence, kernels  # noqa: E402

CUDA = torch.cuda.is_available()
DEVICE = torch.device("cuda:0" if CUDA else "cpu")


@pytest.fixture(autouse=True)
def interpreter(monkeypatch):
    """Full float32 products for the comparisons with float64 (TF32, PyTorch's
    default for cuDNN's RNNs and so for these kernels, has its own test); and
    without CUDA, the interpreter, set before the kernels are first imported
    (Triton decides when it compiles a kernel's definition)."""
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", False)
    if not CUDA:
        monkeypatch.setenv("TRITON_INTERPRET", "1")
        from spacy_elstm.pytorch.kernels import triton_cell

        if not isinstance(triton_cell._forward, triton.runtime.interpreter.InterpretedFunction):
            pytest.skip("the Triton kernels were compiled before the interpreter was set")


def perturb(module):
    torch.manual_seed(5)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return module


def outputs_and_grads(rec, x, lengths, kernel):
    x = x.detach().clone().requires_grad_(True)
    rec.zero_grad()
    with kernels.use(kernel):
        y = rec(x, lengths)
        # the same weights in any dtype and on any device
        weights = torch.randn(y.shape, generator=torch.Generator().manual_seed(9),
                              dtype=torch.float64)
        (y * weights.to(y)).sum().backward()
    return [y.detach(), x.grad] + [p.grad.clone() for p in rec.parameters()]


# 19: one ragged column tile; 70: two tiles, the second ragged; on CUDA 200
# splits the columns among programs that meet at a barrier after every step
HIDDEN = [19, 70] + ([200] if CUDA else [])


@pytest.mark.parametrize("cell", ["elstm", "elstm2", "lstm"])
@pytest.mark.parametrize("hidden", HIDDEN)
@pytest.mark.parametrize("reverse", [False, True])
def test_triton_matches_float64_reference(cell, hidden, reverse):
    rec = perturb(Recurrence(cell=cell, input_width=12, hidden_width=hidden, period=3,
                             reverse=reverse))
    # 19 sequences: two blocks of rows, the second ending early; one empty
    lengths = torch.tensor([7, 3, 9, 9, 1, 0, 5, 2, 8, 8, 4, 6, 9, 1, 3, 7, 2, 9, 5])
    torch.manual_seed(3)
    x = torch.randn(len(lengths), 9, 12)
    x = x * (torch.arange(9).unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(2)
    rec = rec.to(DEVICE)
    if CUDA:  # the registry's own choice there
        assert rec.kernel_for(lengths).kernel == "triton"
    got = outputs_and_grads(rec, x.to(DEVICE), lengths, "triton")
    want = outputs_and_grads(rec.double().cpu(), x.double(), lengths, "reference")
    for a, b in zip(got, want):
        torch.testing.assert_close(a.double().cpu(), b, rtol=1e-4, atol=1e-5)


def test_triton_batch_invariance():
    """A sequence's output and its input gradient do not depend on the others in its batch."""
    rec = perturb(Recurrence(cell="elstm", input_width=8, hidden_width=24, period=2)).to(DEVICE)
    torch.manual_seed(4)
    alone = torch.randn(1, 6, 8, device=DEVICE)
    others = torch.randn(17, 10, 8, device=DEVICE)
    batch = torch.cat([others[:9], torch.nn.functional.pad(alone, (0, 0, 0, 4)), others[9:]])
    lengths = torch.tensor([10] * 9 + [6] + [3] * 8)
    got = outputs_and_grads(rec, batch, lengths, "triton")
    want = outputs_and_grads(rec, alone, torch.tensor([6]), "triton")
    torch.testing.assert_close(got[0][9, :6], want[0][0], rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(got[0][9, 6:], torch.zeros_like(got[0][9, 6:]))


def test_registry_says_where_triton_runs(monkeypatch):
    rec = Recurrence(cell="elstm", input_width=4, hidden_width=4)
    lengths = torch.tensor([3, 2])
    problem = rec.problem_for(lengths, device=torch.device("cpu"), dtype=torch.float64)
    assert "float32" in kernels.explain(problem)["triton"]
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    problem = rec.problem_for(lengths, device=torch.device("cpu"))
    assert "run on CUDA" in kernels.explain(problem)["triton"]
    gru = kernels.Problem(Recurrence(cell="gru", input_width=4, hidden_width=4).spec,
                          "recurrent", torch.device("cuda", 0), torch.float32, 3, 5, 4)
    assert "no cell state" in kernels.explain(gru)["triton"]
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    problem = rec.problem_for(lengths, device=torch.device("cpu"))
    assert kernels.explain(problem)["triton"] is None


@pytest.mark.skipif(not CUDA, reason="TF32 needs CUDA's matrix units")
def test_triton_tf32_products_stay_close():
    """With TF32 products (PyTorch's default for RNNs) the kernels stay within
    TF32's rounding of the float64 reference."""
    torch.backends.cudnn.allow_tf32 = True
    rec = perturb(Recurrence(cell="elstm", input_width=32, hidden_width=96, period=3))
    lengths = torch.tensor([30, 12, 29, 7] * 5)
    torch.manual_seed(3)
    x = torch.randn(len(lengths), 30, 32)
    got = outputs_and_grads(rec.to(DEVICE), x.to(DEVICE), lengths, "triton")
    want = outputs_and_grads(rec.double().cpu(), x.double(), lengths, "reference")
    for a, b in zip(got, want):
        a = a.double().cpu()
        assert (a - b).norm() / b.norm() < 1e-2
