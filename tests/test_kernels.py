"""The kernel registry: one decision, with its reason, that tests and users can ask for."""
import importlib.util
import logging

import pytest
import torch

from spacy_elstm.pytorch import Recurrence, RecurrentEncoder, kernels
from spacy_elstm.pytorch.kernels import onednn


def layer(cell="elstm", gates="recurrent", width=8):
    return Recurrence(cell=cell, input_width=width, hidden_width=width, gates=gates, period=3)


def test_every_kernel_is_explained():
    problem = layer().problem_for(torch.tensor([5, 3]), dtype=torch.float64)
    reasons = kernels.explain(problem)
    assert list(reasons) == list(kernels.KERNELS)
    assert reasons["reference"] is None
    assert reasons["scan"] == "cannot: it runs gates='input' only"
    assert reasons["cpp-onednn"].startswith("cannot: the oneDNN products take float32")


@pytest.mark.parametrize("cell,gates,allowed", [
    ("gru", "recurrent", {"reference"}),
    ("srn", "recurrent", {"reference"}),
    ("elstm", "input", {"cpp", "scan"}),
    ("elstm2", "recurrent", {"cpp", "torch"}),
])
def test_choice_follows_the_cell_and_gates(cell, gates, allowed):
    choice = layer(cell, gates).kernel_for(torch.tensor([4, 2]))
    assert choice.kernel in allowed and choice.reason


def test_cpu_kernels_need_the_cpu():
    problem = kernels.Problem(layer().spec, "recurrent", torch.device("cuda", 0), torch.float32,
                              steps=5, tokens=10, hidden=8)
    assert "run on the CPU, not cuda" in kernels.explain(problem)["cpp"]
    on_gpu = "triton" if importlib.util.find_spec("triton") else "torch"
    assert kernels.select(problem).kernel == on_gpu
    assert kernels.select(problem).products == "torch"


def test_environment_rules_out_the_cpp_kernels(monkeypatch):
    monkeypatch.setenv("SPACY_ELSTM_NO_EXTENSION", "1")
    choice = layer().kernel_for(torch.tensor([3]))
    assert choice.kernel == "torch"
    assert "SPACY_ELSTM_NO_EXTENSION is set" in choice.reason


def test_products_follow_dtype_and_environment(monkeypatch):
    rec = layer()
    assert rec.kernel_for(torch.tensor([3]), dtype=torch.float64).products == "torch"
    monkeypatch.setenv("SPACY_ELSTM_NO_ONEDNN", "1")
    assert rec.kernel_for(torch.tensor([3])).products == "torch"


@pytest.mark.parametrize("batch,length,width,onednn_pays", [
    (64, 50, 256, True),     # 16.8M multiply-adds per step
    (1, 30_000, 32, False),  # 4,096 per step: the long-input cliff of before
    (1, 50_000, 128, False),
    (32, 25, 128, True),
    (1, 3, 512, False),      # large steps, but too few to repay the reordering
])
def test_onednn_steps_only_where_each_step_pays(batch, length, width, onednn_pays):
    rec = layer(width=width)
    problem = rec.problem_for(torch.full((batch,), length))
    assert (kernels.KERNELS["cpp-onednn"].pays(problem) is None) == onednn_pays


def test_forcing_by_name():
    rec, lengths = layer(), torch.tensor([4, 1])
    with kernels.use("reference"):
        assert rec.kernel_for(lengths) == kernels.Choice(
            "reference", rec.kernel_for(lengths).products, "forced")
    with kernels.use("scan"), pytest.raises(ValueError, match="'scan' cannot run elstm/recurrent"):
        rec(torch.randn(2, 4, 8), lengths)
    with pytest.raises(ValueError, match="Unknown kernel 'fast'.*'cpp-onednn', 'cpp', 'triton', 'torch'"):
        with kernels.use("fast"):
            pass


def test_forcing_from_the_environment(monkeypatch):
    monkeypatch.setenv("SPACY_ELSTM_KERNEL", "reference")
    assert layer().kernel_for(torch.tensor([2])).kernel == "reference"
    monkeypatch.setenv("SPACY_ELSTM_KERNEL", "turbo")
    with pytest.raises(ValueError, match="Unknown kernel 'turbo'"):
        layer().kernel_for(torch.tensor([2]))


def test_forced_kernel_is_the_one_that_runs(monkeypatch):
    """Not only what select says: the forced kernel's code is what runs."""
    calls = []
    real = kernels.reference.loop
    monkeypatch.setattr(kernels.reference, "loop", lambda *a: calls.append(1) or real(*a))
    enc = RecurrentEncoder(cell="lstm", input_width=4, width=4, depth=2)
    x, lengths = torch.randn(2, 3, 4), torch.tensor([3, 2])
    enc(x, lengths)
    assert calls == []
    with kernels.use("reference"):
        enc(x, lengths)
    assert len(calls) == 4  # two layers, two directions


def test_choice_is_logged(caplog):
    with caplog.at_level(logging.DEBUG, logger="spacy_elstm.kernels"):
        layer("gru").kernel_for(torch.tensor([3]))
    assert any("gru/recurrent" in r.message and ": reference," in r.message
               for r in caplog.records)


def test_a_failing_onednn_step_product_falls_back_to_cpp(monkeypatch):
    """The C++ kernels' own oneDNN call (looked up by schema in C++) is probed
    once; a failure gives one warning and the C++ kernels' own products."""
    rec = layer(width=256)
    lengths = torch.full((64,), 50)
    if kernels.KERNELS["cpp-onednn"].cannot(rec.problem_for(lengths)):
        pytest.skip(kernels.KERNELS["cpp-onednn"].cannot(rec.problem_for(lengths)))
    monkeypatch.setattr(kernels, "_probed", False)
    monkeypatch.setattr(onednn, "reorder_weight",
                        lambda *a: (_ for _ in ()).throw(RuntimeError("no such schema")))
    with pytest.warns(UserWarning, match="oneDNN products failed on a probe.*no such schema"):
        choice = rec.kernel_for(lengths)
    assert choice.kernel == "cpp"
