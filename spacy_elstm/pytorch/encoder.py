"""Stacked uni- or bidirectional recurrent encoders (RNN, BRNN, deep BRNN)."""
from typing import Iterable, Iterator, List, Optional

import torch
from torch import Tensor, nn

from .packing import Packing
from .recurrence import Recurrence
from .second_order import SecondOrder
from .saved_layouts import UpgradesSavedLayout
from .sequence import SequenceModule
from .wiring import Block, Wired


def half_width(width: int, arg: str = "width") -> int:
    """The width of each direction of a bidirectional layer ``width`` wide: the
    even-width rule, here and nowhere else (``arg``: the argument's name, for
    the message)."""
    if width % 2:
        raise ValueError(f"{arg} {width} is odd; a bidirectional encoder splits it evenly "
                         f"between its directions, so use an even width such as {width + 1}.")
    return width // 2


class Layer(UpgradesSavedLayout, SequenceModule):
    """One recurrent layer: one RNN (running backwards with ``reverse``), or with
    ``bidirectional`` a forward and a backward RNN (``rnns``, in that order)
    whose outputs are concatenated [forward, backward]. ``second_order``: the
    options of a second-order cell (``Recurrence``)."""

    def __init__(self, *, cell: str, input_width: int, hidden_width: int, period: int,
                 gates: str, bidirectional: bool, reverse: bool = False,
                 second_order: Optional[SecondOrder] = None):
        super().__init__()
        reverses = (False, True) if bidirectional else (reverse,)
        self.rnns = nn.ModuleList(
            Recurrence(cell=cell, input_width=input_width, hidden_width=hidden_width,
                       period=period, gates=gates, reverse=reverse, second_order=second_order)
            for reverse in reverses
        )

    @property
    def input_width(self) -> int:
        return self.rnns[0].input_width

    @property
    def output_width(self) -> int:
        return sum(rnn.hidden_width for rnn in self.rnns)

    def run(self, x: Tensor, packing: Packing) -> Tensor:
        outputs: List[Tensor] = [rnn.run(x, packing) for rnn in self.rnns]
        return outputs[0] if len(outputs) == 1 else torch.cat(outputs, dim=-1)


BiLayer = Layer  # the name of releases up to 0.1


def stacked_layers(*, cell: str, input_width: int, width: int, depth: int, bidirectional: bool,
                   period: int, gates: str, reverse: bool = False,
                   second_order: Optional[SecondOrder] = None) -> Iterator[Layer]:
    """``depth`` layers, the first reading ``input_width`` features and each
    writing ``width`` (a bidirectional layer gives each direction ``width // 2``;
    a unidirectional one runs backwards with ``reverse``).
    Made one at a time as they are taken, so a caller that wraps each one draws
    its own random initial weights in between, as it always has."""
    hidden = half_width(width) if bidirectional else width
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}.")
    return (Layer(cell=cell, input_width=n_in, hidden_width=hidden, period=period, gates=gates,
                  bidirectional=bidirectional, reverse=reverse, second_order=second_order)
            for n_in in [input_width] + [width] * (depth - 1))


class RecurrentEncoder(UpgradesSavedLayout, Wired):
    """``depth`` stacked layers, each a ``wiring.Block`` (dropout on its output;
    with ``residual`` a skip connection, with ``layer_norm`` a LayerNorm), after
    word dropout and dropout on the incoming vectors and before an optional
    output projection (see ``wiring``). A bidirectional layer gives each
    direction ``width // 2`` units, so every layer outputs ``width`` features.
    With ``residual``, the first layer's skip path maps the input linearly where
    ``input_width != width``.

    With the options off (the defaults here) it is the encoder of
    ``spacy-elstm.RecurrentEncoder.v1``: dropout on every layer's output and
    nothing else; ``spacy-elstm.RecurrentEncoder.v2`` turns them on as asked.

    ``separate_directions`` (bidirectional only): the forward and the backward
    direction each get a stack of their own (``SeparateStacks``), ``width //
    2`` wide, whose layers read only the layer below in the same direction
    (ELMo's arrangement), and the output is [forward top, backward top]; every
    Block, layer norm included, then sees one direction only. So the forward half at token t has read tokens <= t and the backward
    half tokens >= t, which next- and previous-word pretraining needs
    (``pretraining``). It cannot take a projection, which would mix the halves.

    ``second_order``: the options of ``cell="solstm"`` (S, the temperature and
    its annealing; see ``second_order``), None for their defaults.
    """

    def __init__(self, *, cell: str, input_width: int, width: int, depth: int = 1,
                 bidirectional: bool = True, period: int = 1, gates: str = "recurrent",
                 residual: bool = False, layer_norm: bool = False, projection: bool = False,
                 dropout: float = 0.0, input_dropout: float = 0.0, word_dropout: float = 0.0,
                 separate_directions: bool = False,
                 second_order: Optional[SecondOrder] = None):
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
                                            period=period, gates=gates, reverse=reverse,
                                            second_order=second_order))

        if separate_directions:
            half = half_width(width)
            self.layers = nn.ModuleList([SeparateStacks(stack(half, False),
                                                        stack(half, False, reverse=True))])
        else:
            self.layers = stack(width, bidirectional)

    def blocks(self) -> Iterable[SequenceModule]:
        return self.layers


WiredRecurrentEncoder = RecurrentEncoder  # the v2 encoder's class name up to 0.1


class SeparateStacks(SequenceModule):
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
