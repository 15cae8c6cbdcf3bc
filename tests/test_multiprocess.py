"""``nlp.pipe(texts, n_process=2)`` after the parent has run the pipeline: the
forked workers used to wait forever in torch's OpenMP pool (see
spacy_elstm/parsing/processes.py). Run in a fresh process, killed with its workers
if it hangs."""
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 120

SCRIPT = """
import os, sys
import numpy, spacy, torch
from tests.fixtures.make_compat_pipelines import TEXTS

def main(path):
    torch.set_num_threads(2)
    nlp = spacy.load(path)  # no import of spacy_elstm: the entry points bring it
    nlp("warm up text")  # the parent runs torch's thread pool before forking
    texts = TEXTS * 3
    want = list(nlp.pipe(texts))
    got = list(nlp.pipe(texts, n_process=2, batch_size=4))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert [t.text for t in g] == [t.text for t in w]
        assert [t.tag_ for t in g] == [t.tag_ for t in w]
        assert [t.head.i for t in g] == [t.head.i for t in w]
        assert [t.dep_ for t in g] == [t.dep_ for t in w]
        numpy.testing.assert_allclose(g.tensor, w.tensor, rtol=1e-4, atol=1e-5)
    from spacy_elstm.parsing import processes as multiprocess
    assert multiprocess.installed()
    read, write = os.pipe()
    if os.fork() == 0:
        os.write(write, str(torch.get_num_threads()).encode())
        os._exit(0)
    os.close(write)
    print("child threads", os.read(read, 16).decode(), "parent threads", torch.get_num_threads())
    print("pipe ok", len(got))

if __name__ == "__main__":
    main(sys.argv[1])
"""


@pytest.mark.parametrize("name", ["brnn", "dbrnn"])
def test_pipe_n_process_after_warm_up(name, tmp_path):
    script = tmp_path / "pipe.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("OMP_NUM_THREADS", None)  # one thread would hide the bug
    proc = subprocess.Popen(
        [sys.executable, str(script), str(ROOT / "tests" / "fixtures" / "compat" / name)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the workers too
        proc.communicate()
        pytest.fail(f"nlp.pipe(n_process=2) hung (no result in {TIMEOUT} s)")
    assert proc.returncode == 0, out + err
    assert "pipe ok" in out
    assert "child threads 1 parent threads 2" in out
