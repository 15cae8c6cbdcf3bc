"""spacy-elstm: extended LSTM (ELSTM) and dependent bidirectional RNN encoders for spaCy."""
from .about import __version__
from .architectures import (build_dbrnn_encoder, build_dbrnn_tagger, build_recurrent_encoder,
                            build_recurrent_tagger)
from .biaffine_parser import BiaffineParser, make_biaffine_parser
from .logger import training_log
from .multiprocess import install as _install_fork_handler
from .optimizers import Adagrad, create_adagrad
from .pretraining import create_pretrain_next_word
from .readers import GoldLemmaCorpus, create_gold_lemma_reader
from .seq_parser import SequenceParser, make_sequence_parser
from .sequence_labeller import SequenceLabeller, make_sequence_labeller

_install_fork_handler()

__all__ = ["__version__", "build_recurrent_encoder", "build_dbrnn_encoder", "build_recurrent_tagger",
           "build_dbrnn_tagger", "SequenceLabeller", "make_sequence_labeller", "SequenceParser",
           "make_sequence_parser", "training_log", "create_pretrain_next_word", "Adagrad",
           "create_adagrad", "GoldLemmaCorpus", "create_gold_lemma_reader", "BiaffineParser",
           "make_biaffine_parser"]
