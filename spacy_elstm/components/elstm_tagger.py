"""The ``elstm_tagger`` component: one token attribute (tag, pos or morph)
labelled by a recurrent macro-model (spacy-elstm.RecurrentTagger.v1 or
spacy-elstm.DBRNNTagger.v1), built on spaCy's TrainablePipe.

The model gives, for each doc, (n_tokens, n_heads * n_labels) log-probabilities
(see ``pytorch.labeller``); the component predicts with head 0 (the DBRNN's
pooled p) and trains on sum_k loss_weights[k] * NLL(head k), summed over the
tokens with a known gold label (averaged over them with ``normalize``). A
token whose gold label is missing (None, "", misaligned, or a label not
collected in ``initialize``) gives no loss and no gradient.
"""
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from spacy.language import Language
from spacy.scorer import Scorer
from spacy.tokens import Doc
from spacy.training import Example, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model
from thinc.types import Floats2d

from ..layers import set_n_labels
from .token_labeller import TokenLabeller, check_max_grad_norm, check_normalize

FACTORY = "elstm_tagger"
# the attribute a user names -> the name Example.get_aligned knows it by
ATTRS: Dict[str, str] = {"tag": "TAG", "pos": "POS", "morph": "MORPH"}

DEFAULT_MODEL = Config().from_str("""
[model]
@architectures = "spacy-elstm.DBRNNTagger.v1"
width = 64
cell = "elstm"
period = 100
gates = "recurrent"
dropout = 0.0
loss_pooled = 1.0
loss_forward = 1.0
loss_backward = 1.0
nO = null

[model.tok2vec]
@architectures = "spacy.HashEmbedCNN.v2"
pretrained_vectors = null
width = 64
depth = 1
embed_size = 2000
window_size = 1
maxout_pieces = 3
subword_features = true
""")["model"]


@Language.factory(
    FACTORY,
    assigns=["token.tag", "token.pos", "token.morph"],
    default_config={"model": DEFAULT_MODEL, "attr": "tag", "overwrite": False,
                    "normalize": False, "max_grad_norm": 0.0},
    default_score_weights={"tag_acc": 1.0, "pos_acc": None, "morph_acc": None},
)
def make_elstm_tagger(nlp: Language, name: str, model: Model, attr: str, overwrite: bool,
                      normalize: bool, max_grad_norm: float) -> "ELSTMTagger":
    """A component labelling the token attribute ``attr`` with a recurrent model.

    model (Model[List[Doc], List[Floats2d]]): spacy-elstm.RecurrentTagger.v1 or
        spacy-elstm.DBRNNTagger.v1.
    attr (str): "tag" (token.tag_, e.g. XPOS), "pos" (token.pos_, UPOS) or "morph"
        (token.morph). The training score is <attr>_acc; with attr "pos" or "morph",
        set [training.score_weights] to weight it.
    overwrite (bool): Replace values that tokens already have.
    normalize (bool): Average the loss and its gradient over the batch's labelled
        tokens (as TensorFlow's sequence loss does) in place of summing them.
        Adam is indifferent to the scale; AdaGrad with an initial accumulator (the
        paper's optimiser) is not: summed over a batch, the gradients dwarf the
        accumulator and the first updates move each weight by about the learning rate.
    max_grad_norm (float): Before each update, scale all the model's gradients together
        so that their global L2 norm is at most this (as Gehring et al. and
        torch.nn.utils.clip_grad_norm_ do; the optimizer's grad_clip clips each
        parameter on its own); 0 for no clipping. The model's own weights only: a
        shared tok2vec's are the tok2vec component's.
    """
    return ELSTMTagger(nlp.vocab, model, name, attr=attr, overwrite=overwrite,
                       normalize=normalize, max_grad_norm=max_grad_norm)


class ELSTMTagger(TokenLabeller):
    """Labels one token attribute; see the module docstring."""

    def __init__(self, vocab: Vocab, model: Model, name: str = FACTORY, *, attr: str = "tag",
                 overwrite: bool = False, normalize: bool = False, max_grad_norm: float = 0.0):
        if attr not in ATTRS:
            raise ValueError(f"{FACTORY}: unknown attr {attr!r}: choose one of "
                             f"{', '.join(map(repr, ATTRS))}.")
        self.vocab = vocab
        self.model = model
        self.name = name
        self.cfg = {"labels": [], "attr": attr, "overwrite": overwrite,
                    "normalize": check_normalize(name, normalize),
                    "max_grad_norm": check_max_grad_norm(name, max_grad_norm)}

    @property
    def attr(self) -> str:
        return self.cfg["attr"]

    def _gold(self, example: Example) -> List[Optional[str]]:
        """The gold label of each predicted token; None where it is missing
        (morph "_" is the label of a token annotated with no features)."""
        aligned = example.get_aligned(ATTRS[self.attr], as_string=True)
        return [label if label else None for label in aligned]

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None, labels: Optional[List[str]] = None) -> None:
        """Collect the labels (or take ``labels``), size the heads and initialize
        the model on a sample of the docs."""
        validate_get_examples(get_examples, f"{type(self).__name__}.initialize")
        if labels is None:
            found = set()
            for example in get_examples():
                found.update(label for label in self._gold(example) if label is not None)
            labels = sorted(found)
        if not labels:
            raise ValueError(f"{self.name}: no {self.attr!r} labels in the training examples "
                             f"(attr must name an attribute the corpus annotates).")
        self.cfg["labels"] = list(labels)
        set_n_labels(self.model, len(labels))
        docs = [example.x for example in get_examples()][:10]
        self.model.initialize(X=docs)

    def predict(self, docs: Iterable[Doc]) -> List:
        """The index of the most probable label (head 0) of each token, per doc."""
        docs = list(docs)
        self._warn_long_docs(docs)
        return [self.model.ops.xp.argmax(s, axis=1) for s in self._label_scores(docs)]

    def set_annotations(self, docs: Iterable[Doc], batch_ids: List) -> None:
        labels = self.labels
        overwrite = self.cfg["overwrite"]
        for doc, ids in zip(docs, batch_ids):
            for token, i in zip(doc, self.model.ops.to_numpy(ids).tolist()):
                if self.attr == "tag" and (overwrite or not token.tag_):
                    token.tag_ = labels[i]
                elif self.attr == "pos" and (overwrite or not token.pos_):
                    token.pos_ = labels[i]
                elif self.attr == "morph" and (overwrite or not token.has_morph()):
                    token.set_morph(labels[i])

    def get_loss(self, examples: Iterable[Example],
                 scores: List[Floats2d]) -> Tuple[float, List[Floats2d]]:
        """sum_k w_k * NLL(head k) over the tokens with a known gold label, and
        its gradient w.r.t. the log-probabilities: -w_k at the gold label."""
        return self._loss([label for example in examples for label in self._gold(example)],
                          scores)

    def score(self, examples: Iterable[Example], **kwargs) -> Dict[str, float]:
        """spaCy's token-attribute accuracy: tag_acc, pos_acc, or morph_acc
        and morph_per_feat (as spaCy's morphologizer scores them)."""
        if self.attr != "morph":
            return Scorer.score_token_attr(examples, self.attr, **kwargs)
        examples = list(examples)

        def morph_key(token, attr):
            return getattr(token, attr).key

        scores = Scorer.score_token_attr(examples, "morph", getter=morph_key, **kwargs)
        scores.update(Scorer.score_token_attr_per_feat(examples, "morph", getter=morph_key,
                                                       **kwargs))
        return scores
