"""Treebank files in and out: CoNLL-U read strictly and converted to spaCy's
binary format (`conllu_reader.py`), Docs written as CoNLL-U (`conllu_writer.py`,
the one writer), the raw text of a gold file (`gold_text.py`), the language
of a file named as UD names them (`ud_names.py`), the official
CoNLL 2018 scores of a pipeline (`scoring.py`), and the Penn Treebank's trees
and dependencies (`ptb.py`) converted to CoNLL-U by head rules (`headrules.py`,
`ptb_conversion.py`)."""
