"""Pure PyTorch recurrent modules: no thinc or spaCy imports below this point."""
from .cells import CELLS, GATE_MODES, check_cell
from .dbrnn import DBRNN
from .encoder import BiLayer, RecurrentEncoder
from .padding import Packing
from .recurrence import Recurrence

__all__ = ["CELLS", "GATE_MODES", "check_cell", "DBRNN", "BiLayer", "RecurrentEncoder",
           "Recurrence", "Packing"]
