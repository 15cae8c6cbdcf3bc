"""Building the C++ kernels never leaves a run stuck: a lock left by a killed build is
cleared, a lock held too long ends in the PyTorch fallback, a compiler that never
returns is stopped, concurrent first builds share one build, two installs of the same
source share one build, and the fallback warnings are short and say why.

Each test uses extensions directories of its own (never the user's cache). The tests
that compile build only the ``portable`` variant, three times in all (about a minute
each on an idle core).
"""
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings

import pytest

from spacy_elstm.pytorch.kernels import extension

NAME = extension.cache_name("portable")  # keyed by source, flags, torch, Python
# get() as a user's process runs it, on the portable variant; prints what it got
CHILD = r"""
import sys, time, warnings
warnings.simplefilter("always")
from spacy_elstm.pytorch.kernels import extension
extension.supported_variants = lambda: ["portable"]
if "--read-only" in sys.argv:  # what load does where it cannot write the cache
    import errno
    def compile(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", "lock")
    extension._compile = compile
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


def compile_notices(err):
    return [line for line in err.splitlines() if "spacy-elstm: compiling the C++ kernels" in line]


def fake_compiler(tmp_path):
    """A CXX that never returns: it records its pid and sleeps."""
    script = tmp_path / "slow-c++"
    pids = tmp_path / "compiler.pids"
    script.write_text(f"#!/bin/sh\necho $$ >> {pids}\nexec sleep 120\n")
    script.chmod(0o755)
    return script, pids


def compiler_pids(pids):
    return [int(p) for p in pids.read_text().split()] if pids.exists() else []


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


def test_key_follows_content_not_place(tmp_path, monkeypatch):
    """The build's name hashes the source's content, the flags, torch and Python, and
    not where the package lives: a copy elsewhere finds the same build."""
    import sysconfig

    import torch

    key = extension.cache_key("portable")
    copy = tmp_path / "elsewhere" / "cell_state.cpp"
    copy.parent.mkdir()
    shutil.copy(extension.SOURCE, copy)
    monkeypatch.setattr(extension, "SOURCE", copy)
    assert extension.cache_key("portable") == key
    assert extension.cache_name("portable") == NAME
    assert extension.cache_key("avx2") != key
    monkeypatch.setattr(torch, "__version__", "0.0.1")
    assert extension.cache_key("portable") != key
    monkeypatch.undo()
    monkeypatch.setattr(extension, "SOURCE", copy)
    monkeypatch.setattr(sysconfig, "get_config_var",
                        lambda name: ".cpython-399-x86_64-linux-gnu.so")
    assert extension.cache_key("portable") != key
    monkeypatch.undo()
    monkeypatch.setattr(extension, "SOURCE", copy)
    copy.write_text(copy.read_text() + "\n// changed\n")
    assert extension.cache_key("portable") != key


def test_why_a_build_runs(tmp_path):
    parts = extension.key_parts("portable")
    here = tmp_path / NAME
    why = extension._why_build("portable", str(here), parts)
    assert why == "no portable build in this cache yet"
    older = tmp_path / f"{extension.PREFIX}0123456789abcdef_portable"
    older.mkdir()
    (older / extension.STAMP_NAME).write_text(json.dumps(dict(parts, torch="2.0.0")))
    assert extension._why_build("portable", str(here), parts) == \
        f"torch 2.0.0 -> {parts['torch']}"
    (older / extension.STAMP_NAME).write_text(json.dumps(dict(parts, source="0")))
    assert extension._why_build("portable", str(here), parts) == "the source changed"
    here.mkdir()
    (here / "lock").touch()
    assert extension._why_build("portable", str(here), parts) == \
        "an earlier build there did not finish"


def test_build_that_does_not_import_is_rebuilt(tmp_path, monkeypatch, capsys):
    """A finished build whose library no longer imports (torch replaced under the same
    version): rebuilt, saying why."""
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path))
    here = tmp_path / NAME
    here.mkdir()
    stamp = dict(extension.key_parts("portable"), key=extension.cache_key("portable"),
                 variant="portable")
    (here / extension.STAMP_NAME).write_text(json.dumps(stamp))
    (here / f"{NAME}{extension._lib_ext()}").write_text("not a library")

    def compile(*args):
        assert not (here / extension.STAMP_NAME).exists()
        raise RuntimeError("compiled")

    monkeypatch.setattr(extension, "_compile", compile)
    with pytest.raises(RuntimeError, match="compiled"):
        extension.build("portable")
    [notice] = compile_notices(capsys.readouterr().err)
    assert f"in {here}: the build there does not import" in notice, notice


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs POSIX process groups")
def test_compiler_that_never_returns_is_stopped(tmp_path):
    """CXX sleeps: after SPACY_ELSTM_COMPILE_TIMEOUT the build (compiler included) is
    killed, one warning says so, and the forward runs on PyTorch ops."""
    script, pids = fake_compiler(tmp_path)
    forward = CHILD + r"""
import torch
from spacy_elstm.pytorch import Recurrence
from spacy_elstm.pytorch.packing import Packing
rec = Recurrence(cell="elstm", input_width=4, hidden_width=4, period=3)
choice = rec.kernel_for(torch.tensor([3, 2]))
y = rec.run(torch.randn(5, 4), Packing(torch.tensor([3, 2]), torch.device("cpu")))
print("FORWARD", choice.kernel, tuple(y.shape), bool(torch.isfinite(y).all()), flush=True)
"""
    proc = subprocess.Popen([sys.executable, "-c", forward],
                            env=child_env(tmp_path / "ext", CXX=str(script),
                                          SPACY_ELSTM_COMPILE_TIMEOUT="10"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err, module, seconds = finish(proc, 120)
    assert module is None
    [warning] = fallback_warnings(err)
    assert "ran over 10 s and was stopped" in warning and "SPACY_ELSTM_COMPILE_TIMEOUT" in warning
    assert len(compile_notices(err)) == 1, err
    assert "FORWARD torch (5, 4) True" in out, out + err
    assert compiler_pids(pids) and not any(extension._alive(p) for p in compiler_pids(pids))
    assert not (tmp_path / "ext" / NAME / "lock").exists()
    assert not (tmp_path / "ext" / NAME / extension.STAMP_NAME).exists()


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs POSIX process groups")
def test_build_ends_with_its_process(tmp_path):
    """The process that started a build is killed (SIGKILL, no cleanup): the compiler
    it started does not run on."""
    script, pids = fake_compiler(tmp_path)
    proc = start_child(tmp_path / "ext", CXX=str(script))
    deadline = time.monotonic() + 60
    while not compiler_pids(pids):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    proc.kill()
    proc.communicate()
    deadline = time.monotonic() + 30
    while any(extension._alive(p) for p in compiler_pids(pids)):
        assert time.monotonic() < deadline, "the compiler outlived the process that started it"
        time.sleep(0.1)


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


@pytest.mark.slow
def test_two_installs_share_one_build(tmp_path):
    """Two copies of the package (two checkouts, two virtual environments) loaded in
    turn: one compile, announced once; the other three loads print nothing and import
    the same library, which is not rebuilt; the build file names neither copy."""
    import spacy_elstm

    package = os.path.dirname(spacy_elstm.__file__)
    installs = []
    for place in ("a", "b"):
        shutil.copytree(package, tmp_path / place / "spacy_elstm",
                        ignore=shutil.ignore_patterns("__pycache__"))
        installs.append(tmp_path / place)
    root = tmp_path / "ext"
    show = CHILD + "print('FROM', extension.__file__, module.__file__, flush=True)\n"
    notices, libraries, built = [], set(), set()
    for install in installs * 2:
        env = child_env(root, PYTHONPATH=str(install))
        proc = subprocess.Popen([sys.executable, "-c", show], cwd=install, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err, module, _ = finish(proc, 600)
        [(source, library)] = [line.split()[1:] for line in out.splitlines()
                               if line.startswith("FROM")]
        assert source.startswith(str(install)), source  # this copy was imported
        assert module == NAME and not fallback_warnings(err), err
        notices += compile_notices(err)
        if not compile_notices(err):
            assert "spacy-elstm" not in err, err  # a cached load prints nothing
        libraries.add(library)
        built.add(os.stat(library).st_mtime_ns)
    assert len(notices) == 1, notices
    assert f"in {root / NAME}: no portable build in this cache yet" in notices[0]
    assert libraries == {str(root / NAME / f"{NAME}{extension._lib_ext()}")}
    assert len(built) == 1  # built once, never again
    assert str(tmp_path / "a") not in (root / NAME / "build.ninja").read_text()
