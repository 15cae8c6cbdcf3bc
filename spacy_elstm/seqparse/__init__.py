"""Dependency parsing as sequence labelling: the label encodings of trees
(``encoding``) and the decoding of label scores into well-formed trees
(``decoding``). Pure Python and numpy; the spaCy component is
``spacy_elstm.seq_parser``."""
from .decoding import LabelSet, decode_scores, is_tree
from .encoding import ENCODINGS, decode, encode, get_encoding

__all__ = ["ENCODINGS", "encode", "decode", "get_encoding", "LabelSet", "decode_scores", "is_tree"]
