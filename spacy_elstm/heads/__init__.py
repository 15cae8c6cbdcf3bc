"""Each word's head in a dependency tree: encoded as one label per word
(``encoding``), decoded from label scores into well-formed trees
(``decoding``), the paper's interleaved (relation, head position) target
(``interleaved``), and the maximum spanning tree over head scores (``mst``).
Pure Python and numpy; the spaCy components are
``components.elstm_seq_parser`` and ``components.elstm_biaffine_parser``."""
from .decoding import LabelSet, decode_scores, is_tree
from .encoding import ENCODINGS, decode, encode, get_encoding
from .interleaved import PairLabels, decode_pairs, encode_pairs

__all__ = ["ENCODINGS", "encode", "decode", "get_encoding", "LabelSet", "decode_scores", "is_tree",
           "PairLabels", "encode_pairs", "decode_pairs"]
