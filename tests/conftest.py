import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

SAMPLE = Path(__file__).resolve().parent.parent / "assets" / "ud-ewt-sample"


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


@pytest.fixture(scope="session")
def sample_corpus(tmp_path_factory):
    """The committed EWT sample's train and dev parts in spaCy's binary format
    (`spacy convert --converter conllu -n 10`): train.spacy and dev.spacy."""
    out = tmp_path_factory.mktemp("sample-corpus")
    for split in ("train", "dev"):
        result = subprocess.run([sys.executable, "-m", "spacy", "convert",
                                 str(SAMPLE / f"{split}.conllu"), str(out), "--converter",
                                 "conllu", "-n", "10"], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(autouse=True, scope="session")
def _derived_splits_in_a_temporary_cache(tmp_path_factory):
    """Splits derived by ud_splits go to a temporary folder, not the user's cache."""
    os.environ.setdefault("SPACY_ELSTM_CACHE", str(tmp_path_factory.mktemp("cache")))
