"""spacy-elstm: extended LSTM (ELSTM) and dependent bidirectional RNN encoders for spaCy."""
from .about import __version__
from .architectures import (build_dbrnn_encoder, build_dbrnn_tagger, build_recurrent_encoder,
                            build_recurrent_tagger)
from .components import (ELSTMBiaffineParser, ELSTMSeqParser, ELSTMTagger,
                         make_elstm_biaffine_parser, make_elstm_seq_parser, make_elstm_tagger)
from .training.logger import training_log
from .parsing.processes import install as _install_fork_handler
from .training.optimizers import Adagrad, NesterovSGD, create_adagrad, create_nag
from .training.pretraining import create_pretrain_next_word
from .training.readers import GoldLemmaCorpus, create_gold_lemma_reader
from .text.char_tokenizer import CharTokenizer, create_char_tokenizer
from .text.treebank_tokenizer import TreebankTokenizer, create_treebank_tokenizer

_install_fork_handler()

# the components' names before they moved into `components/`, for code that imports them
SequenceLabeller, make_sequence_labeller = ELSTMTagger, make_elstm_tagger
SequenceParser, make_sequence_parser = ELSTMSeqParser, make_elstm_seq_parser
BiaffineParser, make_biaffine_parser = ELSTMBiaffineParser, make_elstm_biaffine_parser

__all__ = ["__version__", "build_recurrent_encoder", "build_dbrnn_encoder", "build_recurrent_tagger",
           "build_dbrnn_tagger", "ELSTMTagger", "make_elstm_tagger", "ELSTMSeqParser",
           "make_elstm_seq_parser", "ELSTMBiaffineParser", "make_elstm_biaffine_parser",
           "training_log", "create_pretrain_next_word", "Adagrad", "create_adagrad",
           "NesterovSGD", "create_nag",
           "GoldLemmaCorpus", "create_gold_lemma_reader", "SequenceLabeller",
           "make_sequence_labeller", "SequenceParser", "make_sequence_parser", "BiaffineParser",
           "make_biaffine_parser", "TreebankTokenizer", "create_treebank_tokenizer", "CharTokenizer",
           "create_char_tokenizer"]
