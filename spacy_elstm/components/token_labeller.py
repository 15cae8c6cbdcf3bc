"""What the token-labelling components (``elstm_tagger``, ``elstm_seq_parser``)
share: a model laid out as ``layers.with_torch_labeller`` lays it out -- for each doc,
(n_tokens, n_heads * n_labels) log-probabilities, head 0 the one to predict
with --, the weighted per-head loss (``layers.weighted_nll``), and, for a model
that is fed its previous labels (``model.attrs["needs_gold"]``, e.g.
spacy-elstm.Seq2SeqTagger.v1), the gold labels in training: ``update`` hands
them over with ``_teach`` right before ``begin_update`` (see ``layers.labeller``).
Other models train as before. The labels and their serialization are
``PipeWithLabels``'s.
"""
import warnings
from typing import Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from thinc.types import Floats2d

from ..layers import set_teacher, weighted_nll
from ..layers.grad_norm import clip_grad_norm
from .pipe_with_labels import PipeWithLabels


# A doc longer than this with no sentence boundaries gets one warning per component
# from the components that decode per sentence (elstm_seq_parser's trees, the
# seq2seq models' attention): they read it as one sentence.
LONG_DOC_TOKENS = 500


class LongDocWarning(UserWarning):
    """A long doc without sentence boundaries, decoded as one sentence."""


def check_normalize(name: str, normalize) -> bool:
    """``normalize``, a factory's setting, if it is a bool; else a ValueError."""
    if not isinstance(normalize, bool):
        raise ValueError(f"{name}: normalize must be true or false, got {normalize!r}.")
    return normalize


def check_max_grad_norm(name: str, max_grad_norm) -> float:
    """``max_grad_norm``, a factory's setting, if it is a number >= 0; else a ValueError."""
    if isinstance(max_grad_norm, bool) or not isinstance(max_grad_norm, (int, float)) \
            or not 0 <= max_grad_norm < float("inf"):
        raise ValueError(f"{name}: max_grad_norm must be a number >= 0 (0: no clipping), "
                         f"got {max_grad_norm!r}.")
    return float(max_grad_norm)


class TokenLabeller(PipeWithLabels):
    """A component whose model scores one label per token; subclasses set
    ``self.cfg["labels"]``, say what a label means and give each example's gold
    labels (``_gold``)."""

    def _decodes_per_sentence(self) -> Optional[bool]:
        """Whether a long sequence is costly and decoding is per sentence (True)
        or per doc (False); None where the cost is linear in any case (a
        subclass may say so for all its models). The seq2seq models' attention
        is quadratic: per sentence in Seq2SeqTagger.v2, per doc in v1."""
        return self.model.attrs.get("per_sentence")

    def _warn_long_docs(self, docs: Sequence[Doc]) -> None:
        """One warning per component for a doc decoded as one sequence of over
        LONG_DOC_TOKENS tokens, where that is costly: a doc without sentence
        boundaries where decoding is per sentence, any such doc where it is per doc."""
        per_sentence = self._decodes_per_sentence()
        if getattr(self, "_warned_long_doc", False) or per_sentence is None:
            return
        for doc in docs:
            if len(doc) <= LONG_DOC_TOKENS:
                continue
            if not per_sentence:
                what = ("is read as one sequence by its model, whose attention costs the "
                        "square of a sequence's length (spacy-elstm.Seq2SeqTagger.v2 reads "
                        "each sentence instead)")
            elif not doc.has_annotation("SENT_START"):
                what = (f"has no sentence boundaries, so it is decoded as one sentence: slow "
                        f"with a seq2seq model (whose attention costs the square of a "
                        f"sentence's length) and, for a parser, one tree over the whole doc. "
                        f"Add a component that sets sentence boundaries (e.g. 'senter' or "
                        f"'sentencizer') before '{self.name}'")
            else:
                continue
            self._warned_long_doc = True
            warnings.warn(f"{self.name}: a doc of {len(doc)} tokens {what}. Warned once per "
                          f"component, for docs over {LONG_DOC_TOKENS} tokens.",
                          LongDocWarning, stacklevel=3)
            return

    def _label_scores(self, docs) -> List[Floats2d]:
        """Head 0's (n_tokens, n_labels) log-probabilities, per doc."""
        n_labels = len(self.labels)
        return [s[:, :n_labels] for s in self.model.predict(list(docs))]

    def _label_ids(self, gold: Sequence[Optional[str]]) -> List[int]:
        """The index of each gold label in ``labels``; -1 for None or a label
        not in ``labels``."""
        index = {label: i for i, label in enumerate(self.labels)}
        return [index.get(label, -1) if label is not None else -1 for label in gold]

    def _loss(self, gold: Sequence[Optional[str]],
              scores: List[Floats2d]) -> Tuple[float, List[Floats2d]]:
        """The weighted loss of the gold labels (one per token of all docs in
        order; None, or a label not in ``labels``, gives no loss and no gradient),
        summed over the tokens, or averaged with ``cfg["normalize"]``."""
        return weighted_nll(self.model, scores, self._label_ids(gold), name=self.name,
                            normalize=self.normalize)

    @property
    def normalize(self) -> bool:
        """Whether the loss is the mean per labelled token (else the sum);
        pipelines saved before the setting existed summed."""
        return bool(self.cfg.get("normalize", False))

    def finish_update(self, sgd) -> None:
        """TrainablePipe.finish_update, after clipping all the model's gradients
        together to ``max_grad_norm`` (``layers.grad_norm``; 0 or unset: no clipping)."""
        max_norm = self.cfg.get("max_grad_norm", 0.0)
        if max_norm:
            clip_grad_norm(self.model, max_norm)
        super().finish_update(sgd)

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses=None):
        """TrainablePipe.update; first, for a ``needs_gold`` model, the gold labels
        of the predicted docs (``_gold``, a subclass's) go to ``_teach``."""
        examples = list(examples)
        validate_examples(examples, f"{type(self).__name__}.update")
        if self.model.attrs.get("needs_gold") and any(len(eg.predicted) for eg in examples):
            self._teach([eg.predicted for eg in examples],
                        [self._label_ids(self._gold(eg)) for eg in examples])
        return super().update(examples, drop=drop, sgd=sgd, losses=losses)

    def _teach(self, docs: Sequence[Doc], gold_ids: Sequence[Sequence[int]]) -> None:
        """Give the model the gold label ids of ``docs`` (one list per doc, an
        index into ``labels`` per token, -1 where missing) for its next forward
        pass, which must read exactly these docs: the one ``begin_update`` makes."""
        lengths = [len(doc) for doc in docs]
        if [len(ids) for ids in gold_ids] != lengths:
            raise ValueError(f"{self.name}: gold labels for docs of lengths "
                             f"{[len(ids) for ids in gold_ids]}, but the docs have {lengths} "
                             f"tokens.")
        set_teacher(self.model, gold_ids)
