"""The optional C++ kernels of csrc/cell_state.cpp, compiled on first use.

Compiling needs a C++ compiler and ninja; where either is missing, or the
environment sets SPACY_ELSTM_NO_EXTENSION=1, ``get()`` returns None (with one
warning) and the cells run on the pure-PyTorch path, which computes the same thing.

One build per key: a hash of the source's content, the compiler flags (the
instruction-set variant), the torch version and the Python ABI (``cache_key``).
The build lives in PyTorch's extension cache (``TORCH_EXTENSIONS_DIR``, else
torch's default root) under ``spacy_elstm_cell_state_<key>_<variant>``, and
the source is copied there and compiled from there, so nothing in the build
names the install it came from: two checkouts or virtual environments with the
same source, torch and Python share one build, and alternating between them
rebuilds nothing. A finished build is marked by ``spacy_elstm.stamp`` (its key
and what went into it); a directory holding it and the library is loaded by
importing the library, with nothing written and nothing printed, so a cache
that cannot be written still serves it. Anything else is built, and the
building process says so in one line on stderr: what, where and why.

The compiler runs in a child process (its own process group) under a time
limit, SPACY_ELSTM_COMPILE_TIMEOUT seconds (default 600); past it the whole
build is killed and ``get()`` falls back to PyTorch ops with one warning. The
child ends its build when the process that started it dies.

``load`` guards a directory with a plain ``lock`` file that a killed build
leaves behind, after which every later ``load`` waits forever. So ``build``
first takes its own lock, ``spacy_elstm.lock`` in that directory: an ``flock``
the OS drops when its holder dies. Holding it, nobody else is building, so a
leftover ``lock`` is stale and is removed (once any compiler the dead build
left running has ended). Waiting for the lock says so on stderr after a few
seconds and gives up after SPACY_ELSTM_BUILD_TIMEOUT seconds (default 300),
when ``get()`` falls back to PyTorch ops with a warning. Without ``fcntl``
(Windows) a leftover ``lock`` older than that bound counts as stale.
"""
import contextlib
import errno
import hashlib
import importlib.util
import json
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import warnings
from pathlib import Path
from types import ModuleType
from typing import Dict, Iterator, List, Optional

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

SOURCE = Path(__file__).parent / "csrc" / "cell_state.cpp"
PREFIX = "spacy_elstm_cell_state_"  # + key + "_" + variant: the module's and its directory's name
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
COMPILE_TIMEOUT_ENV = "SPACY_ELSTM_COMPILE_TIMEOUT"
# seconds the compile itself may take: about a minute on an idle core, several
# on a loaded machine; a compiler that never returns is stopped after this
DEFAULT_COMPILE_TIMEOUT = 600.0
NOTICE_AFTER = 5.0  # seconds of waiting before saying what for, on stderr
LOCK_NAME = "spacy_elstm.lock"  # ours, beside torch's ``lock`` in the build directory
STAMP_NAME = "spacy_elstm.stamp"  # the key of the finished build in the directory
KEY_LENGTH = 16  # hex digits of the key in the directory's name
_POLL = 0.2

# The compile, in a child process: ``load`` builds with ninja and imports the
# result (which checks it). The child is a process group of its own, so a time
# limit kills ninja and the compiler with it, and it kills that group itself
# when its parent dies, so no build outlives the process that wanted it.
_COMPILE = r"""
import json, os, signal, sys, threading, time
parent = os.getppid()
def end_with_parent():
    while os.getppid() == parent:
        time.sleep(0.2)
    os.killpg(0, signal.SIGKILL)
if hasattr(os, "killpg"):
    threading.Thread(target=end_with_parent, daemon=True).start()
name, source, build_dir, *cflags = sys.argv[1:]
try:
    from torch.utils import cpp_extension
    cpp_extension.load(name=name, sources=[source], extra_cflags=cflags,
                       build_directory=build_dir, verbose=False)
except Exception as err:
    print("ERROR", json.dumps(str(err)), flush=True)
    sys.exit(1)
"""


class BuildTimeout(TimeoutError):
    """Another process held the build lock longer than the bound."""


class CompileTimeout(TimeoutError):
    """The compiler ran longer than SPACY_ELSTM_COMPILE_TIMEOUT and was stopped."""


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


def _seconds(env: str, default: float) -> float:
    try:
        return max(0.0, float(os.environ.get(env, "") or default))
    except ValueError:
        return default


def build_timeout() -> float:
    """Seconds to wait for another process's build: SPACY_ELSTM_BUILD_TIMEOUT or 300."""
    return _seconds(TIMEOUT_ENV, DEFAULT_TIMEOUT)


def compile_timeout() -> float:
    """Seconds the compile may take: SPACY_ELSTM_COMPILE_TIMEOUT or 600."""
    return _seconds(COMPILE_TIMEOUT_ENV, DEFAULT_COMPILE_TIMEOUT)


def cflags(variant: str) -> List[str]:
    return ["-O3", *VARIANTS[variant]]


def key_parts(variant: str) -> Dict[str, str]:
    """What a build of ``variant`` depends on, and nothing that says where the
    package is installed. The compiler is not among them: builds by different
    compilers for one torch are interchangeable, and a machine whose compiler
    was removed still finds the kernels built there."""
    import torch

    abi = sysconfig.get_config_var("EXT_SUFFIX") or ""
    return {"source": hashlib.sha256(SOURCE.read_bytes()).hexdigest(),
            "flags": " ".join(cflags(variant)),
            "torch": f"{torch.__version__} {getattr(torch.version, 'git_version', '')[:12]}"
                     .strip(),
            "python": f"{sys.implementation.name} {sys.version_info[0]}.{sys.version_info[1]} "
                      f"{abi}".strip()}


def cache_key(variant: str) -> str:
    return _digest(key_parts(variant))


def cache_name(variant: str) -> str:
    """The module's name, and its build directory's, for ``variant`` of this source."""
    return f"{PREFIX}{cache_key(variant)}_{variant}"


def _digest(parts: Dict[str, str]) -> str:
    digest = hashlib.sha256()
    for field, value in sorted(parts.items()):
        digest.update(f"{field}\0{value}\0".encode())
    return digest.hexdigest()[:KEY_LENGTH]


def extensions_root() -> str:
    """PyTorch's extension cache: TORCH_EXTENSIONS_DIR, else torch's default root."""
    from torch.utils import cpp_extension

    return os.environ.get("TORCH_EXTENSIONS_DIR") or cpp_extension.get_default_build_root()


def build(variant: str, timeout: Optional[float] = None) -> ModuleType:
    """The kernels for ``variant``: imported from the cache where this key was
    built, else compiled there (saying so on stderr).

    Waits at most ``timeout`` seconds (default: ``build_timeout()``) for another
    process building the same key, then raises ``BuildTimeout``; a compile over
    ``compile_timeout()`` is stopped and raises ``CompileTimeout``.
    """
    parts = key_parts(variant)
    key = _digest(parts)
    name = f"{PREFIX}{key}_{variant}"
    build_dir = os.path.join(extensions_root(), name)
    broken = None  # the stamp of a build that does not import
    try:
        module = _load_prebuilt(name, build_dir)
    except ImportError as err:  # built against a torch since replaced under the same version
        module, broken = None, _read_stamp(build_dir)
        why = f"the build there does not import ({_cause(err)})"
    else:
        why = _why_build(variant, build_dir, parts)  # before this process adds to the cache
    if module is not None:
        return module
    compiler = _missing_compiler()
    if compiler is not None:
        raise RuntimeError(f"no C++ compiler: {compiler!r} not found "
                           "(install g++ or clang, or point CXX at one)")
    os.makedirs(build_dir, exist_ok=True)
    with _build_lock(build_dir, build_timeout() if timeout is None else timeout):
        if broken is not None and _read_stamp(build_dir) == broken:  # not rebuilt meanwhile
            _remove_stamp(build_dir)
        module = _load_prebuilt(name, build_dir)  # built while we waited
        if module is not None:
            return module
        limit = compile_timeout()
        print(f"spacy-elstm: compiling the C++ kernels ({variant}; once per source, flags, "
              f"torch and Python) in {build_dir}: {why} (limit {limit:.0f} s, "
              f"{COMPILE_TIMEOUT_ENV})", file=sys.stderr, flush=True)
        start = time.monotonic()
        _compile(name, build_dir, parts, limit)
        stamp = dict(parts, key=key, variant=variant,
                     compiler=os.environ.get("CXX", "") or "c++",
                     seconds=f"{time.monotonic() - start:.1f}", built=time.ctime())
        _write_atomically(os.path.join(build_dir, STAMP_NAME),
                          json.dumps(stamp, indent=1).encode())
    module = _load_prebuilt(name, build_dir)
    if module is None:
        raise RuntimeError(f"the build in {build_dir} made no {name} library")
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


def _compile(name: str, build_dir: str, parts: Dict[str, str], limit: float) -> None:
    """Build ``name`` in ``build_dir`` from a copy of the source there, in a child
    process stopped (with everything it started) after ``limit`` seconds."""
    for leftover in ("build.ninja", ".ninja_log", ".ninja_deps", "cell_state.o",
                     name + _lib_ext()):  # an unfinished build's: start clean
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(build_dir, leftover))
    source = os.path.join(build_dir, SOURCE.name)
    _write_atomically(source, SOURCE.read_bytes())
    posix = hasattr(os, "killpg")
    proc = subprocess.Popen([sys.executable, "-c", _COMPILE, name, source, build_dir,
                             *parts["flags"].split()],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=posix)
    try:
        out, err = proc.communicate(timeout=limit)
    except BaseException as stop:  # the limit, or this process interrupted: the build ends too
        if posix:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
        proc.communicate()
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(build_dir, "lock"))  # torch's, left by the killed child
        if isinstance(stop, subprocess.TimeoutExpired):
            raise CompileTimeout(f"the compile ran over {limit:.0f} s and was stopped "
                                 f"({COMPILE_TIMEOUT_ENV} sets the limit)") from None
        raise
    if proc.returncode != 0:
        errors = [json.loads(line[6:]) for line in out.splitlines() if line.startswith("ERROR ")]
        raise RuntimeError(errors[-1] if errors else
                           f"the compiler's process ended with {proc.returncode}: "
                           f"{(err.strip().splitlines() or ['(no output)'])[-1]}")


def _lib_ext() -> str:
    from torch.utils.cpp_extension import LIB_EXT

    return LIB_EXT


def _why_build(variant: str, build_dir: str, parts: Dict[str, str]) -> str:
    """Why ``build_dir`` is built: an unfinished build there, or what differs from
    the newest finished build of ``variant`` in the cache, or nothing there yet."""
    if os.path.isdir(build_dir) and any(f != LOCK_NAME for f in os.listdir(build_dir)):
        return "an earlier build there did not finish"
    root = os.path.dirname(build_dir)
    newest, newest_time = None, -1.0
    with contextlib.suppress(OSError):
        for entry in os.scandir(root):
            if not (entry.name.startswith(PREFIX) and entry.name.endswith(f"_{variant}")):
                continue
            stamp = _read_stamp(entry.path)
            if stamp is not None and entry.stat().st_mtime > newest_time:
                newest, newest_time = stamp, entry.stat().st_mtime
    if newest is None:
        return f"no {variant} build in this cache yet"
    changed = [f"{field} {newest[field]} -> {parts[field]}" if field != "source"
               else "the source changed" for field in ("source", "torch", "python", "flags")
               if newest.get(field) != parts[field]]
    return "; ".join(changed) or "new key"


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


def _write_atomically(path: str, data: bytes) -> None:
    tmp = f"{path}.{os.getpid()}"
    Path(tmp).write_bytes(data)
    os.replace(tmp, path)


def _remove_stamp(build_dir: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.remove(os.path.join(build_dir, STAMP_NAME))


def _read_stamp(build_dir: str) -> Optional[Dict[str, str]]:
    try:
        stamp = json.loads(Path(build_dir, STAMP_NAME).read_text())
    except (OSError, ValueError):
        return None
    return stamp if isinstance(stamp, dict) else None


def _load_prebuilt(name: str, build_dir: str) -> Optional[ModuleType]:
    """The module finished in ``build_dir`` for this key, if there is one,
    imported without writing anything."""
    library = os.path.join(build_dir, name + _lib_ext())
    stamp = _read_stamp(build_dir)
    if stamp is None or name != f"{PREFIX}{stamp.get('key')}_{stamp.get('variant')}" \
            or not os.path.isfile(library):
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
