import pytest
import torch


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", help="also run tests marked slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


DEVICES = ["cpu"] + (["cuda:0"] if torch.cuda.is_available() else [])


@pytest.fixture(params=DEVICES)
def device(request):
    return torch.device(request.param)


@pytest.fixture(params=["cpp", "torch"])
def kernels(request, monkeypatch):
    """Run the fast path on the C++ kernels (CPU only) or on PyTorch ops."""
    from spacy_elstm.pytorch import extension

    if request.param == "torch":
        monkeypatch.setenv("SPACY_ELSTM_NO_EXTENSION", "1")
        assert extension.get() is None
    else:
        assert extension.get() is not None, "the C++ kernels failed to build"
    return request.param
