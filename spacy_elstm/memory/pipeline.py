"""The recurrent layers inside a trained spaCy pipeline, and the vectors a
sentence gives each of them: what `spacy-elstm memory response` reads."""
from pathlib import Path
from typing import Dict, List, Tuple

import torch
from torch import Tensor

from ..pytorch.dbrnn import DBRNN
from ..pytorch.encoder import RecurrentEncoder, SeparateStacks
from ..pytorch.recurrence import Recurrence

DIRECTIONS = ("forward", "backward")


def layers_of(encoder: torch.nn.Module) -> List[Dict[str, Recurrence]]:
    """The recurrences of an encoder, layer by layer from the bottom, each
    layer as {direction: Recurrence}. A DBRNN's layer 0 is its lower BRNN and
    layer 1 its upper pair."""
    if isinstance(encoder, DBRNN):
        upper = encoder.upper.layer
        return [_by_direction(encoder.lower.layer.rnns),
                _by_direction([upper.upper_forward, upper.upper_backward])]
    layers = list(encoder.layers)
    if len(layers) == 1 and isinstance(layers[0], SeparateStacks):
        stacks = layers[0]
        return [_by_direction([f.layer.rnns[0], b.layer.rnns[0]])
                for f, b in zip(stacks.forward_stack, stacks.backward_stack)]
    return [_by_direction(block.layer.rnns) for block in layers]


def _by_direction(rnns) -> Dict[str, Recurrence]:
    return {("backward" if rnn.reverse else "forward"): rnn for rnn in rnns}


def find_encoders(model) -> List[torch.nn.Module]:
    """The spacy-elstm recurrent encoders (RecurrentEncoder, DBRNN) inside a thinc model."""
    found = []
    for node in model.walk():
        for shim in getattr(node, "shims", []):
            module = getattr(shim, "_model", None)
            if isinstance(module, (RecurrentEncoder, DBRNN)) and module not in found:
                found.append(module)
    return found


def choose(nlp, component: str, layer: int, direction: str) -> Tuple[object, Recurrence]:
    """The component's model and the recurrence asked for; a ValueError naming
    the bad value and the allowed ones otherwise."""
    if component not in nlp.pipe_names:
        raise ValueError(f"the pipeline has no component {component!r}: choose one of "
                         f"{', '.join(map(repr, nlp.pipe_names))}.")
    model = getattr(nlp.get_pipe(component), "model", None)
    encoders = [] if model is None else find_encoders(model)
    if not encoders:
        having = [name for name, pipe in nlp.pipeline
                  if getattr(pipe, "model", None) is not None and find_encoders(pipe.model)]
        hint = (f"components with one: {', '.join(map(repr, having))}" if having
                else "no component of this pipeline has one")
        raise ValueError(f"component {component!r} holds no spacy-elstm recurrent encoder "
                         f"(RecurrentEncoder or DBRNN); {hint}.")
    layers = layers_of(encoders[0])
    if not 0 <= layer < len(layers):
        raise ValueError(f"--layer {layer} does not exist: the encoder of {component!r} has "
                         f"{len(layers)} layer(s), choose 0..{len(layers) - 1}.")
    if direction not in layers[layer]:
        raise ValueError(f"--direction {direction!r} does not exist in layer {layer} of "
                         f"{component!r}: choose one of {', '.join(map(repr, layers[layer]))}.")
    return model, layers[layer][direction]


def layer_input(model, rnn: Recurrence, doc) -> Tensor:
    """The vectors ``rnn`` reads for ``doc`` when the component's model
    predicts it: (n_tokens, input_width), in the sentence's order (caught
    on their way in, so they are what the trained stack below computes)."""
    caught = []
    run = rnn.run

    def catch(x, packing):
        caught.append(x.detach().clone())
        return run(x, packing)

    rnn.run = catch  # an instance attribute over the method, removed below
    try:
        model.predict([doc])
    finally:
        del rnn.run
    if not caught:
        raise ValueError("the component's model did not run the chosen layer on the text.")
    return caught[0]


def load(path: Path):
    """A saved pipeline; a ValueError (one line) if the folder is not one."""
    import spacy

    if not Path(path).is_dir():
        raise ValueError(f"{path}: no such pipeline folder.")
    try:
        return spacy.load(path)
    except (OSError, ValueError, KeyError) as err:
        raise ValueError(f"{path}: not a loadable spaCy pipeline ({str(err).splitlines()[0]}).")
