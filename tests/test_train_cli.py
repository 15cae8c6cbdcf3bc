"""`spacy train` with the shipped configs on the committed EWT sample: a few
steps on the CPU, and on the GPU (`--gpu-id 0`) where CUDA is present; the
trained pipeline then loads and parses."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "assets" / "ud-ewt-sample"
GPUS = [-1] + ([0] if torch.cuda.is_available() else [])


def run(*args, **kwargs):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{args}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus")
    for split in ("train", "dev"):
        run(sys.executable, "-m", "spacy_elstm", "convert", SAMPLE / f"{split}.conllu", out,
            "--n-sents", "10")
    return out


@pytest.mark.slow
@pytest.mark.parametrize("gpu", GPUS)
@pytest.mark.parametrize("config", ["elstm_brnn", "experiments/encoders/dbrnn_elstm"])
def test_spacy_train(config, gpu, corpus, tmp_path):
    log = tmp_path / "log.jsonl"
    run(sys.executable, "-m", "spacy", "train", ROOT / "configs" / f"{config}.cfg",
        "--output", tmp_path / "model", "--gpu-id", gpu,
        "--paths.train", corpus / "train.spacy", "--paths.dev", corpus / "dev.spacy",
        "--paths.train_log", log, "--training.max_steps", 6, "--training.eval_frequency", 3)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["step"] for line in lines] == [0, 3, 6]
    code = ("import spacy\n"
            f"nlp = spacy.load({str(tmp_path / 'model' / 'model-last')!r})\n"
            "doc = nlp('The parser reads this sentence.')\n"
            "print(len(doc), all(t.head is not None for t in doc))\n")
    assert run(sys.executable, "-c", code).split() == ["6", "True"]
