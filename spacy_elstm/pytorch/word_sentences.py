"""A word-level sentence-end model: which words end a sentence, read by a
bidirectional recurrent encoder over the words (their lower-cased form, their
shape and the whitespace after each), the second view beside the character
model's (`segmenter.py`) in `elstm_senter`."""
from typing import Optional

import torch
from torch import Tensor, nn

from .encoder import RecurrentEncoder
from .mode import Dropout

# What a word looks like (its first characters): padding, Capitalised, UPPER,
# lower, digit, punctuation, anything else
N_SHAPES = 7
# The whitespace after a word: padding, none, spaces, a line break, a blank
# line, the end of the text
N_GAPS = 6
FEATURE_WIDTH = 8
SUFFIX_WIDTH = 32  # a word's last characters, where the model reads them


class WordSentenceModel(nn.Module):
    """Word ids, shapes and gaps (n_words,) int64, the texts one after another,
    and the texts' lengths (n_texts,) int64 -> the logit that each word ends a
    sentence (n_words,). Plain stacked layers unless `skip` (the character
    model's skip connections and layer norm: on EWT dev they moved sentence F1
    by tenths, `python -m lab.senter_words`). With `char_bins`, each word
    also reads the character model's probability that a sentence ends at its
    last character, in that many equal bins (`char_ends`, (n_words,) int64).
    With `suffix_chars`, each word also reads its last that many characters, one
    of `n_suffixes` ids (`suffix_ids`, (n_words,) int64): where words are rare,
    as in agglutinative languages, the ending says what the word does."""

    def __init__(self, *, n_words: int, word_width: int, width: int, depth: int, cell: str,
                 period: int, dropout: float, skip: bool = False, char_bins: int = 0,
                 suffix_chars: int = 0, n_suffixes: int = 0):
        super().__init__()
        self.words = nn.Embedding(n_words, word_width)
        self.shapes = nn.Embedding(N_SHAPES, FEATURE_WIDTH)
        self.gaps = nn.Embedding(N_GAPS, FEATURE_WIDTH)
        self.char_ends = nn.Embedding(char_bins, FEATURE_WIDTH) if char_bins else None
        self.suffixes = nn.Embedding(n_suffixes, SUFFIX_WIDTH) if suffix_chars else None
        self.dropout = Dropout(dropout)
        features = ((3 if char_bins else 2) * FEATURE_WIDTH
                    + (SUFFIX_WIDTH if suffix_chars else 0))
        self.encoder = RecurrentEncoder(cell=cell, input_width=word_width + features,
                                        width=width, depth=depth, bidirectional=True,
                                        period=period, residual=skip, layer_norm=skip,
                                        dropout=dropout)
        self.output = nn.Linear(width, 1)

    def forward(self, word_ids: Tensor, shapes: Tensor, gaps: Tensor, lengths: Tensor,
                char_ends: Optional[Tensor] = None,
                suffix_ids: Optional[Tensor] = None) -> Tensor:
        parts = [self.dropout(self.words(word_ids)), self.shapes(shapes), self.gaps(gaps)]
        if self.char_ends is not None:
            parts.append(self.char_ends(char_ends))
        if self.suffixes is not None:
            parts.append(self.dropout(self.suffixes(suffix_ids)))
        x = torch.cat(parts, dim=-1)
        return self.output(self.encoder(x, lengths, flat=True)).squeeze(-1)
