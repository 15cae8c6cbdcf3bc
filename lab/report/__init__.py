"""The results pages (`docs/results/*.md`, with their plots) and the README's
headline table, generated from the files the project writes into `metrics/`.

    python -m lab.report [--metrics metrics] [--readme README.md] [--docs docs]

Modules: `common` (reading files, tables, plots, generated blocks), `studies`
(which folder goes to which page: the only place that knows folder names),
`ud`, `paper`, `ptb`, `lm`, `bench` (the tables of each kind), `targets` (this
repository's accuracy goals), `headline` (the README's table) and `pages`
(putting them together)."""
