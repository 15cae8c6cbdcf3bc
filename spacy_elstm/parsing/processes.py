"""Multiprocess inference: torch in processes forked from one that has run it.

spaCy's ``nlp.pipe(texts, n_process=n)`` forks its workers (multiprocessing's
default start method on Linux). torch's CPU ops run on an OpenMP thread pool, and
GNU OpenMP (libgomp) is not fork-safe: a forked child inherits the pool's
bookkeeping but none of its threads, so once the parent has run a parallel op,
the child's first parallel op waits forever in a barrier for threads that do not
exist. With one thread, ``at::parallel_for`` (torch's ops, oneDNN's and MKL's
products, our C++ kernels) never opens a parallel region and never touches the
pool. So every child forked after ``install()`` runs torch on one thread, which is
also what one wants with ``n_process``: one process per core, no oversubscription.
"""
import os

import torch

_installed = False


def _one_thread() -> None:
    torch.set_num_threads(1)


def install() -> None:
    """Make every process forked from now on run torch on one thread (once per
    process; done when spacy_elstm is imported)."""
    global _installed
    if not _installed and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_one_thread)
        _installed = True


def installed() -> bool:
    """Whether forked children get one torch thread."""
    return _installed


def exit_with_parent(parent_pid: int, every: float = 0.5) -> None:
    """In a worker process: exit at once, quietly, when the process that
    started it is gone (killed with -9, its pipes closed), rather than finish
    its task and print a BrokenPipeError traceback writing the result to no
    one. A daemon thread polls the parent's id (a pool's `initializer`)."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(every)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
