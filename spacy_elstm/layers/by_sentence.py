"""A tok2vec whose encoder reads each sentence of a doc as its own sequence.

spaCy's Tok2Vec.v2 encodes a whole doc as one sequence. A pipeline trained on
one sentence per doc (gold_preproc = true) and given raw text reads a
paragraph of several sentences at once: the recurrent encoder carries its
state from one sentence into the next, and an ELSTM's scaling factors, one per
position, meet positions it was not trained at. Here the embedding reads the
doc as before and the encoder reads each sentence the doc has when it arrives
(its sentence starts, as a sentence splitter before the tok2vec sets them); a
doc without sentence starts is one sequence. The nodes are Tok2Vec.v2's (the
layer, its embed and encode), so the weights of either load into the other.
"""
from typing import Callable, List, Sequence, Tuple

import numpy
from spacy.attrs import SENT_START
from spacy.tokens import Doc
from thinc.api import Model
from thinc.types import Floats2d


def sentence_lengths(doc: Doc) -> List[int]:
    """The tokens of each of the doc's sentences, in order (the whole doc as one
    where no sentence start is set)."""
    if len(doc) == 0 or not doc.has_annotation("SENT_START"):
        return [len(doc)]
    starts = numpy.flatnonzero(doc.to_array(SENT_START) == 1)
    bounds = numpy.union1d(starts, [0, len(doc)])
    return numpy.diff(bounds).tolist()


def encode_by_sentence(embed: Model, encode: Model) -> Model[List[Doc], List[Floats2d]]:
    """embed, then encode each sentence of each doc as its own sequence."""
    dims = {"nO": encode.get_dim("nO") if encode.has_dim("nO") else None}
    return Model("tok2vec_by_sentence", _forward, init=_init, layers=[embed, encode],
                 refs={"embed": embed, "encode": encode}, dims=dims)


def _split(arrays: Sequence, lengths: Sequence[List[int]]) -> List:
    """Each doc's array cut into its sentences' pieces, all docs' in one list."""
    pieces = []
    for array, sizes in zip(arrays, lengths):
        start = 0
        for size in sizes:
            pieces.append(array[start:start + size])
            start += size
    return pieces


def _join(model: Model, pieces: Sequence, lengths: Sequence[List[int]]) -> List:
    """The pieces of `_split` put together again, one array per doc."""
    out, k = [], 0
    for sizes in lengths:
        group = pieces[k:k + len(sizes)]
        k += len(sizes)
        out.append(group[0] if len(group) == 1 else model.ops.xp.concatenate(group, axis=0))
    return out


def _forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], Callable]:
    embed, encode = model.layers
    lengths = [sentence_lengths(doc) for doc in docs]
    embedded, embed_back = embed(docs, is_train)
    encoded, encode_back = encode(_split(embedded, lengths), is_train)

    def backprop(d_out: List[Floats2d]) -> List[Doc]:
        d_pieces = encode_back(_split(d_out, lengths))
        return embed_back(_join(model, d_pieces, lengths))

    return _join(model, encoded, lengths), backprop


def _init(model: Model, X=None, Y=None) -> None:
    embed, encode = model.layers
    embed.initialize(X=X)
    if X is not None:
        lengths = [sentence_lengths(doc) for doc in X]
        encode.initialize(X=_split(embed.predict(X), lengths))
    else:
        encode.initialize()
    if encode.has_dim("nO"):
        model.set_dim("nO", encode.get_dim("nO"))
