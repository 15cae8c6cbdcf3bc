"""Pure PyTorch recurrent modules: no thinc or spaCy imports below this point."""
from . import kernels
from .cells import CELLS, GATE_MODES, TABLE, Cell, check_cell
from .dbrnn import DBRNN
from .encoder import BiLayer, Layer, RecurrentEncoder
from .packing import Packing
from .recurrence import Recurrence
from .sequence import SequenceModule

__all__ = ["CELLS", "GATE_MODES", "TABLE", "Cell", "check_cell", "DBRNN", "BiLayer", "Layer",
           "RecurrentEncoder", "Recurrence", "Packing", "SequenceModule", "kernels"]
