"""What `--gpu-id N` needs, checked before a command does any work, so that a
missing piece is one line saying what to install (docs/gpu.md) rather than
spaCy's "Using GPU: 0" and then its own error deep in a run.

spaCy and thinc put their arrays on the GPU with CuPy; the recurrent layers run
in PyTorch, which needs a CUDA build. Commands that run only PyTorch (`lm`,
`benchmark layers`, `benchmark lm`) need no CuPy.
"""
import importlib.util
from typing import Optional

DOCS = "docs/gpu.md"
CUPY = "CuPy for your CUDA version (e.g. pip install cupy-cuda12x for CUDA 12)"


def gpu_problem(gpu_id: int, *, cupy: bool = True) -> Optional[str]:
    """None when ``gpu_id`` is -1 (the CPU) or can be used; otherwise one line
    naming what is missing. ``cupy``: the command runs spaCy on the GPU."""
    if gpu_id < 0:
        return None
    if cupy and not _installed("cupy"):
        return f"--gpu-id {gpu_id} needs {CUPY} and a CUDA build of PyTorch ({DOCS})."
    import torch

    if torch.version.cuda is None:
        return (f"--gpu-id {gpu_id} needs a CUDA build of PyTorch; this one "
                f"({torch.__version__}) is for the CPU only ({DOCS}).")
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if gpu_id >= count:
        return (f"--gpu-id {gpu_id}: PyTorch (CUDA {torch.version.cuda}) sees "
                f"{count} CUDA device{'s' if count != 1 else ''} here.")
    return None


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a broken package, or one blocked in sys.modules
        return False


def check_gpu(gpu_id: int, *, cupy: bool = True) -> None:
    """Raise a ValueError with ``gpu_problem``'s line, if there is one."""
    problem = gpu_problem(gpu_id, cupy=cupy)
    if problem:
        raise ValueError(problem)


def check_gpu_or_fail(command: str, gpu_id: int, *, cupy: bool = True) -> None:
    """``gpu_problem``'s line as the command's one-line failure (exit 1)."""
    from .errors import fail

    problem = gpu_problem(gpu_id, cupy=cupy)
    if problem:
        fail(command, ValueError(problem))
