"""Project tooling around the plugin: the command line, the CoNLL-U reader, the
benchmarks and the README report. A pipeline never imports this package at run
time; it needs the `project` extra (`pip install "spacy-elstm[project]"`)."""
