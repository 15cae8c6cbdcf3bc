"""Stacked uni- or bidirectional recurrent encoders (RNN, BRNN, deep BRNN)."""
from typing import Iterable, Iterator, List

import torch
from torch import Tensor, nn

from .packing import Packing
from .recurrence import Recurrence
from .sequence import SequenceModule
from .wiring import Block, Wired


class Layer(SequenceModule):
    """One layer of one direction (backward with ``reverse``), or of two (a BRNN
    layer), whose outputs are concatenated [forward, backward]."""

    def __init__(self, *, cell: str, input_width: int, hidden_width: int, period: int,
                 gates: str, bidirectional: bool, reverse: bool = False):
        super().__init__()
        directions = (False, True) if bidirectional else (reverse,)
        self.directions = nn.ModuleList(
            Recurrence(cell=cell, input_width=input_width, hidden_width=hidden_width,
                       period=period, gates=gates, reverse=reverse)
            for reverse in directions
        )

    @property
    def input_width(self) -> int:
        return self.directions[0].input_width

    @property
    def output_width(self) -> int:
        return sum(d.hidden_width for d in self.directions)

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        outputs: List[Tensor] = [d.run(x, packing) for d in self.directions]
        return outputs[0] if len(outputs) == 1 else torch.cat(outputs, dim=-1)


BiLayer = Layer  # the name of releases up to 0.1


def stacked_layers(*, cell: str, input_width: int, width: int, depth: int, bidirectional: bool,
                   period: int, gates: str, reverse: bool = False) -> Iterator[Layer]:
    """``depth`` layers, the first reading ``input_width`` features and each
    writing ``width`` (a bidirectional layer gives each direction ``width // 2``;
    a unidirectional one runs backwards with ``reverse``).
    Made one at a time as they are taken, so a caller that wraps each one draws
    its own random initial weights in between, as it always has."""
    if bidirectional and width % 2:
        raise ValueError(f"A bidirectional encoder needs an even width, got {width}.")
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}.")
    hidden = width // 2 if bidirectional else width
    return (Layer(cell=cell, input_width=n_in, hidden_width=hidden, period=period, gates=gates,
                  bidirectional=bidirectional, reverse=reverse)
            for n_in in [input_width] + [width] * (depth - 1))


class RecurrentEncoder(SequenceModule):
    """``depth`` stacked layers; each bidirectional layer gives each direction
    ``width // 2`` units so that every layer outputs ``width`` features.
    Dropout is applied to the output of every layer while training.
    """

    def __init__(self, *, cell: str, input_width: int, width: int, depth: int = 1,
                 bidirectional: bool = True, period: int = 1, gates: str = "recurrent",
                 dropout: float = 0.0):
        super().__init__()
        self.layers = nn.ModuleList(stacked_layers(
            cell=cell, input_width=input_width, width=width, depth=depth,
            bidirectional=bidirectional, period=period, gates=gates))
        self.dropout = nn.Dropout(dropout)

    @property
    def output_width(self) -> int:
        return self.layers[-1].output_width

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        for layer in self.layers:
            x = self.dropout(layer.run(x, packing))
        return x


class WiredRecurrentEncoder(Wired):
    """The encoder of ``spacy-elstm.RecurrentEncoder.v2``: ``RecurrentEncoder``'s
    layers, each in a ``wiring.Block`` (residual connection, layer norm and
    dropout as asked), after word dropout and dropout on the incoming vectors,
    and before an optional output projection (see ``wiring``). With
    ``residual``, the first layer's skip path maps the input linearly where
    ``input_width != width``. With every option off and no dropout it computes
    ``RecurrentEncoder``.

    ``separate_directions`` (bidirectional only): the forward and the backward
    direction each get a stack of their own, ``width // 2`` wide, whose layers
    read only the layer below in the same direction (ELMo's arrangement), and
    the output is [forward top, backward top]; every Block, layer norm
    included, then sees one direction only. So the forward half at token t has
    read tokens <= t and the backward half tokens >= t, which next- and
    previous-word pretraining needs (``pretraining``). It cannot take a
    projection, which would mix the halves.
    """

    def __init__(self, *, cell: str, input_width: int, width: int, depth: int = 1,
                 bidirectional: bool = True, period: int = 1, gates: str = "recurrent",
                 residual: bool = True, layer_norm: bool = False, projection: bool = False,
                 dropout: float = 0.0, input_dropout: float = 0.0, word_dropout: float = 0.0,
                 separate_directions: bool = False):
        super().__init__(input_width=input_width, width=width, projection=projection,
                         input_dropout=input_dropout, word_dropout=word_dropout)
        if separate_directions and (not bidirectional or projection):
            raise ValueError("separate_directions needs bidirectional = true and "
                             "projection = false (a projection mixes the directions).")
        self.separate_directions = separate_directions

        def stack(width: int, bidirectional: bool, reverse: bool = False) -> nn.ModuleList:
            return nn.ModuleList(
                Block(layer, input_width=layer.input_width, residual=residual,
                      layer_norm=layer_norm, dropout=dropout)
                for layer in stacked_layers(cell=cell, input_width=input_width, width=width,
                                            depth=depth, bidirectional=bidirectional,
                                            period=period, gates=gates, reverse=reverse))

        if separate_directions:
            self.layers = nn.ModuleList([Directions(stack(width // 2, False),
                                                    stack(width // 2, False, reverse=True))])
        else:
            self.layers = stack(width, bidirectional)

    def blocks(self) -> Iterable[SequenceModule]:
        return self.layers


class Directions(SequenceModule):
    """A forward and a backward stack of blocks that never read each other;
    the output is [forward, backward]."""

    def __init__(self, forward: nn.ModuleList, backward: nn.ModuleList):
        super().__init__()
        self.forward_stack, self.backward_stack = forward, backward

    @property
    def output_width(self) -> int:
        return self.forward_stack[-1].output_width + self.backward_stack[-1].output_width

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        f = b = x
        for block in self.forward_stack:
            f = block.run(f, packing)
        for block in self.backward_stack:
            b = block.run(b, packing)
        return torch.cat([f, b], dim=-1)
