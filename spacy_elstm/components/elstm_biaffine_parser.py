"""The ``elstm_biaffine_parser`` component: graph-based dependency parsing with
deep biaffine attention (Dozat & Manning 2017, "Deep Biaffine Attention for
Neural Dependency Parsing") on a tok2vec's vectors.

The model (spacy-elstm.BiaffineParser.v1, ``layers.biaffine``) scores, for
every sentence, each word's possible heads -- the words of its sentence and a
learned ROOT -- and each label of every (word, head) pair. The sentences are
the doc's (a doc without sentence boundaries is one sentence), so no head ever
crosses a sentence boundary and the sentences stay as they are.

Memory: the model scores arcs sentence by sentence and labels only at one head
per word (``layers.biaffine.BiaffineScores``), so a batch holds the sum over
its sentences of n^2 arc scores and n_words x n_labels label scores.

Training: the cross-entropy of each word's gold head among its sentence's words
and ROOT, plus that of its gold label given the gold head. A word whose gold
head or relation is missing, or whose gold head lies outside its sentence,
gives no loss; a relation not among the labels (collected in ``initialize``)
gives no label loss.

Decoding: per sentence, the best tree with exactly one word attached to ROOT
(maximum spanning arborescence, ``heads.mst``), then the best label of each
word at its decoded head. The batch is decoded at once
(``heads.mst.batch_mst_heads``): sentences whose best heads already form such
a tree are found with numpy over all words, and only the others are searched;
the labels' scores are computed from the head side, once per distinct head
(``BiaffineParserScorer.best_labels``).
The heads and relations are written with ``Doc.from_array`` as ``token.head``
and ``token.dep_`` (the root's head is itself), as a transition parser's are.
"""
from typing import Callable, Iterable, List, Optional, Tuple

import numpy
from spacy.attrs import DEP, HEAD
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model

from ..heads.mst import batch_mst_heads
from ..layers.biaffine import BiaffineScores, sentence_lengths, set_n_labels
from .pipe_with_labels import PipeWithLabels

FACTORY = "elstm_biaffine_parser"

DEFAULT_MODEL = Config().from_str("""
[model]
@architectures = "spacy-elstm.BiaffineParser.v1"
arc_width = 500
label_width = 100
dropout = 0.33
nO = null

[model.tok2vec]
@architectures = "spacy.HashEmbedCNN.v2"
pretrained_vectors = null
width = 96
depth = 4
embed_size = 2000
window_size = 1
maxout_pieces = 3
subword_features = true
""")["model"]


@Language.factory(
    FACTORY,
    assigns=["token.dep", "token.head", "token.is_sent_start", "doc.sents"],
    default_config={"model": DEFAULT_MODEL, "scorer": {"@scorers": "spacy.parser_scorer.v1"},
                    "loss_weight": 1.0},
    default_score_weights={"dep_uas": 0.5, "dep_las": 0.5, "dep_las_per_type": None,
                           "sents_p": None, "sents_r": None, "sents_f": None},
)
def make_elstm_biaffine_parser(nlp: Language, name: str, model: Model,
                               scorer: Optional[Callable],
                               loss_weight: float = 1.0) -> "ELSTMBiaffineParser":
    """A graph-based dependency parser within the doc's sentences.

    model (Model[List[Doc], Tuple]): spacy-elstm.BiaffineParser.v1.
    scorer (Optional[Callable]): The scoring method; spacy.parser_scorer.v1 by
        default (dep_uas, dep_las, dep_las_per_type).
    loss_weight (float): The factor on the gradient the parser passes back
        (to its own weights and to a shared tok2vec through its listener), against
        the other components' gradients at a shared tok2vec; 1.0 by default. The
        reported loss is the unweighted one.
    """
    if not (isinstance(loss_weight, (int, float)) and 0 < loss_weight < float("inf")):
        raise ValueError(f"components.{name}.loss_weight must be a positive finite number, "
                         f"got {loss_weight!r}.")
    return ELSTMBiaffineParser(nlp.vocab, model, name, scorer=scorer, loss_weight=loss_weight)


class ELSTMBiaffineParser(PipeWithLabels):
    """Parses each sentence into its best tree; see the module docstring. Its
    labels are the dependency relations."""

    def __init__(self, vocab: Vocab, model: Model, name: str = FACTORY, *,
                 scorer: Optional[Callable] = None, loss_weight: float = 1.0):
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.loss_weight = float(loss_weight)
        self.cfg = {"labels": []}

    def _size_model(self) -> None:
        if self.labels:
            set_n_labels(self.model, len(self.labels))

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None, labels: Optional[List[str]] = None) -> None:
        """Collect the gold relations (or take ``labels``), size the label
        weights and initialize the model on a sample of the docs."""
        validate_get_examples(get_examples, f"{type(self).__name__}.initialize")
        if labels is None:
            labels = sorted({token.dep_ for example in get_examples()
                             for token in example.reference if token.dep_})
        if not labels:
            raise ValueError(f"{self.name}: no dependency relations in the training examples "
                             f"(the corpus must annotate heads and relations).")
        self.cfg["labels"] = list(labels)
        self._size_model()
        self.model.initialize(X=[example.x for example in get_examples()][:10])

    def _targets(self, examples: Iterable[Example], lengths: List[int]):
        """(heads, labels), each an int array over the words of all sentences:
        the gold head of each word (0 = ROOT, j = word j - 1 of its sentence)
        and the index of its gold relation in ``labels``; -1 where there is
        none to learn."""
        heads = numpy.full(sum(lengths), -1, dtype="int64")
        labels = numpy.full(sum(lengths), -1, dtype="int64")
        index = {label: i for i, label in enumerate(self.labels)}
        s = w = 0  # sentences and words so far
        for example in examples:
            gold_heads, gold_deps = example.get_aligned_parse(projectivize=False)
            start = 0
            for n in sentence_lengths(example.predicted):
                for i in range(n):
                    head, dep = gold_heads[start + i], gold_deps[start + i]
                    if head is None or not dep:
                        continue
                    head = int(head)
                    if head == start + i:
                        heads[w + i] = 0
                    elif start <= head < start + n:
                        heads[w + i] = head - start + 1
                    else:
                        continue
                    labels[w + i] = index.get(dep, -1)
                start += n
                w += n
                s += 1
        if s != len(lengths):
            raise ValueError(f"{self.name}: the examples have {s} sentences, the scores "
                             f"{len(lengths)}.")
        return heads, labels

    def get_loss(self, examples: Iterable[Example], scores: BiaffineScores) -> Tuple[float, Tuple]:
        """The summed cross-entropy of the gold heads and of the gold labels
        given the gold heads, and its gradient: one (n, n + 1) array per
        sentence's arcs, and one for the label scores at the gold heads (None
        where no word has a gold label)."""
        ops = self.model.ops
        xp = ops.xp
        gold_heads, gold_labels = self._targets(examples, scores.lengths)
        loss = 0.0
        d_arcs = []
        start = 0
        for arcs, n in zip(scores.arcs, scores.lengths):
            heads = gold_heads[start:start + n]
            start += n
            d_arcs.append(ops.alloc2f(n, n + 1))
            loss += _cross_entropy(xp, arcs, heads, d_arcs[-1])
        d_labels = None
        if (gold_labels >= 0).any():
            label_scores = scores.labels(numpy.maximum(gold_heads, 0))
            d_labels = ops.alloc2f(*label_scores.shape)
            loss += _cross_entropy(xp, label_scores, gold_labels, d_labels)
        if self.loss_weight != 1.0:
            d_arcs = [d * self.loss_weight for d in d_arcs]
            d_labels = None if d_labels is None else d_labels * self.loss_weight
        return float(loss), (d_arcs, d_labels)

    def predict(self, docs: Iterable[Doc]) -> List[Tuple[numpy.ndarray, numpy.ndarray]]:
        """Per doc, (heads, label ids): each word's head as an index into the
        doc (a root its own index) and its relation's index in ``labels``."""
        docs = list(docs)
        if not docs:
            return []
        scores = self.model.predict(docs)
        heads = decode_heads(self.model.ops, scores)
        labels = (self.model.ops.to_numpy(scores.best_labels(heads)).astype("int64")
                  if len(heads) else heads)
        # 0 = ROOT becomes the word itself, j >= 1 word j - 1 of its sentence;
        # then numbered within the doc (the batch's words are the docs' in order)
        lengths = numpy.asarray(scores.lengths, dtype="int64")
        sentence_starts = numpy.repeat(numpy.cumsum(lengths) - lengths, lengths)
        words = numpy.arange(len(heads))
        in_batch = numpy.where(heads == 0, words, sentence_starts + heads - 1)
        doc_lengths = [len(doc) for doc in docs]
        doc_starts = numpy.repeat(numpy.cumsum(doc_lengths) - doc_lengths, doc_lengths)
        in_doc = in_batch - doc_starts
        bounds = numpy.cumsum(doc_lengths)[:-1]
        return list(zip(numpy.split(in_doc, bounds), numpy.split(labels, bounds)))

    def set_annotations(self, docs: Iterable[Doc], parses) -> None:
        labels = self.labels
        for doc, (heads, label_ids) in zip(docs, parses):
            if len(doc) == 0:
                continue
            offsets = (heads - numpy.arange(len(doc))).astype("uint64")
            deps = numpy.asarray([self.vocab.strings.add(labels[k]) for k in label_ids],
                                 dtype="uint64")
            # HEAD is the head's offset (negative ones wrap around in uint64, as
            # Doc.to_array gives them); each tree spans exactly its sentence, so
            # the sentence starts from_array derives are the ones the doc had
            doc.from_array([HEAD, DEP], numpy.stack([offsets, deps], axis=1))


def decode_heads(ops, scores: BiaffineScores) -> numpy.ndarray:
    """Each word's head in the best one-root tree of its sentence (0 = ROOT,
    j = word j - 1), over the batch (``heads.mst.batch_mst_heads``): the arc
    scores go to the host in one copy, not one per sentence."""
    if not scores.arcs:
        return numpy.zeros(0, dtype="int64")
    flat = ops.to_numpy(ops.xp.concatenate([arcs.ravel() for arcs in scores.arcs]))
    return batch_mst_heads(flat, scores.lengths)


def _cross_entropy(xp, scores, gold: numpy.ndarray, d_scores) -> float:
    """The summed cross-entropy of the gold column of each row of ``scores``
    (a 2d array) whose gold is >= 0, its gradient written into those rows of
    ``d_scores``."""
    rows = numpy.flatnonzero(gold >= 0)
    if not len(rows):
        return 0.0
    rows_xp, gold_xp = xp.asarray(rows), xp.asarray(gold[rows])
    picked = scores[rows_xp]
    shifted = picked - picked.max(axis=-1, keepdims=True)
    log_probs = shifted - xp.log(xp.exp(shifted).sum(axis=-1, keepdims=True))
    k = xp.arange(len(rows))
    loss = -float(log_probs[k, gold_xp].sum())  # log-softmax: no log(0) for unlikely golds
    probs = xp.exp(log_probs)
    probs[k, gold_xp] -= 1.0
    d_scores[rows_xp] = probs
    return loss
