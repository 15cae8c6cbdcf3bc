"""Picking kernels by name in tests."""
import pytest


# the kernels besides the reference loop, by gate mode (kernels.KERNELS says
# what each runs); cpp-onednn takes float32 only
FAST = {"recurrent": ("cpp", "torch"), "input": ("cpp", "scan")}


def fast_kernels(cell: str, gates: str, float32: bool = False):
    """The kernels other than the reference that run ``cell`` with ``gates``."""
    from spacy_elstm.pytorch import TABLE

    if not TABLE[cell].cell_state:
        return ()
    if TABLE[cell].second_order:
        return ("cpp",)
    return (("cpp-onednn",) if float32 and gates == "recurrent" else ()) + FAST[gates]


def using(kernel: str, rec, lengths, device=None, dtype=None):
    """A context running every recurrence on ``kernel``; the test is skipped,
    with the registry's reason, where this machine cannot run it."""
    from spacy_elstm.pytorch import kernels

    why = kernels.KERNELS[kernel].cannot(rec.problem_for(lengths, device, dtype))
    if why is not None:
        pytest.skip(f"{kernel}: {why}")
    return kernels.use(kernel)
