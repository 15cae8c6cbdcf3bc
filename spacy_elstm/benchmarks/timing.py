"""Timing and peak-memory helpers shared by the benchmarks."""
import ctypes
import multiprocessing
import platform
import queue as queue_module
import statistics
import time
from typing import Any, Callable, Dict

import torch


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux)."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def keep_freed_memory() -> bool:
    """Ask glibc's malloc to keep freed memory for reuse instead of handing it
    back to the OS, so that a timed pass does not pay page faults for buffers
    the previous pass just freed (what jemalloc or tcmalloc would do). Applies
    to every candidate of the run alike. Returns False where it is unavailable."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3
        return bool(libc.mallopt(m_mmap_threshold, 1 << 30)
                    and libc.mallopt(m_trim_threshold, (1 << 31) - 1))
    except (OSError, AttributeError):
        return False


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def interleaved_median_seconds(fns: Dict[str, Callable[[], Any]], *, device: torch.device,
                               repeats: int, warmup: int = 2) -> Dict[str, float]:
    """Median wall time of each function, timed in rounds that run every
    function once, so that a slow spell of the machine hits all of them alike
    rather than whichever happened to be running."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    synchronize(device)
    times: Dict[str, list] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            synchronize(device)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def _status_bytes(field: str) -> int:
    """VmRSS or VmHWM of this process, from /proc (Linux)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _child(target: Callable[..., Callable[[], Any]], kwargs: Dict[str, Any], queue) -> None:
    torch.set_num_threads(kwargs.pop("threads"))
    fn = target(**kwargs)  # build inputs and model first: they are not the run's peak
    # getrusage's ru_maxrss would carry the parent's peak across fork and exec;
    # the high-water mark of this process's own memory, reset here, does not
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _status_bytes("VmRSS")
    fn()
    queue.put(max(0, _status_bytes("VmHWM") - before))


def peak_rss_increase(target: Callable[..., Callable[[], Any]], **kwargs: Any) -> int:
    """Bytes the resident set grew by while running ``target(**kwargs)()`` once,
    measured in a fresh process so that earlier runs leave no high-water mark.
    ``target`` must be a module-level function (it is pickled)."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    kwargs = {**kwargs, "threads": torch.get_num_threads()}
    process = context.Process(target=_child, args=(target, kwargs, queue))
    process.start()
    while True:
        try:
            result = queue.get(timeout=1.0)
            break
        except queue_module.Empty:
            if not process.is_alive():
                raise RuntimeError(
                    f"the memory measurement process died (exit code {process.exitcode})"
                ) from None
    process.join()
    return int(result)


def cuda_peak_bytes(fn: Callable[[], Any], device: torch.device) -> int:
    torch.cuda.reset_peak_memory_stats(device)
    base = torch.cuda.memory_allocated(device)
    fn()
    synchronize(device)
    return torch.cuda.max_memory_allocated(device) - base
