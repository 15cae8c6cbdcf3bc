"""The lab: what knows this repository's studies, metrics folders and goals.

It is not part of the `spacy_elstm` wheel; run it from the repository root,
e.g. ``python -m lab.report``."""
