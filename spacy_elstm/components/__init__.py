"""The spaCy components, one module per factory: ``elstm_tagger``,
``elstm_seq_parser``, ``elstm_biaffine_parser``, ``elstm_senter`` (a
sentence splitter on the text's characters), ``elstm_lemma_lookup`` (the
training data's lemma of a seen word) and ``elstm_lemmatizer`` (spaCy's
edit-tree lemmatizer reading its trees in lower case first). ``PipeWithLabels`` is what
all three share (labels that size the model, and loading them before the
weights); ``TokenLabeller`` what the two that score one label per token add."""
from .cased_lemmatizer import CasedLemmatizer, make_cased_lemmatizer
from .elstm_biaffine_parser import ELSTMBiaffineParser, make_elstm_biaffine_parser
from .elstm_senter import ELSTMSenter, make_elstm_senter
from .elstm_seq_parser import ELSTMSeqParser, make_elstm_seq_parser
from .elstm_tagger import ELSTMTagger, make_elstm_tagger
from .lemma_lookup import LemmaLookup, make_lemma_lookup
from .pipe_with_labels import PipeWithLabels
from .token_labeller import TokenLabeller

__all__ = ["ELSTMTagger", "make_elstm_tagger", "ELSTMSeqParser", "make_elstm_seq_parser",
           "ELSTMBiaffineParser", "make_elstm_biaffine_parser", "PipeWithLabels",
           "TokenLabeller", "ELSTMSenter", "make_elstm_senter", "LemmaLookup",
           "make_lemma_lookup", "CasedLemmatizer", "make_cased_lemmatizer"]
