"""Choosing the "A among Bs" training settings on the LSTM alone.

A protocol under which the LSTM cannot learn a T that one LSTM unit can hold
by construction measures the training, not the memory. ``grid`` runs the LSTM
alone under every combination of optimiser, learning rate and start (afresh,
or warm: each T from the previous T's model, T raised by ``Settings.step``)
and counts, per combination, the seeds that solved each listed length; the
chosen combination is the one that solves the longest listed T in most seeds
(then the most seeds over all listed lengths, then the fewest seconds). The
other cells are then run with the chosen settings, which were not tuned on
them.
"""
from dataclasses import asdict, replace
from typing import Callable, Dict, List, Optional, Sequence

import torch

from .among_bs import Settings, solved_through, sweep

STARTS = ("scratch", "warm")


def check_starts(starts: Sequence[str]) -> None:
    for start in starts:
        if start not in STARTS:
            raise ValueError(f"Unknown start {start!r}: choose one of "
                             f"{', '.join(map(repr, STARTS))}.")
    if not starts:
        raise ValueError("Give at least one start.")


def grid(base: Settings, optimizers: Sequence[str], learn_rates: Sequence[float],
         starts: Sequence[str] = STARTS, on_run: Optional[Callable[[Dict], None]] = None,
         progress: Optional[Callable[[int], Callable[[int], None]]] = None) -> Dict:
    """The LSTM under every (optimizer, learn rate, start) on ``base``'s
    lengths, seeds and budget. A scratch start trains the listed lengths only;
    a warm one every ``base.step``-th T between them too (step 0: the listed
    ones). ``on_run``: each run's record, with its combination, as it ends."""
    check_starts(starts)
    for rate in learn_rates:
        if not rate > 0:
            raise ValueError(f"Every learning rate must be > 0, got {rate!r}.")
    combos = [(o, r, s) for o in optimizers for r in learn_rates for s in starts]
    plans = [replace(base, cells=("lstm",), optimizer=o, learn_rate=r, warm_start=s == "warm",
                     step=base.step if s == "warm" else 0, samples=()).check()
             for o, r, s in combos]
    total = sum(len(p.trained_lengths()) * p.seeds * p.max_updates for p in plans)
    tick = progress(total) if progress is not None else None
    rows: List[Dict] = []
    for (optimizer, rate, start), plan in zip(combos, plans):
        combo = {"optimizer": optimizer, "learn_rate": rate, "start": start}

        def record(run, combo=combo):
            if on_run is not None:
                on_run({**combo, **run})

        result = sweep(plan, (lambda _total: tick) if tick else None, on_run=record)
        runs = result["runs"]
        by_t = {row["T"]: row for row in result["summary"]}
        rows.append({**combo, "seeds": plan.seeds,
                     "solved": {str(t): by_t[t]["solved"] for t in plan.lengths},
                     "solved_through": [solved_through(runs, "lstm", seed)
                                        for seed in range(plan.seeds)],
                     "updates": sum(r["updates"] for r in runs),
                     "seconds": round(sum(r["seconds"] for r in runs), 1),
                     "runs": [{k: v for k, v in r.items() if k not in ("losses", "loss_epochs")}
                              for r in runs]})
    return {"experiment": "among-bs-grid", "settings": asdict(base),
            "optimizers": list(optimizers), "learn_rates": list(learn_rates),
            "starts": list(starts), "grid": rows, "chosen": choose(rows, base.lengths),
            "torch": torch.__version__, "threads": torch.get_num_threads()}


def choose(rows: Sequence[Dict], lengths: Sequence[int]) -> Dict:
    """The combination that solved the longest listed T in most seeds, then
    the most seeds over all listed lengths, then took the fewest seconds."""
    longest = str(max(lengths))
    best = max(rows, key=lambda r: (r["solved"][longest], sum(r["solved"].values()),
                                    -r["seconds"]))
    return {k: best[k] for k in ("optimizer", "learn_rate", "start", "solved", "seeds")}
