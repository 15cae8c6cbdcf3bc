"""scripts/gpu_check.sh, the prepared device check of issue 45, end to end on
the CPU with a tiny budget: every step runs and writes what the device call
brings back (at most 8 files, each JSON where it holds results)."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from lab.report import gpu
from spacy_elstm.treebanks.scoring import SCORER_ASSET, SCORER_ENV

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "assets" / "ud-ewt-sample"
SCRIPT = Path(os.environ.get(SCORER_ENV) or ROOT / SCORER_ASSET)


@pytest.mark.slow
def test_the_gpu_check_runs_every_step_on_the_cpu(tmp_path):
    # as scripts/gpu_bundle.sh packs a treebank other than EWT: its files' stem and its
    # language in treebank.env (here the sample under another name, built as xx)
    data = tmp_path / "data"
    for split in ("train", "dev"):
        subprocess.run(["python", "-m", "spacy_elstm", "convert", str(SAMPLE / f"{split}.conllu"),
                        str(data), "--n-sents", "10"], check=True, capture_output=True)
        (data / f"{split}.spacy").rename(data / f"xx_sample-ud-{split}.spacy")
    shutil.copy(SAMPLE / "dev.conllu", data / "xx_sample-ud-dev.conllu")
    (data / "treebank.env").write_text("STEM=xx_sample\nNLP_LANG=xx\n")
    if SCRIPT.is_file():
        shutil.copy(SCRIPT, data / "conll18_ud_eval.py")
    out = tmp_path / "out"
    env = {**os.environ, "GPU_ID": "-1", "TRAIN_SECONDS": "300", "PROFILE_WORDS": "400",
           "BATCH_WORDS": "200", "BENCH_WORDS": "300", "TESTS": "tests/test_gpu.py",
           "DATA": str(data), "OMP_NUM_THREADS": "1",
           "TRAIN_OVERRIDES": "--training.max_steps 4 --training.eval_frequency 2",
           "RAW_STEPS": "2",
           # one pass of each of the senter's models, not 8 times 30 of the small sample's
           "RAW_OVERRIDES": "--initialize.components.elstm_senter.epochs 1 "
                            "--initialize.components.elstm_senter.word_epochs 1 "
                            "--initialize.components.elstm_senter.min_epoch_sentences 0"}
    result = subprocess.run(["bash", str(ROOT / "scripts" / "gpu_check.sh"), str(out)],
                            env=env, capture_output=True, text=True, timeout=1200)
    steps = {s["step"]: s["rc"] for s in map(json.loads, (out / "steps.jsonl").read_text()
                                                  .splitlines())}
    expected = {"install": 0, "environment": 0, "tests": 0, "profile-train": 0, "train": 0,
                "score": 0 if SCRIPT.is_file() else 1, "bench": 0, "raw-train": 0,
                "raw-score": 0 if SCRIPT.is_file() else 1}
    assert steps == expected, (out / "gpu-check.log").read_text()[-3000:]
    assert tuple(steps) == gpu.STEPS  # the report lists the steps a cut call did not finish
    assert result.returncode == (0 if SCRIPT.is_file() else 1)
    assert f"treebank: {data}/xx_sample-ud-*, language xx" in (out / "gpu-check.log").read_text()
    files = sorted(p.name for p in out.iterdir())
    assert len(files) <= 8
    assert json.loads((out / "environment.json").read_text())["gpu"] is None
    profile = json.loads((out / "profile-train-gpu.json").read_text())
    seconds = profile["results"]["gpu_best_elstm"]["seconds"]
    assert profile["mode"] == "train"
    assert {"optimizer", "parser", "tok2vec/encode", "tok2vec/embed/chars:backward"} <= set(seconds)
    assert [json.loads(line)["step"] for line in (out / "train-gpu.jsonl").read_text()
            .splitlines()][-1] == 4
    bench = json.loads((out / "bench-gpu.json").read_text())
    assert {(r["name"], r["mode"]) for r in bench["rows"]} == {
        (name, mode) for name in ("cnn", "spacy_bilstm", "gpu_best_elstm")
        for mode in ("train", "predict")}
    if SCRIPT.is_file():
        assert json.loads((out / "gpu-dev.official.json").read_text())["LAS"] >= 0
        raw = json.loads((out / "raw-gpu-dev.json").read_text())
        assert raw["text_form"] == "ud" and raw["Sentences"] >= 0 and raw["words_per_second"] > 0
