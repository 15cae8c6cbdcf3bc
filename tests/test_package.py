"""A trained pipeline packaged as a wheel installs and loads in a fresh environment."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline_utils import trained_nlp

ROOT = Path(__file__).parent.parent
TEXTS = ["I like green eggs", "She reads long books today"]


def run(*args, **kwargs):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{args}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.mark.slow
def test_packaged_pipeline_loads_in_fresh_venv(tmp_path):
    nlp, _ = trained_nlp("dbrnn", n_iter=5)
    nlp.meta["name"] = "elstm_test"
    nlp.meta["version"] = "0.0.1"
    nlp.to_disk(tmp_path / "pipeline")
    expected = [[(t.tag_, t.head.i, t.dep_) for t in doc] for doc in nlp.pipe(TEXTS)]

    dist = tmp_path / "dist"
    (tmp_path / "packages").mkdir()
    run(sys.executable, "-m", "spacy", "package", tmp_path / "pipeline", tmp_path / "packages",
        "--build", "wheel", "--force")
    wheels = list((tmp_path / "packages").glob("*/dist/*.whl"))
    assert len(wheels) == 1, wheels
    meta = json.loads(next((tmp_path / "packages").glob("*/meta.json")).read_text())
    # spacy package found the plugin from the registered functions and requires it
    assert any(r.startswith("spacy-elstm") for r in meta["requirements"]), meta["requirements"]
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", dist, ROOT)

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    py = venv / "bin" / "python"
    run(py, "-m", "pip", "install", "-q", "torch==2.13.0")
    run(py, "-m", "pip", "install", "-q", "--find-links", dist, wheels[0])
    code = (
        "import json, sys, spacy\n"
        "nlp = spacy.load('en_elstm_test')\n"
        "assert 'spacy_elstm' in sys.modules\n"
        f"docs = list(nlp.pipe({TEXTS!r}))\n"
        "print(json.dumps([[(t.tag_, t.head.i, t.dep_) for t in d] for d in docs]))\n"
    )
    out = run(py, "-c", code, cwd=tmp_path)
    got = json.loads(out.strip().splitlines()[-1])
    assert [[tuple(t) for t in doc] for doc in got] == expected
