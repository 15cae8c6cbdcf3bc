"""The memory experiments of the ELSTM paper (Su & Kuo, Sec. 2 and 3.1): the
memory response of each input position to a cell's last output (``response``),
the cells found inside a trained spaCy pipeline (``pipeline``), and the "A among
Bs" toy experiment (``among_bs``). Imported by `spacy-elstm memory` only, so the
runtime never loads it."""
