"""The embeddings: the `embed` layer of spacy.Tok2Vec.v2, from docs to a list
of (n_tokens, width) arrays."""
from typing import Any, List

from spacy.util import registry
from thinc.api import Maxout, Model, chain, concatenate, with_array
from thinc.types import Floats2d

from ..layers.chars import token_dropout, with_char_recurrence
from ..pytorch.chars import CharRecurrence
from .validation import check_args, check_cell_args, check_even

# a words embedding beside a character-level recurrent one, mixed (pytorch/chars.py)
CHAR_RECURRENT_EMBED = "spacy-elstm.CharRecurrentEmbed.v1"


@registry.architectures(CHAR_RECURRENT_EMBED)
def build_char_recurrent_embed(
    width: int,
    words: Model[List[Any], List[Floats2d]],
    char_width: int = 32,
    char_rnn_width: int = 128,
    cell: str = "elstm",
    period: int = 20,
    gates: str = "recurrent",
    max_bytes: int = 20,
    words_dropout: float = 0.0,
) -> Model[List[Any], List[Floats2d]]:
    """Embed each token twice and mix the two: ``words`` (any embedding of docs,
    e.g. spacy.MultiHashEmbed.v2) beside a bidirectional recurrent layer over the
    token's UTF-8 bytes, whose vector is its forward state after the last byte
    and its backward state after the first; the concatenation goes through a
    Maxout layer (3 pieces) with layer norm to ``width``, as MultiHashEmbed
    mixes its features. To be used as the `embed` layer of spacy.Tok2Vec.v2.

    width (int): The output width.
    words (Model): The word-level embedding.
    char_width (int): The width of each byte's embedding.
    char_rnn_width (int): The width of the character layer's output (half per direction).
    cell (str): The character layer's cell, as the encoders take it.
    period (int): Ts of an ELSTM cell, here over the positions in a word.
    gates (str): "recurrent" or "input", as the encoders take it.
    max_bytes (int): A longer word is read as its first and last max_bytes // 2 bytes.
    words_dropout (float): In training, the share of tokens whose ``words``
        vector is dropped (zeroed; the others scaled by 1 / (1 - rate)), so that
        the model learns to tag from the characters, as it must for words the
        training data lacks. 0 (the default) drops nothing.
    """
    check_args(CHAR_RECURRENT_EMBED, width=width, char_width=char_width, max_bytes=max_bytes,
               words_dropout=words_dropout, char_rnn_width=char_rnn_width, cell=cell,
               period=period, gates=gates)
    check_cell_args(CHAR_RECURRENT_EMBED, cell, gates, period)
    check_even(CHAR_RECURRENT_EMBED, char_rnn_width, "char_rnn_width")
    module = CharRecurrence(cell=cell, char_width=char_width, width=char_rnn_width,
                            period=period, gates=gates)
    chars = with_char_recurrence(module, max_bytes=max_bytes, name=f"{cell}_char_brnn")
    mix = with_array(Maxout(width, nP=3, dropout=0.0, normalize=True))
    if words_dropout > 0.0:
        words = chain(words, with_array(token_dropout(words_dropout)))
    model = chain(concatenate(words, chars), mix)
    model.set_dim("nO", width)
    model.name = f"{cell}_char_recurrent_embed"
    return model

