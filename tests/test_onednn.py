"""The oneDNN products against float64 references, and their guard."""
import pytest
import torch

from spacy_elstm.pytorch.kernels import onednn


@pytest.fixture
def onednn_present():
    why = onednn.unavailable()
    if why is not None:
        pytest.skip(f"oneDNN products unavailable here: {why}")


@pytest.mark.parametrize("m,k,n", [(1, 3, 5), (37, 16, 64), (300, 24, 96)])
def test_products_match_float64(m, k, n, onednn_present):
    torch.manual_seed(0)
    x, w, b, d_y = torch.randn(m, k), torch.randn(n, k), torch.randn(n), torch.randn(m, n)
    x64, w64, b64, d_y64 = (t.double() for t in (x, w, b, d_y))
    close = dict(rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(onednn.linear(x, w, b, onednn=True).double(), x64 @ w64.t() + b64, **close)
    torch.testing.assert_close(onednn.linear(x, w, onednn=True).double(), x64 @ w64.t(), **close)
    torch.testing.assert_close(onednn.weight_grad(d_y, x).double(), d_y64.t() @ x64, **close)
    packed = onednn.reorder_weight(w, m)
    got = torch.ops.mkldnn._linear_pointwise(x, packed, None, "none", [], "")
    torch.testing.assert_close(got.double(), x64 @ w64.t(), **close)


@pytest.mark.parametrize("use_onednn", [True, False], ids=["onednn", "torch"])
def test_linear_function_gradients(use_onednn, monkeypatch):
    """The hand-written backward of Linear against autograd, on either product."""
    if use_onednn and onednn.unavailable():
        pytest.skip(f"oneDNN products unavailable here: {onednn.unavailable()}")
    if not use_onednn:
        monkeypatch.setenv("SPACY_ELSTM_NO_ONEDNN", "1")
    torch.manual_seed(1)
    x = torch.randn(9, 6, requires_grad=True)
    w = torch.randn(8, 6, requires_grad=True)
    b = torch.randn(8, requires_grad=True)
    d_y = torch.randn(9, 8)
    onednn.Linear.apply(x, w, b).backward(d_y)
    got = [t.grad.clone() for t in (x, w, b)]
    x64, w64, b64 = (t.detach().double().requires_grad_() for t in (x, w, b))
    torch.nn.functional.linear(x64, w64, b64).backward(d_y.double())
    for a, t in zip(got, (x64, w64, b64)):
        torch.testing.assert_close(a.double(), t.grad, rtol=1e-4, atol=1e-4)
    assert torch.autograd.gradcheck(onednn.Linear.apply, (x64, w64, b64))


def test_a_broken_operator_falls_back_with_one_warning(monkeypatch):
    """A private operator whose schema changed (here: one that raises) is
    caught by the probe: one warning, then PyTorch's own products."""
    def broken():
        raise RuntimeError("schema mismatch for mkldnn::_linear_pointwise")

    monkeypatch.setattr(onednn, "_ops", broken)
    monkeypatch.setattr(onednn, "_probed", False)
    monkeypatch.delenv("SPACY_ELSTM_NO_ONEDNN", raising=False)
    with pytest.warns(UserWarning, match="oneDNN products unavailable.*schema mismatch"):
        why = onednn.unavailable()
    if not torch.backends.mkldnn.is_available():
        pytest.skip("this PyTorch build has no oneDNN, so there is nothing to probe")
    assert "schema mismatch" in why
    assert not onednn.usable(torch.zeros(2, 2))
    x, w = torch.randn(3, 4), torch.randn(5, 4)
    torch.testing.assert_close(onednn.linear(x, w), x @ w.t())


def test_a_wrong_answer_is_caught(monkeypatch):
    real = onednn._ops()

    def wrong():
        linear, binary, reorder = real
        return (lambda *a: linear(*a) * 2), binary, reorder

    monkeypatch.setattr(onednn, "_ops", wrong)
    if not torch.backends.mkldnn.is_available():
        pytest.skip("this PyTorch build has no oneDNN")
    assert "wrong answer" in onednn._run_probe()
