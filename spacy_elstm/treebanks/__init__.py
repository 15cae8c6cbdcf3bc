"""Treebank files for the command line: CoNLL-U read strictly and converted to
spaCy's binary format (``conllu``), and the Penn Treebank's trees and
dependencies (``ptb``) converted to CoNLL-U by head rules (``headrules``,
``ptb_conversion``). Needs the ``project`` extra; no pipeline imports it."""
