"""Dependency parsing as sequence labelling: the label encodings of trees
(``encoding``), the decoding of label scores into well-formed trees
(``decoding``), and the paper's interleaved (relation, head position) target
(``interleaved``). Pure Python and numpy; the spaCy component is
``spacy_elstm.seq_parser``."""
from .decoding import LabelSet, decode_scores, is_tree
from .encoding import ENCODINGS, decode, encode, get_encoding
from .interleaved import PairLabels, decode_pairs, encode_pairs

__all__ = ["ENCODINGS", "encode", "decode", "get_encoding", "LabelSet", "decode_scores", "is_tree",
           "PairLabels", "encode_pairs", "decode_pairs"]
