"""The optional C++ kernels of csrc/cell_state.cpp, compiled on first use.

Compiling needs a C++ compiler and ninja; where either is missing, or the
environment sets SPACY_ELSTM_NO_EXTENSION=1, ``get()`` returns None and the
cells run on the pure-PyTorch path, which computes the same thing.
"""
import os
import platform
import warnings
from pathlib import Path
from types import ModuleType
from typing import List, Optional

SOURCE = Path(__file__).parent / "csrc" / "cell_state.cpp"
_module: Optional[ModuleType] = None
_tried = False
AVX512 = ("avx512f", "avx512bw", "avx512vl", "avx512dq")  # what ATen's AVX512 kernels need


def _simd_flags() -> List[str]:
    """AVX-512 or AVX2/FMA where this machine has them (the build is per machine
    anyway), with the macros that select ATen's matching ``Vectorized``; else its
    portable one."""
    portable = ["-DCPU_CAPABILITY=DEFAULT"]
    if platform.machine() not in ("x86_64", "AMD64"):
        return portable
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return portable
    if all(f" {f}" in flags for f in AVX512):
        return [f"-m{f}" for f in AVX512] + ["-mfma", "-DCPU_CAPABILITY=AVX512",
                                             "-DCPU_CAPABILITY_AVX512"]
    if " avx2" in flags and " fma" in flags:
        return ["-mavx2", "-mfma", "-DCPU_CAPABILITY=AVX2", "-DCPU_CAPABILITY_AVX2"]
    return portable


def get() -> Optional[ModuleType]:
    global _module, _tried
    if os.environ.get("SPACY_ELSTM_NO_EXTENSION", "") not in ("", "0"):
        return None
    if not _tried:
        _tried = True
        try:
            from torch.utils.cpp_extension import load

            _module = load(name="spacy_elstm_cell_state", sources=[str(SOURCE)],
                           extra_cflags=["-O3", *_simd_flags()], verbose=False)
        except Exception as err:  # no compiler, no ninja, a failed build: all fall back
            warnings.warn(f"spacy-elstm: C++ kernels unavailable, using PyTorch ops ({err})")
            _module = None
    return _module
