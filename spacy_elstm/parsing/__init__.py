"""The corpus parse (`spacy-elstm parse`, docs/parsing.md), one module per step of
its route: plan (`plan.py`: inputs, chunks, tasks; `manifest.py`: the output
folder's manifest) → read (`records.py`) → run (`run.py`, shared by the backends
`local.py` and `ray_backend.py`, which load pipelines with `pipelines.py`) →
write (`shards.py`). `summary.py` is what a run reports; `processes.py` keeps
torch on one thread in forked workers (installed when the package is imported).
"""
