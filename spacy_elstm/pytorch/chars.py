"""A character-level recurrent embedding of words: each word's UTF-8 bytes,
embedded, read by a bidirectional recurrent layer of any cell; the word's vector
is the forward direction's state after its last byte beside the backward
direction's state after its first byte (as in Ling et al.'s and Plank et al.'s
taggers). Every word is its own sequence, so a word's vector depends on its
bytes only.
"""
import torch
from torch import Tensor, nn

from .encoder import Layer, half_width

N_BYTES = 256


class CharRecurrence(nn.Module):
    """Bytes (n_bytes,) int64, the words one after another, and the words' byte
    counts (n_words,) int64, each >= 1 -> (n_words, width) vectors."""

    def __init__(self, *, cell: str, char_width: int, width: int, period: int,
                 gates: str = "recurrent"):
        super().__init__()
        self.embed = nn.Embedding(N_BYTES, char_width)
        nn.init.normal_(self.embed.weight, std=char_width ** -0.5)
        self.layer = Layer(cell=cell, input_width=char_width, hidden_width=half_width(width),
                           period=period, gates=gates, bidirectional=True)
        self.width = width

    def forward(self, byte_ids: Tensor, lengths: Tensor) -> Tensor:
        device = self.embed.weight.device
        byte_ids = byte_ids.to(device)
        if lengths.numel() == 0:
            return self.embed.weight.new_zeros(0, self.width)
        if int(lengths.min()) < 1:
            raise ValueError("Every word needs at least one byte.")
        # a Layer's forward takes the sequences one after another (flat)
        states = self.layer(self.embed(byte_ids), lengths, flat=True)
        ends = lengths.cumsum(0).to(device)
        starts = ends - lengths.to(device)
        half = self.width // 2
        return torch.cat([states[ends - 1, :half], states[starts, half:]], dim=-1)
