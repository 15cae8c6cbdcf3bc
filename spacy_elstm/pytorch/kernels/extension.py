"""The optional C++ kernels of csrc/cell_state.cpp, compiled on first use.

Compiling needs a C++ compiler and ninja; where either is missing, or the
environment sets SPACY_ELSTM_NO_EXTENSION=1, ``get()`` returns None (with one
warning) and the cells run on the pure-PyTorch path, which computes the same thing.

Builds go through ``torch.utils.cpp_extension.load`` into PyTorch's extension
cache (``TORCH_EXTENSIONS_DIR``), one directory per variant. ``load`` guards a
directory with a plain ``lock`` file that a killed build leaves behind, after
which every later ``load`` waits forever. So ``build`` first takes its own lock,
``spacy_elstm.lock`` in that directory: an ``flock`` the OS drops when its holder
dies. Holding it, nobody else is building, so a leftover ``lock`` is stale and is
removed (once any compiler the dead build left running has ended). Waiting for
the lock says so on stderr after a few seconds and gives up after
SPACY_ELSTM_BUILD_TIMEOUT seconds (default 300), when ``get()`` falls back to
PyTorch ops with a warning. Without ``fcntl`` (Windows) a leftover ``lock`` older
than that bound counts as stale. A cache that cannot be written (or a machine
without a compiler) still serves a kernel built there before for this source.
"""
import contextlib
import errno
import hashlib
import importlib.util
import os
import platform
import re
import shlex
import shutil
import sys
import time
import warnings
from pathlib import Path
from types import ModuleType
from typing import Iterator, List, Optional

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

SOURCE = Path(__file__).parent / "csrc" / "cell_state.cpp"
_module: Optional[ModuleType] = None
_tried = False
_warned_off = False
_failure: Optional[str] = None  # why the build failed, where it did
AVX512 = ("avx512f", "avx512bw", "avx512vl", "avx512dq")  # what ATen's AVX512 kernels need
# compiler flags per instruction set, with the macros that select ATen's matching
# ``Vectorized``; best first
VARIANTS = {
    "avx512": [f"-m{f}" for f in AVX512] + ["-mfma", "-DCPU_CAPABILITY=AVX512",
                                            "-DCPU_CAPABILITY_AVX512"],
    "avx2": ["-mavx2", "-mfma", "-DCPU_CAPABILITY=AVX2", "-DCPU_CAPABILITY_AVX2"],
    "portable": ["-DCPU_CAPABILITY=DEFAULT"],
}
TIMEOUT_ENV = "SPACY_ELSTM_BUILD_TIMEOUT"
DEFAULT_TIMEOUT = 300.0  # seconds another process's build may keep us waiting
NOTICE_AFTER = 5.0  # seconds of waiting before saying what for, on stderr
LOCK_NAME = "spacy_elstm.lock"  # ours, beside torch's ``lock`` in the build directory
STAMP_NAME = "spacy_elstm.stamp"  # what the built module in the directory was built from
_POLL = 0.2


class BuildTimeout(TimeoutError):
    """Another process held the build lock longer than the bound."""


def supported_variants() -> List[str]:
    """The variants this machine can run, best first (the build is per machine)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return ["portable"]
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return ["portable"]
    variants = []
    if all(f" {f}" in flags for f in AVX512):
        variants.append("avx512")
    if " avx2" in flags and " fma" in flags:
        variants.append("avx2")
    return variants + ["portable"]


def build_timeout() -> float:
    """Seconds to wait for another process's build: SPACY_ELSTM_BUILD_TIMEOUT or 300."""
    try:
        return max(0.0, float(os.environ.get(TIMEOUT_ENV, "") or DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT


def build(variant: str, timeout: Optional[float] = None) -> ModuleType:
    """Compile (or load from PyTorch's extension cache) one variant of the kernels.

    Waits at most ``timeout`` seconds (default: ``build_timeout()``) for another
    process building the same variant, then raises ``BuildTimeout``.
    """
    from torch.utils import cpp_extension

    name = f"spacy_elstm_cell_state_{variant}"
    cflags = ["-O3", *VARIANTS[variant]]
    build_dir = _build_directory(name)
    stamp = _stamp(name, cflags)
    compiler = _missing_compiler()
    if compiler is not None:
        module = _load_prebuilt(name, build_dir, stamp)
        if module is not None:
            return module
        raise RuntimeError(f"no C++ compiler: {compiler!r} not found "
                           "(install g++ or clang, or point CXX at one)")
    try:
        with _build_lock(build_dir, build_timeout() if timeout is None else timeout):
            module = cpp_extension.load(name=name, sources=[str(SOURCE)], extra_cflags=cflags,
                                        build_directory=build_dir, verbose=False)
            _write_stamp(build_dir, stamp)
            return module
    except OSError as err:
        # a read-only cache: torch wants to write its lock and build files there
        if err.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
        module = _load_prebuilt(name, build_dir, stamp)
        if module is None:
            raise
        return module


def get() -> Optional[ModuleType]:
    """The compiled kernels (built on first use), or None; ``unavailable`` says why."""
    global _module, _tried, _warned_off, _failure
    if os.environ.get("SPACY_ELSTM_NO_EXTENSION", "") not in ("", "0"):
        if not _warned_off:
            _warned_off = True
            warnings.warn("spacy-elstm: SPACY_ELSTM_NO_EXTENSION is set, so the C++ kernels "
                          "are off and the cells run on PyTorch ops", stacklevel=2)
        return None
    if not _tried:
        _tried = True
        try:
            _module = build(supported_variants()[0])
        except Exception as err:  # no compiler, no ninja, a failed build, a timeout: fall back
            _failure = _cause(err)
            warnings.warn(f"spacy-elstm: C++ kernels unavailable, using PyTorch ops: "
                          f"{_failure}", stacklevel=2)
            _module = None
    return _module


def unavailable() -> Optional[str]:
    """None where the kernels can run (building them on first use), else why not."""
    if get() is not None:
        return None
    if os.environ.get("SPACY_ELSTM_NO_EXTENSION", "") not in ("", "0"):
        return "SPACY_ELSTM_NO_EXTENSION is set"
    return f"the C++ kernels could not be built ({_failure})"


def _build_directory(name: str) -> str:
    """Where ``load`` builds ``name``: PyTorch's extension cache (made if missing)."""
    from torch.utils import cpp_extension

    if hasattr(cpp_extension, "_get_build_directory"):
        return cpp_extension._get_build_directory(name, False)
    root = os.environ.get("TORCH_EXTENSIONS_DIR") or cpp_extension.get_default_build_root()
    path = os.path.join(root, name)
    os.makedirs(path, exist_ok=True)
    return path


def _missing_compiler() -> Optional[str]:
    """The compiler ``load`` would run, where it is not on PATH; else None. (Not on
    Windows, where torch puts ``cl`` on PATH itself, from the Visual Studio setup.)"""
    if sys.platform == "win32":
        return None
    command = os.environ.get("CXX", "") or "c++"
    try:
        program = shlex.split(command)[0]
    except (ValueError, IndexError):
        program = command
    return None if shutil.which(program) else program


def _cause(err: BaseException) -> str:
    """A failed build's cause in one line (torch's message holds the whole build log)."""
    text = str(err).strip()
    match = re.match(r"Error building extension '[^']*':?\s*", text)
    if match is None:
        line = text.splitlines()[0] if text else type(err).__name__
    else:
        lines = [s.strip() for s in text[match.end():].splitlines() if s.strip()]
        errors = [s for s in lines if re.search(r"\berror\b|not found|No such file", s)]
        noise = ("ninja: build stopped", "FAILED:", "[")
        useful = [s for s in lines if not s.startswith(noise)]
        line = "build failed: " + (errors or useful or lines or ["(no output)"])[0]
    return line if len(line) <= 300 else line[:297] + "..."


def _stamp(name: str, cflags: List[str]) -> str:
    """What a build of ``name`` depends on: source, flags, torch, Python."""
    import torch

    digest = hashlib.sha256(SOURCE.read_bytes())
    for part in (name, *cflags, torch.__version__, sys.version):
        digest.update(b"\0" + part.encode())
    return digest.hexdigest()


def _write_stamp(build_dir: str, stamp: str) -> None:
    path = os.path.join(build_dir, STAMP_NAME)
    try:
        if Path(path).read_text() == stamp:
            return
    except OSError:
        pass
    try:
        tmp = f"{path}.{os.getpid()}"
        Path(tmp).write_text(stamp)
        os.replace(tmp, path)
    except OSError:
        pass


def _load_prebuilt(name: str, build_dir: str, stamp: str) -> Optional[ModuleType]:
    """The module built in ``build_dir`` for this very source and flags, if there is one,
    imported without writing anything."""
    from torch.utils.cpp_extension import LIB_EXT

    library = os.path.join(build_dir, name + LIB_EXT)
    try:
        if Path(build_dir, STAMP_NAME).read_text() != stamp or not os.path.isfile(library):
            return None
    except OSError:
        return None
    spec = importlib.util.spec_from_file_location(name, library)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Wait:
    """A bounded wait: says on stderr what it waits for after NOTICE_AFTER seconds,
    raises BuildTimeout after ``timeout``."""

    def __init__(self, timeout: float, lock: str):
        self.start, self.timeout, self.lock, self.noticed = time.monotonic(), timeout, lock, False

    def tick(self, what: str) -> None:
        waited = time.monotonic() - self.start
        if waited >= self.timeout:
            raise BuildTimeout(f"gave up after {waited:.0f} s waiting for {what} "
                               f"(lock {self.lock}; {TIMEOUT_ENV} sets the bound)")
        if waited >= NOTICE_AFTER and not self.noticed:
            self.noticed = True
            print(f"spacy-elstm: waiting for {what} (lock {self.lock}); using PyTorch ops "
                  f"if it takes over {self.timeout:.0f} s ({TIMEOUT_ENV})",
                  file=sys.stderr, flush=True)
        time.sleep(min(_POLL, max(0.0, self.timeout - waited)))


@contextlib.contextmanager
def _build_lock(build_dir: str, timeout: float) -> Iterator[None]:
    """Hold the build of ``build_dir`` for this process, with no stale torch ``lock`` left."""
    torch_lock = os.path.join(build_dir, "lock")
    if fcntl is None:
        yield from _age_bound_lock(torch_lock, timeout)
        return
    path = os.path.join(build_dir, LOCK_NAME)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except PermissionError:  # made by another user: flock works on a read-only file too
        fd = os.open(path, os.O_RDONLY)
    try:
        wait = _Wait(timeout, path)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as err:
                if err.errno in (errno.ENOLCK, errno.EOPNOTSUPP):  # a file system without locks
                    yield from _age_bound_lock(torch_lock, timeout)
                    return
                if err.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                    raise
            wait.tick(f"another process{_holder(path)} building the C++ kernels")
        try:
            with contextlib.suppress(OSError):  # who holds it, for the waiters' notice
                os.ftruncate(fd, 0)
                os.write(fd, str(os.getpid()).encode())
            if os.path.exists(torch_lock):
                # whoever made it died mid-build (it held our lock while building)
                for pid in _leftover_builders(build_dir):
                    while _alive(pid):
                        wait.tick(f"the compiler an interrupted build left running (pid {pid})")
                with contextlib.suppress(FileNotFoundError):
                    os.remove(torch_lock)
                print(f"spacy-elstm: removed the lock an interrupted build left behind "
                      f"({torch_lock})", file=sys.stderr, flush=True)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _age_bound_lock(torch_lock: str, timeout: float) -> Iterator[None]:
    """Without flock: wait (bounded) for torch's lock; one older than the bound is stale."""
    wait = _Wait(timeout, torch_lock)
    while True:
        try:
            age = time.time() - os.path.getmtime(torch_lock)
        except OSError:
            break
        if age > max(timeout, 60.0):
            with contextlib.suppress(FileNotFoundError):
                os.remove(torch_lock)
            print(f"spacy-elstm: removed a build lock {age:.0f} s old ({torch_lock})",
                  file=sys.stderr, flush=True)
            break
        wait.tick("another process building the C++ kernels")
    yield


def _holder(path: str) -> str:
    try:
        pid = int(Path(path).read_text().strip())
    except (OSError, ValueError):
        return ""
    return f" (pid {pid})"


def _leftover_builders(build_dir: str) -> List[int]:
    """Processes still building in ``build_dir`` (Linux): ninja or the compiler of a build
    whose Python process was killed run on, and a second build must not overlap them."""
    try:
        target = os.path.realpath(build_dir)
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
    except OSError:
        return []
    found = []
    for pid in pids:
        try:
            if os.readlink(f"/proc/{pid}/cwd") != target:
                continue
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if os.path.basename(args[0]) == b"ninja" or any(
                a.endswith((b"cell_state.o", b".so", b".pyd")) for a in args):
            found.append(pid)
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie is dead for our purpose
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True
