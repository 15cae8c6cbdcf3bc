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

SOURCE = Path(__file__).parent / "kernels" / "csrc" / "cell_state.cpp"
_module: Optional[ModuleType] = None
_tried = False
AVX512 = ("avx512f", "avx512bw", "avx512vl", "avx512dq")  # what ATen's AVX512 kernels need
# compiler flags per instruction set, with the macros that select ATen's matching
# ``Vectorized``; best first
VARIANTS = {
    "avx512": [f"-m{f}" for f in AVX512] + ["-mfma", "-DCPU_CAPABILITY=AVX512",
                                            "-DCPU_CAPABILITY_AVX512"],
    "avx2": ["-mavx2", "-mfma", "-DCPU_CAPABILITY=AVX2", "-DCPU_CAPABILITY_AVX2"],
    "portable": ["-DCPU_CAPABILITY=DEFAULT"],
}


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


def build(variant: str) -> ModuleType:
    """Compile (or load from PyTorch's extension cache) one variant of the kernels."""
    from torch.utils.cpp_extension import load

    return load(name=f"spacy_elstm_cell_state_{variant}", sources=[str(SOURCE)],
                extra_cflags=["-O3", *VARIANTS[variant]], verbose=False)


def get() -> Optional[ModuleType]:
    global _module, _tried
    if os.environ.get("SPACY_ELSTM_NO_EXTENSION", "") not in ("", "0"):
        return None
    if not _tried:
        _tried = True
        try:
            _module = build(supported_variants()[0])
        except Exception as err:  # no compiler, no ninja, a failed build: all fall back
            warnings.warn(f"spacy-elstm: C++ kernels unavailable, using PyTorch ops ({err})")
            _module = None
    return _module
