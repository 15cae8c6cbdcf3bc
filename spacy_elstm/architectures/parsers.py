"""The graph-based parser: a tok2vec, then biaffine arc and label scores per
sentence (pytorch/biaffine.py), for the elstm_biaffine_parser component."""
from typing import Any, List, Optional, Tuple

from spacy.util import registry
from thinc.api import Model

from ..layers.biaffine import with_torch_biaffine
from ..pytorch.biaffine import BiaffineParserScorer
from .validation import check_args, check_tagger_args, input_width

BIAFFINE_PARSER = "spacy-elstm.BiaffineParser.v1"


@registry.architectures(BIAFFINE_PARSER)
def build_biaffine_parser(
    tok2vec: Model,
    arc_width: int = 500,
    label_width: int = 100,
    dropout: float = 0.33,
    nO: Optional[int] = None,
) -> Model[List[Any], Tuple]:
    """Deep biaffine scores for dependency parsing (Dozat & Manning 2017): per
    sentence, MLPs give each word a dependent and a head representation (and a
    learned ROOT vector one as head), the arc scores are biaffine with a head
    bias, the label scores a biaffine classifier on (dependent, head) pairs.
    For the elstm_biaffine_parser component; outputs the batch's sentences'
    arc scores, one (n, n + 1) array each, and their label scores at the heads
    asked for (spacy_elstm.layers.biaffine.BiaffineScores).

    tok2vec (Model[List[Doc], List[Floats2d]]): The word vectors: a shared
        tok2vec's listener or the parser's own.
    arc_width (int): The width of the arc MLPs' output.
    label_width (int): The width of the label MLPs' output.
    dropout (float): Dropout on the MLPs' outputs while training.
    nO (Optional[int]): The number of labels; null to take it from the component's labels.
    """
    check_args(BIAFFINE_PARSER, arc_width=arc_width, label_width=label_width, dropout=dropout)
    check_tagger_args(BIAFFINE_PARSER, nO)
    module = BiaffineParserScorer(input_width=input_width(BIAFFINE_PARSER, tok2vec),
                                  arc_width=arc_width, label_width=label_width,
                                  n_labels=nO or 0, dropout=dropout)
    return with_torch_biaffine(tok2vec, module, name="biaffine_parser")
