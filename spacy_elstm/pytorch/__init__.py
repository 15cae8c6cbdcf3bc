"""Pure PyTorch recurrent modules: no thinc or spaCy imports below this point."""
from . import kernels
from .autoregressive import AutoregressiveLabeller
from .cells import CELLS, GATE_MODES, TABLE, Cell, check_cell
from .dbrnn import DBRNN, DBRNNUpper, DirectionPool, WiredDBRNN
from .encoder import BiLayer, Layer, RecurrentEncoder, SeparateStacks, WiredRecurrentEncoder
from .labeller import DBRNNLabeller, RecurrentLabeller, head_losses, weighted_loss
from .mode import Dropout, is_training, training_mode
from .conv_seq2seq import ConvSeq2SeqLabeller
from .packing import Packing
from .recurrence import Recurrence
from .seq2seq import AdditiveAttention, Seq2SeqLabeller
from .sequence import SequenceModule
from .wiring import Block, Wired, WordDropout

__all__ = ["CELLS", "GATE_MODES", "TABLE", "Cell", "check_cell", "DBRNN", "DBRNNUpper",
           "DirectionPool", "WiredDBRNN", "BiLayer", "Layer", "RecurrentEncoder",
           "SeparateStacks", "WiredRecurrentEncoder", "Recurrence", "Packing",
           "SequenceModule", "Block", "Wired", "WordDropout", "kernels", "DBRNNLabeller",
           "RecurrentLabeller", "head_losses", "weighted_loss", "Seq2SeqLabeller",
           "AdditiveAttention", "Dropout", "is_training", "training_mode",
           "AutoregressiveLabeller", "ConvSeq2SeqLabeller"]
