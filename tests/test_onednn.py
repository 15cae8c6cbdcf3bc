"""The oneDNN products against the plain PyTorch ones."""
import pytest
import torch

from spacy_elstm.pytorch import onednn


@pytest.fixture(params=[True, False], ids=["onednn", "torch"])
def use_onednn(request, monkeypatch):
    if not request.param:
        monkeypatch.setenv("SPACY_ELSTM_NO_ONEDNN", "1")
    return request.param


def test_enabled_only_for_float32_cpu(use_onednn):
    x = torch.zeros(2, 2)
    assert onednn.enabled(x) == (use_onednn and onednn._LINEAR is not None)
    assert not onednn.enabled(x.double())


@pytest.mark.parametrize("m,k,n", [(1, 3, 5), (37, 16, 64), (300, 24, 96)])
def test_products_match_torch(m, k, n, use_onednn, monkeypatch):
    monkeypatch.setattr(onednn, "PACK_MIN_MACS", 0)
    torch.manual_seed(0)
    x, w, b, d_y = torch.randn(m, k), torch.randn(n, k), torch.randn(n), torch.randn(m, n)
    torch.testing.assert_close(onednn.linear(x, w, b), x @ w.t() + b, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(onednn.linear(x, w), x @ w.t(), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(onednn.weight_grad(d_y, x), d_y.t() @ x, rtol=1e-4, atol=1e-4)
    packed = onednn.packed(w, [m])
    assert (packed is not None) == onednn.enabled(w)
    if packed is not None:
        got = torch.ops.mkldnn._linear_pointwise(x, packed, None, "none", [], "")
        torch.testing.assert_close(got, x @ w.t(), rtol=1e-4, atol=1e-4)


def test_linear_function_gradients(use_onednn):
    torch.manual_seed(1)
    x = torch.randn(9, 6, requires_grad=True)
    w = torch.randn(8, 6, requires_grad=True)
    b = torch.randn(8, requires_grad=True)
    d_y = torch.randn(9, 8)
    onednn.Linear.apply(x, w, b).backward(d_y)
    got = [t.grad.clone() for t in (x, w, b)]
    for t in (x, w, b):
        t.grad = None
    torch.nn.functional.linear(x, w, b).backward(d_y)
    for a, t in zip(got, (x, w, b)):
        torch.testing.assert_close(a, t.grad, rtol=1e-4, atol=1e-4)
    x64, w64, b64 = (t.detach().double().requires_grad_() for t in (x, w, b))
    assert torch.autograd.gradcheck(onednn.Linear.apply, (x64, w64, b64))


def test_small_products_are_not_packed():
    w = torch.zeros(8, 4)
    assert onednn.packed(w, [2, 1]) is None  # too few to repay the reordering
