"""The tok2vec: spacy.Tok2Vec.v2 with the encoder reading sentence by sentence."""
from typing import List

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

from ..layers.by_sentence import encode_by_sentence

# embed, then encode each sentence of a doc as its own sequence (layers/by_sentence.py)
SENTENCE_TOK2VEC = "spacy-elstm.SentenceTok2Vec.v1"


@registry.architectures(SENTENCE_TOK2VEC)
def build_sentence_tok2vec(
    embed: Model[List[Doc], List[Floats2d]],
    encode: Model[List[Floats2d], List[Floats2d]],
) -> Model[List[Doc], List[Floats2d]]:
    """spacy.Tok2Vec.v2 whose encoder reads each sentence of a doc as its own
    sequence: the sentences a sentence splitter earlier in the pipeline set (a
    doc without sentence starts is one sequence). On one sentence per doc, as
    training with gold_preproc = true gives them, it is Tok2Vec.v2; a pipeline
    saved with either loads with the other (the same weights).

    embed (Model): Embed tokens into context-independent vectors.
    encode (Model): Encode context into them, one sentence at a time.
    """
    return encode_by_sentence(embed, encode)
