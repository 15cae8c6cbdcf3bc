"""Training repeats: the same config and seed on the same machine give the same
pipeline, bit for bit, so a study's seeds differ by their seed alone (a run trained
again on another machine or other libraries may still come out otherwise)."""
import os
import subprocess
import sys
from pathlib import Path

import srsly

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs" / "raw" / "elstm_brnn.cfg"


def _train(corpus: Path, output: Path) -> Path:
    """The quick start's raw-text pipeline trained 20 steps on the sample, its
    senter's models one epoch each, one thread."""
    result = subprocess.run(
        [sys.executable, "-m", "spacy", "train", str(CONFIG), "--output", str(output),
         "--paths.train", str(corpus / "train.spacy"), "--paths.dev", str(corpus / "dev.spacy"),
         "--training.max_steps", "20", "--training.eval_frequency", "10",
         "--initialize.components.elstm_senter.epochs", "1",
         "--initialize.components.elstm_senter.word_epochs", "1"],
        capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert result.returncode == 0, result.stderr[-2000:]
    return output / "model-last"


def _untimed(data: bytes):
    """A saved file's bytes without the times it records (``"seconds": 0.8`` in
    what a senter's model learned): msgpack and JSON read and written again, other
    bytes as they are."""
    def drop(value):
        if isinstance(value, dict):
            return {k: drop(v) for k, v in value.items() if not str(k).endswith("seconds")}
        if isinstance(value, list):
            return [drop(v) for v in value]
        return value

    for loads, dumps in ((srsly.msgpack_loads, srsly.msgpack_dumps),
                         (srsly.json_loads, srsly.json_dumps)):
        try:
            return dumps(drop(loads(data)))
        except Exception:
            continue
    return data


def test_the_same_seed_trains_the_same_pipeline_bit_for_bit(sample_corpus, tmp_path):
    first, second = (_train(sample_corpus, tmp_path / name) for name in ("first", "second"))
    # every learned file: the components' weights, the tokenizer, the vocabulary's strings
    learned = sorted(p.relative_to(first) for p in first.rglob("*")
                     if p.is_file() and p.name not in ("meta.json", "config.cfg"))
    assert any(p.parts[0] == "elstm_senter" for p in learned)
    assert any(p.parts[0] == "parser" for p in learned)
    for path in learned:
        one, two = (first / path).read_bytes(), (second / path).read_bytes()
        assert one == two or _untimed(one) == _untimed(two), path
