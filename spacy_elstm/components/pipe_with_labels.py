"""What every spacy-elstm component shares: a label list in ``cfg["labels"]``
that sizes the model's output (the tagger's tags, a parser's relations), and
serialization that sizes the model from the saved labels before it reads the
weights (loading never reruns ``initialize``)."""
from typing import List, Tuple

import srsly
from spacy import util
from spacy.pipeline import TrainablePipe

from ..layers import set_n_labels


class PipeWithLabels(TrainablePipe):
    """A TrainablePipe whose model's output size is its number of labels;
    subclasses fill ``self.cfg["labels"]`` and say what a label means."""

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(self.cfg["labels"])

    @property
    def label_data(self) -> List[str]:
        return list(self.labels)

    def _size_model(self) -> None:
        # the heads must have their trained size before the weights are read
        if self.labels:
            set_n_labels(self.model, len(self.labels))

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()):
        def load_model(b: bytes) -> None:
            self._size_model()
            self.model.from_bytes(b)

        deserialize = {
            "cfg": lambda b: self.cfg.update(srsly.json_loads(b)),
            "vocab": lambda b: self.vocab.from_bytes(b, exclude=exclude),
            "model": load_model,
        }
        util.from_bytes(bytes_data, deserialize, exclude)
        return self

    def from_disk(self, path, *, exclude=tuple()):
        def load_model(p) -> None:
            self._size_model()
            with open(p, "rb") as file_:
                self.model.from_bytes(file_.read())

        deserialize = {
            "cfg": lambda p: self.cfg.update(srsly.read_json(p)),
            "vocab": lambda p: self.vocab.from_disk(p, exclude=exclude),
            "model": load_model,
        }
        util.from_disk(path, deserialize, exclude)
        return self
