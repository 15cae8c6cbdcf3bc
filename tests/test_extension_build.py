"""Building the C++ kernels never leaves a run stuck: a lock left by a killed build is
cleared, a lock held too long ends in the PyTorch fallback, concurrent first builds
share one build, and the fallback warnings are short and say why.

Each test uses extensions directories of its own (never the user's cache). The tests
that compile build only the ``portable`` variant, twice in all (about a minute each).
"""
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings

import pytest

from spacy_elstm.pytorch.kernels import extension

NAME = "spacy_elstm_cell_state_portable"
# get() as a user's process runs it, on the portable variant; prints what it got
CHILD = r"""
import sys, time, warnings
warnings.simplefilter("always")
from spacy_elstm.pytorch.kernels import extension
extension.supported_variants = lambda: ["portable"]
if "--read-only" in sys.argv:  # what load does where it cannot write the cache
    import errno, torch.utils.cpp_extension as cpp
    def load(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", "lock")
    cpp.load = load
start = time.monotonic()
module = extension.get()
print("RESULT", module.__name__ if module else None, f"{time.monotonic() - start:.1f}",
      flush=True)
"""
# another process building: holds our lock and torch's, for a long time
HOLDER = r"""
import fcntl, os, sys, time
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
fd = os.open(os.path.join(d, "spacy_elstm.lock"), os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, str(os.getpid()).encode())
open(os.path.join(d, "lock"), "w").close()
print("held", flush=True)
time.sleep(300)
"""


def child_env(root, timeout=240, **extra):
    env = dict(os.environ, TORCH_EXTENSIONS_DIR=str(root), SPACY_ELSTM_BUILD_TIMEOUT=str(timeout))
    env.pop("SPACY_ELSTM_NO_EXTENSION", None)
    env.update(extra)
    return env


def start_child(root, *args, **env):
    return subprocess.Popen([sys.executable, "-c", CHILD, *args], env=child_env(root, **env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc, limit):
    """stdout, stderr, the module name get() returned, and its seconds; fails on a hang."""
    try:
        out, err = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"get() still waiting after {limit} s:\n{out}\n{err}")
    assert proc.returncode == 0, out + err
    result = [line.split() for line in out.splitlines() if line.startswith("RESULT")][0]
    return out, err, (None if result[1] == "None" else result[1]), float(result[2])


def run_child(root, *args, limit=60, **env):
    return finish(start_child(root, *args, **env), limit)


def fallback_warnings(err):
    return [line for line in err.splitlines() if "UserWarning: spacy-elstm" in line]


# -- without compiling -----------------------------------------------------------------


def test_no_extension_warns_once(monkeypatch):
    monkeypatch.setenv("SPACY_ELSTM_NO_EXTENSION", "1")
    monkeypatch.setattr(extension, "_warned_off", False, raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert extension.get() is None
        assert extension.get() is None
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and "SPACY_ELSTM_NO_EXTENSION" in messages[0], messages


def test_missing_compiler_warning_is_short(tmp_path):
    """No c++ on PATH (ninja there): one short warning that leads with the cause."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ninja = shutil.which("ninja")
    if ninja:
        (bin_dir / "ninja").symlink_to(ninja)
    out, err, module, _ = run_child(tmp_path / "ext", PATH=str(bin_dir),
                                    CXX="no-such-c++-compiler")
    assert module is None
    [warning] = fallback_warnings(err)
    message = warning.split("UserWarning: ", 1)[1]
    assert "no-such-c++-compiler" in message and "not found" in message, message
    assert len(message) < 200, message


def test_build_error_cause_is_one_line():
    log = ("Error building extension 'spacy_elstm_cell_state_avx2': [1/2] c++ -MMD -MF "
           "cell_state.o.d -Werror -O3 -c cell_state.cpp -o cell_state.o\n"
           "FAILED: [code=1] cell_state.o\nc++ -MMD -MF cell_state.o.d -O3 -c cell_state.cpp\n"
           "cell_state.cpp:12:3: error: 'foo' was not declared in this scope\n   12 |   foo();\n"
           "ninja: build stopped: subcommand failed.\n")
    cause = extension._cause(RuntimeError(log))
    assert cause == "build failed: cell_state.cpp:12:3: error: 'foo' was not declared in this scope"
    assert extension._cause(RuntimeError("Ninja is required\nmore")) == "Ninja is required"


@pytest.mark.skipif(importlib.util.find_spec("fcntl") is None, reason="needs fcntl")
def test_lock_held_too_long_falls_back(tmp_path):
    """A live process holding the build longer than the bound: a notice on stderr after
    a few seconds, then one warning and the PyTorch path, no hang."""
    build_dir = tmp_path / "ext" / NAME
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(build_dir)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        out, err, module, seconds = run_child(tmp_path / "ext", timeout=6, limit=60)
    finally:
        holder.kill()
        holder.wait()
    assert module is None
    assert 6 <= seconds < 20
    assert f"waiting for another process (pid {holder.pid})" in err, err
    [warning] = fallback_warnings(err)
    assert "gave up after" in warning and "SPACY_ELSTM_BUILD_TIMEOUT" in warning, warning
    assert str(build_dir / "spacy_elstm.lock") in warning


def test_leftover_compiler_is_awaited_then_lock_cleared(tmp_path, capsys):
    """Under our lock, a torch ``lock`` is stale; a compiler its killed build left
    running (cwd the build directory) is awaited before the lock goes."""
    build_dir = tmp_path / NAME
    build_dir.mkdir()
    (build_dir / "lock").touch()
    orphan = subprocess.Popen(["sh", "-c", "sleep 2; true", "c++", "-o", "cell_state.o"], cwd=build_dir)
    try:
        time.sleep(0.2)
        assert extension._leftover_builders(str(build_dir)) == [orphan.pid]
        start = time.monotonic()
        with extension._build_lock(str(build_dir), timeout=30):
            assert not (build_dir / "lock").exists()
            assert orphan.poll() is not None
        assert time.monotonic() - start >= 1.5
    finally:
        orphan.kill()
        orphan.wait()
    assert "removed the lock an interrupted build left behind" in capsys.readouterr().err


def test_without_fcntl_an_old_lock_is_stale(tmp_path, monkeypatch):
    monkeypatch.setattr(extension, "fcntl", None)
    lock = tmp_path / "lock"
    lock.touch()
    with pytest.raises(extension.BuildTimeout):
        with extension._build_lock(str(tmp_path), timeout=0.5):
            pass
    old = time.time() - 3600
    os.utime(lock, (old, old))
    with extension._build_lock(str(tmp_path), timeout=0.5):
        assert not lock.exists()


def test_build_timeout_env(monkeypatch):
    monkeypatch.delenv("SPACY_ELSTM_BUILD_TIMEOUT", raising=False)
    assert extension.build_timeout() == extension.DEFAULT_TIMEOUT
    monkeypatch.setenv("SPACY_ELSTM_BUILD_TIMEOUT", "12.5")
    assert extension.build_timeout() == 12.5
    monkeypatch.setenv("SPACY_ELSTM_BUILD_TIMEOUT", "soon")
    assert extension.build_timeout() == extension.DEFAULT_TIMEOUT


# -- compiling -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared_build(tmp_path_factory):
    """A fresh cache holding a leftover torch ``lock`` (as a killed first build leaves
    it); two processes then start the first build at once."""
    root = tmp_path_factory.mktemp("ext")
    (root / NAME).mkdir()
    (root / NAME / "lock").touch()
    procs = [start_child(root, timeout=240) for _ in range(2)]
    results = [finish(proc, 300) for proc in procs]
    return root, results


@pytest.mark.slow
def test_stale_lock_does_not_hang(shared_build):
    root, results = shared_build
    for out, err, module, seconds in results:
        assert module == NAME, err
        assert not fallback_warnings(err), err
    assert not (root / NAME / "lock").exists()
    assert sum("removed the lock an interrupted build left behind" in r[1] for r in results) == 1


@pytest.mark.slow
def test_concurrent_first_builds_share_one_build(shared_build):
    root, results = shared_build
    assert [r[2] for r in results] == [NAME, NAME]
    log = (root / NAME / ".ninja_log").read_text()
    assert log.count("cell_state.o") == 1, log  # compiled once
    assert any("waiting for another process" in r[1] for r in results)


@pytest.mark.slow
def test_prebuilt_kernels_in_read_only_cache(shared_build, tmp_path):
    """A cache that cannot be written still serves the kernels built there for this
    source; a build of another source there is not used."""
    root, _ = shared_build
    copy = tmp_path / "ro"
    shutil.copytree(root, copy)
    out, err, module, _ = run_child(copy, "--read-only")
    assert module == NAME and not fallback_warnings(err), err
    if os.geteuid() != 0:  # root writes through chmod: there only the simulation above
        mode = {p: p.stat().st_mode for p in [copy, *copy.rglob("*")]}
        for p in mode:
            p.chmod(mode[p] & ~0o222)
        try:
            out, err, module, _ = run_child(copy)
            assert module == NAME and not fallback_warnings(err), err
        finally:
            for p in mode:
                p.chmod(mode[p])
    (copy / NAME / extension.STAMP_NAME).write_text("built from another source")
    out, err, module, _ = run_child(copy, "--read-only")
    assert module is None
    [warning] = fallback_warnings(err)
    assert "Permission denied" in warning


@pytest.mark.slow
def test_first_build_killed_by_sigterm(tmp_path):
    """SIGTERM to a process (and its build) in its first build: the next one clears the
    lock it left and builds."""
    root = tmp_path / "ext"
    proc = subprocess.Popen([sys.executable, "-c", CHILD], env=child_env(root),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while not (root / NAME / "lock").exists():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.1)
    time.sleep(5)  # compiling
    os.killpg(proc.pid, signal.SIGTERM)
    proc.communicate(timeout=30)
    assert (root / NAME / "lock").exists()  # what made every later run wait forever
    assert not (root / NAME / f"{NAME}.so").exists()
    out, err, module, seconds = run_child(root, timeout=240, limit=300)
    assert module == NAME and not fallback_warnings(err), err
    assert "removed the lock an interrupted build left behind" in err
