"""Pipelines move between CPU and GPU: trained on one, loaded and run on the
other, with the same predictions. Runs only where CUDA is present."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from pipeline_utils import make_examples, trained_nlp

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
TESTS = Path(__file__).resolve().parent
ENCODERS = ["elstm", "elstm-input", "dbrnn"]

PREDICT = """
import json, spacy
from spacy.tokens import Doc
docs = [Doc(nlp.vocab, words=words) for words in WORDS]
print(json.dumps([[[t.tag_, t.head.i] for t in doc] for doc in nlp.pipe(docs)]))
"""


def predictions(nlp, words):
    from spacy.tokens import Doc

    docs = [Doc(nlp.vocab, words=w) for w in words]
    return [[[t.tag_, t.head.i] for t in doc] for doc in nlp.pipe(docs)]


def run_python(code: str) -> list:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=TESTS)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", ENCODERS)
def test_cpu_trained_pipeline_runs_on_gpu(name, tmp_path):
    nlp, _ = trained_nlp(name)
    words = [e.reference.text.split() for e in make_examples(nlp)]
    nlp.to_disk(tmp_path / "model")
    on_gpu = run_python(
        "import spacy\nspacy.require_gpu(0)\n"
        f"nlp = spacy.load({str(tmp_path / 'model')!r})\nWORDS = {words!r}\n" + PREDICT)
    assert on_gpu == predictions(nlp, words)


@pytest.mark.parametrize("name", ENCODERS)
def test_gpu_trained_pipeline_runs_on_cpu(name, tmp_path):
    path = tmp_path / "model"
    on_gpu = run_python(
        "import spacy\nspacy.require_gpu(0)\nfrom pipeline_utils import make_examples, "
        f"trained_nlp\nnlp, _ = trained_nlp({name!r})\nnlp.to_disk({str(path)!r})\n"
        "WORDS = [e.reference.text.split() for e in make_examples(nlp)]\n" + PREDICT)
    import spacy

    nlp = spacy.load(path)
    words = [e.reference.text.split() for e in make_examples(nlp)]
    assert predictions(nlp, words) == on_gpu
