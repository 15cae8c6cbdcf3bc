"""spacy-elstm: extended LSTM (ELSTM) and dependent bidirectional RNN encoders for spaCy."""
from .about import __version__
from .architectures import build_dbrnn_encoder, build_recurrent_encoder
from .logger import training_log
from .multiprocess import install as _install_fork_handler

_install_fork_handler()

__all__ = ["__version__", "build_recurrent_encoder", "build_dbrnn_encoder", "training_log"]
