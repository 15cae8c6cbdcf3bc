"""The ``elstm_seq_parser`` component: dependency parsing as sequence labelling.

Each word gets one label that encodes its head and its relation (``relative``:
the head's signed offset; ``pos``: the k-th word to the left or right with a
given UPOS, Strzyz et al. 2019; see ``heads.encoding``). The model is a
labeller as for ``elstm_tagger`` (spacy-elstm.RecurrentTagger.v1 or
spacy-elstm.DBRNNTagger.v1: per doc, (n_tokens, n_heads * n_labels)
log-probabilities, predicting with head 0 and trained on the weighted loss of
all heads). Su & Kuo (Sec. 5) label each word with its relation and its head's
absolute position; the encodings here are relative, so that a label does not
depend on where in the sentence the word is.

Decoding is per sentence, from the doc's sentence boundaries; each sentence's
label scores become one well-formed tree (one root, no cycle, heads inside the
sentence: ``heads.decoding``), so no head crosses a sentence boundary and
the sentences stay as they are. A doc without sentence boundaries is parsed as
one sentence (over ``token_labeller.LONG_DOC_TOKENS`` tokens, with one warning
per component). Decoding a sentence costs O(n log n) in its n words. The heads
and relations are written with ``Doc.from_array``, as ``token.head`` and
``token.dep_`` (the root's head is itself), so the parser scorer, displaCy and
CoNLL-U output read them as a transition parser's.

``interleaved`` is the paper's own target (``heads.interleaved``): each word
gives two labels in turn, its relation and its head's position in the sentence
(CoNLL-U numbering), decoded by a model that emits two labels per token
(spacy-elstm.Seq2SeqTagger.v1 or ConvSeq2SeqTagger.v1 with ``interleaved =
true``); the heads are the maximum spanning tree over the position scores.
Positions count within the gold sentences in training and within the doc's
sentences when parsing, so train and parse on sentence-split docs
(``gold_preproc``), as the paper did.

Training labels are encoded from the reference's heads and relations (aligned
to the predicted tokens, not projectivized) and, for ``pos``, its gold UPOS;
decoding reads ``token.pos_`` of the doc being parsed, as an earlier component
(a tagger or morphologizer) predicted it; a doc with no ``pos`` at all is refused
with a ValueError naming the component (its parse would be flat). A token with a missing head or
relation (or, for ``pos``, whose head's gold UPOS is missing) gives no loss, as
does one whose label was seen fewer than ``min_label_freq`` times in
``initialize`` (such labels are dropped).
"""
from collections import Counter
from typing import Callable, Iterable, List, Optional, Tuple

import numpy
from spacy.attrs import DEP, HEAD
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Model
from thinc.types import Floats2d

from ..heads import (ENCODINGS, LabelSet, PairLabels, decode_pairs, decode_scores, encode,
                     encode_pairs)
from ..layers import set_n_labels, weighted_nll
from .elstm_tagger import DEFAULT_MODEL
from .token_labeller import TokenLabeller, check_max_grad_norm, check_normalize

FACTORY = "elstm_seq_parser"
INTERLEAVED = "interleaved"


@Language.factory(
    FACTORY,
    assigns=["token.dep", "token.head", "token.is_sent_start", "doc.sents"],
    default_config={"model": DEFAULT_MODEL, "encoding": "relative", "min_label_freq": 1,
                    "normalize": False, "max_grad_norm": 0.0,
                    "scorer": {"@scorers": "spacy.parser_scorer.v1"}},
    default_score_weights={"dep_uas": 0.5, "dep_las": 0.5, "dep_las_per_type": None,
                           "sents_p": None, "sents_r": None, "sents_f": None},
)
def make_elstm_seq_parser(nlp: Language, name: str, model: Model, encoding: str,
                         min_label_freq: int, normalize: bool, max_grad_norm: float,
                         scorer: Optional[Callable]) -> "ELSTMSeqParser":
    """A dependency parser labelling each word with its head and relation.

    model (Model[List[Doc], List[Floats2d]]): spacy-elstm.RecurrentTagger.v1 or
        spacy-elstm.DBRNNTagger.v1.
    encoding (str): "relative" (the head's signed offset), "pos" (the k-th word
        with the head's UPOS; needs token.pos_ from an earlier component) or
        "interleaved" (relation, then head position: the paper's target; needs
        spacy-elstm.Seq2SeqTagger.v1 or ConvSeq2SeqTagger.v1 with interleaved = true).
    min_label_freq (int): Labels seen fewer times in the training data are dropped.
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
    scorer (Optional[Callable]): The scoring method; spacy.parser_scorer.v1 by
        default (dep_uas, dep_las, dep_las_per_type).
    """
    return ELSTMSeqParser(nlp.vocab, model, name, encoding=encoding,
                          min_label_freq=min_label_freq, normalize=normalize,
                          max_grad_norm=max_grad_norm, scorer=scorer)


class ELSTMSeqParser(TokenLabeller):
    """Parses by labelling; see the module docstring."""

    def __init__(self, vocab: Vocab, model: Model, name: str = FACTORY, *,
                 encoding: str = "relative", min_label_freq: int = 1,
                 normalize: bool = False, max_grad_norm: float = 0.0,
                 scorer: Optional[Callable] = None):
        if encoding != INTERLEAVED and encoding not in ENCODINGS:
            allowed = ", ".join(map(repr, [*ENCODINGS, INTERLEAVED]))
            raise ValueError(f"{FACTORY}: unknown encoding {encoding!r}: choose one of "
                             f"{allowed}.")
        if bool(model.attrs.get("interleaved")) != (encoding == INTERLEAVED):
            raise ValueError(
                f"{FACTORY}: the encoding {encoding!r} needs a model that emits "
                + ("two labels per token (spacy-elstm.Seq2SeqTagger.v1 or "
                   "ConvSeq2SeqTagger.v1 with interleaved = true)" if encoding == INTERLEAVED
                   else "one label per token (a model with interleaved = true is for "
                   "encoding 'interleaved')") + ".")
        if isinstance(min_label_freq, bool) or not isinstance(min_label_freq, int) \
                or min_label_freq < 1:
            raise ValueError(f"{FACTORY}: min_label_freq must be an integer >= 1, got "
                             f"{min_label_freq!r}.")
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.cfg = {"labels": [], "encoding": encoding, "min_label_freq": min_label_freq,
                    "normalize": check_normalize(name, normalize),
                    "max_grad_norm": check_max_grad_norm(name, max_grad_norm)}
        self._label_set: Optional[LabelSet] = None

    @property
    def encoding(self) -> str:
        return self.cfg["encoding"]

    def _labels(self):
        if self._label_set is None or self._label_set.labels != list(self.labels):
            self._label_set = (PairLabels(self.labels) if self.encoding == INTERLEAVED
                               else LabelSet(self.labels, self.encoding))
        return self._label_set

    def _gold(self, example: Example) -> List:
        """The gold label of each predicted token (interleaved: its (relation,
        position) pair); None where it is missing."""
        heads, deps = example.get_aligned_parse(projectivize=False)
        if self.encoding == INTERLEAVED:
            starts, start = [], 0
            for i, is_start in enumerate(example.get_aligned_sent_starts()):
                start = i if is_start else start
                starts.append(start)
            heads = [None if h is None else int(h) for h in heads]
            return encode_pairs(heads, [d or None for d in deps], starts)
        pos = None
        if self.encoding == "pos":
            pos = [tag or "" for tag in example.get_aligned("POS", as_string=True)]
        heads = [None if h is None else int(h) for h in heads]
        return encode(heads, [d or None for d in deps], self.encoding, pos)

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None, labels: Optional[List[str]] = None) -> None:
        """Collect the labels seen at least ``min_label_freq`` times (or take
        ``labels``), size the heads and initialize the model on a sample of the docs."""
        validate_get_examples(get_examples, f"{type(self).__name__}.initialize")
        if labels is None:
            counts = Counter(label for example in get_examples()
                             for gold in self._gold(example) if gold is not None
                             for label in (gold if isinstance(gold, tuple) else (gold,)))
            labels = sorted(label for label, n in counts.items()
                            if n >= self.cfg["min_label_freq"])
        if not labels:
            raise ValueError(f"{self.name}: no dependency labels in the training examples "
                             f"(the corpus must annotate heads and relations"
                             f"{' and UPOS' if self.encoding == 'pos' else ''}).")
        self.cfg["labels"] = list(labels)
        set_n_labels(self.model, len(labels))
        docs = [example.x for example in get_examples()][:10]
        self.model.initialize(X=docs)

    def predict(self, docs: Iterable[Doc]) -> List:
        """Head 0's (n_tokens, n_labels) log-probabilities per doc, on the CPU
        (interleaved: both steps', (n_tokens, 2 * n_labels))."""
        docs = list(docs)
        self._check_pos(docs)
        self._warn_long_docs(docs)
        scores = (self.model.predict(docs) if self.encoding == INTERLEAVED
                  else self._label_scores(docs))
        return [self.model.ops.to_numpy(s) for s in scores]

    def _decodes_per_sentence(self) -> bool:
        return True  # one tree per sentence

    def _check_pos(self, docs: List[Doc]) -> None:
        """The pos encoding decodes heads from token.pos_: a ValueError if a
        non-empty doc has none (its parse would be flat: every word on the root)."""
        if self.encoding != "pos":
            return
        for doc in docs:
            if len(doc) and not doc.has_annotation("POS"):
                raise ValueError(
                    f"{self.name}: the 'pos' encoding decodes heads from token.pos_, and a "
                    f"doc of {len(doc)} tokens has none. Put a component that sets `pos` "
                    f"(a morphologizer, an elstm_tagger with attr = \"pos\", or a tagger "
                    f"with an attribute_ruler) before '{self.name}' in the pipeline, or "
                    f"train the parser with encoding = \"relative\".")

    def set_annotations(self, docs: Iterable[Doc], scores: List) -> None:
        docs = list(docs)
        self._check_pos(docs)  # before any doc is written
        label_set = self._labels()
        for doc, doc_scores in zip(docs, scores):
            if len(doc) == 0:
                continue
            sents = list(doc.sents) if doc.has_annotation("SENT_START") else [doc[:]]
            pos = [token.pos_ for token in doc] if self.encoding == "pos" else None
            offsets = numpy.zeros(len(doc), dtype="int64")
            deps = numpy.zeros(len(doc), dtype="uint64")
            for sent in sents:
                start, end = sent.start, sent.end
                if self.encoding == INTERLEAVED:
                    heads, relations = decode_pairs(doc_scores[start:end], label_set)
                else:
                    heads, relations = decode_scores(doc_scores[start:end], label_set,
                                                     None if pos is None else pos[start:end])
                for i, (head, dep) in enumerate(zip(heads, relations)):
                    offsets[start + i] = head - i
                    deps[start + i] = self.vocab.strings.add(dep)
            # HEAD is the head's offset (negative ones wrap around in uint64, as
            # Doc.to_array gives them); from_array sets the sentence starts from
            # the trees, and each tree spans exactly its sentence, so they are the
            # sentences the doc had
            doc.from_array([HEAD, DEP], numpy.stack([offsets.astype("uint64"), deps], axis=1))

    def get_loss(self, examples: Iterable[Example],
                 scores: List[Floats2d]) -> Tuple[float, List[Floats2d]]:
        """sum_k w_k * NLL(head k) over the tokens with a known gold label, and
        its gradient w.r.t. the log-probabilities: -w_k at the gold label."""
        gold = [label for example in examples for label in self._gold(example)]
        if self.encoding == INTERLEAVED:
            return weighted_nll(self.model, scores, self._pair_ids(gold), name=self.name,
                                normalize=self.normalize)
        return self._loss(gold, scores)

    def _pair_ids(self, gold: List) -> List[Tuple[int, int]]:
        """Interleaved: each token's (relation, position) as two label indices;
        (-1, -1) where either is missing or not among the labels."""
        index = {label: i for i, label in enumerate(self.labels)}
        ids = []
        for pair in gold:
            a, b = (index.get(pair[0], -1), index.get(pair[1], -1)) if pair else (-1, -1)
            ids.append((a, b) if a >= 0 and b >= 0 else (-1, -1))
        return ids

    def _label_ids(self, gold: List) -> List[int]:
        """As TokenLabeller's; interleaved, each token's pair as the one id
        a * n_labels + b the model is taught with (-1 where missing)."""
        if self.encoding != INTERLEAVED:
            return super()._label_ids(gold)
        n = len(self.labels)
        return [a * n + b if a >= 0 else -1 for a, b in self._pair_ids(gold)]
