"""What `spacy train` loads from this package besides the models: the training
log (`logger.py`), the optimizers (`optimizers.py`), the pretraining objective
(`pretraining.py`) and the gold-lemma corpus reader (`readers.py`).
"""
