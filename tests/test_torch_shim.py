"""Parameter averages (``use_averages = true``) reach the torch parameters:
spaCy evaluates and saves inside ``nlp.use_params(optimizer.averages)``; and
an update leaves nothing behind."""
import gc

import numpy
import pytest
import torch
from thinc.api import Adam, fix_random_seed

from spacy_elstm.layers.torch_shim import torch_layer

from pipeline_utils import make_examples, make_nlp


def _train_linear(n_updates: int = 4):
    fix_random_seed(0)
    layer = torch_layer(torch.nn.Linear(3, 2), convert_inputs=None, convert_outputs=None)
    layer.initialize()
    optimizer = Adam(0.1, use_averages=True)
    X = numpy.ones((4, 3), dtype="f")
    for _ in range(n_updates):
        Y, backprop = layer.begin_update(X)
        backprop(numpy.ones_like(Y))
        layer.finish_update(optimizer)
    return layer, optimizer, X


def test_use_params_swaps_in_the_averages_and_back():
    layer, optimizer, X = _train_linear()
    shim = layer.shims[0]
    module = shim._model
    current = {name: p.detach().clone() for name, p in module.named_parameters()}
    assert set(current) == {name for (_, name) in optimizer.averages}
    before = layer.predict(X)
    with layer.use_params(optimizer.averages):
        for name, p in module.named_parameters():
            numpy.testing.assert_allclose(p.detach().numpy(), optimizer.averages[(shim.id, name)])
        averaged = layer.predict(X)
    assert not numpy.allclose(before, averaged)
    for name, p in module.named_parameters():
        assert torch.equal(p.detach(), current[name]), name
    numpy.testing.assert_array_equal(layer.predict(X), before)


def _live_tensors() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if torch.is_tensor(o))


def test_updates_leave_no_objects_behind_and_do_what_thincs_do():
    """thinc's own shim chains one more wrapper onto every parameter at every
    update (see torch_shim's docstring); ours updates in place, to the same numbers."""
    from thinc.api import PyTorchWrapper_v2

    torch.manual_seed(0)
    ours, theirs = torch.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    theirs.load_state_dict(ours.state_dict())
    layers = [torch_layer(ours, convert_inputs=None, convert_outputs=None),
              PyTorchWrapper_v2(theirs)]
    optimizers = [Adam(0.1), Adam(0.1)]
    X = numpy.ones((4, 3), dtype="f")

    def update(layer, optimizer):
        Y, backprop = layer.begin_update(X)
        backprop(numpy.ones_like(Y))
        layer.finish_update(optimizer)

    for layer, optimizer in zip(layers, optimizers):
        layer.initialize()
        update(layer, optimizer)
    before = _live_tensors()
    for _ in range(20):
        update(layers[0], optimizers[0])
    assert _live_tensors() == before
    for _ in range(20):
        update(layers[1], optimizers[1])
    assert _live_tensors() > before  # thinc's shim: the check can fail
    for a, b in zip(ours.parameters(), theirs.parameters()):
        assert not torch.equal(a.detach(), torch.zeros_like(a))
        assert torch.equal(a.detach(), b.detach())


def test_use_params_without_averages_of_this_layer_changes_nothing():
    layer, _, X = _train_linear()
    before = layer.predict(X)
    with layer.use_params({(-1, "weight"): numpy.zeros((2, 3), dtype="f")}):
        numpy.testing.assert_array_equal(layer.predict(X), before)


@pytest.mark.parametrize("name", ["elstm", "dbrnn"])
def test_a_pipeline_is_evaluated_with_its_encoders_averages(name):
    """What spaCy's training loop does for model-best: the recurrent encoder's
    own weights move to their averages inside nlp.use_params, and back after."""
    fix_random_seed(0)
    nlp = make_nlp(name)
    examples = make_examples(nlp)
    nlp.initialize(lambda: examples)
    optimizer = Adam(0.01, use_averages=True)
    for _ in range(5):
        nlp.update(examples, sgd=optimizer)
    shims = [shim for node in nlp.get_pipe("tok2vec").model.walk() for shim in node.shims]
    assert shims
    for shim in shims:
        last = {n: p.detach().clone() for n, p in shim._model.named_parameters()}
        with nlp.use_params(optimizer.averages):
            for n, p in shim._model.named_parameters():
                numpy.testing.assert_allclose(p.detach().numpy(), optimizer.averages[(shim.id, n)])
            assert any(not torch.equal(p.detach(), last[n])
                       for n, p in shim._model.named_parameters())
        for n, p in shim._model.named_parameters():
            assert torch.equal(p.detach(), last[n]), n
