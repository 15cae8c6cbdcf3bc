"""A character-level segmenter: which characters of a text end a word, a token
or a sentence, read by a bidirectional recurrent encoder of any cell over the
characters (as Stanza and UDPipe read them with a BiLSTM)."""
import torch
from torch import Tensor, nn

from .encoder import RecurrentEncoder

# Per character: inside a word (or whitespace), the end of a word inside a
# multiword token, the end of a token, the end of a token and of its sentence
LABELS = ("inside", "word_end", "token_end", "sentence_end")
# What kind of character it is: space, other whitespace, lowercase, uppercase,
# digit, punctuation, anything else
N_SHAPES = 7
SHAPE_WIDTH = 8


class CharSegmenter(nn.Module):
    """Character ids and shapes (n_chars,) int64, the texts one after another,
    and the texts' lengths (n_texts,) int64 -> label logits (n_chars, 4)."""

    def __init__(self, *, n_chars: int, char_width: int, width: int, depth: int, cell: str,
                 period: int, dropout: float):
        super().__init__()
        self.embed = nn.Embedding(n_chars, char_width)
        self.shape = nn.Embedding(N_SHAPES, SHAPE_WIDTH)
        self.encoder = RecurrentEncoder(cell=cell, input_width=char_width + SHAPE_WIDTH,
                                        width=width, depth=depth, bidirectional=True,
                                        period=period, residual=True, layer_norm=True,
                                        dropout=dropout)
        self.output = nn.Linear(width, len(LABELS))

    def forward(self, char_ids: Tensor, shapes: Tensor, lengths: Tensor) -> Tensor:
        x = torch.cat([self.embed(char_ids), self.shape(shapes)], dim=-1)
        return self.output(self.encoder(x, lengths, flat=True))
