"""The v2 encoders' wiring (pytorch/wiring.py): residual connections, layer norm,
output projection, input and word dropout, each against the form the README and
the docstrings give, and v2 with every option off against v1."""
import pytest
import torch
from torch.nn import functional as F

from spacy_elstm.pytorch import DBRNN, RecurrentEncoder, WordDropout
from spacy_elstm.pytorch.wiring import Block, Dropout

OFF = dict(residual=False, layer_norm=False, projection=False, dropout=0.0, input_dropout=0.0,
           word_dropout=0.0)
ALL_ON = dict(residual=True, layer_norm=True, projection=True, dropout=0.2, input_dropout=0.1,
              word_dropout=0.3)


def perturb(module, seed=0):
    """Move every parameter off its initial value (s != 1, b != 0, LayerNorm not
    the identity, w_f != w_b), so that no check passes by a lucky initialisation."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(0.1 * torch.randn(p.shape, generator=gen, dtype=p.dtype).to(p.device))
    return module


def flat_inputs(lengths=(5, 1, 3, 7), width=6, dtype=torch.float64, seed=1):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(sum(lengths), width, generator=gen, dtype=dtype), torch.tensor(lengths)


def perturb_only(module, names, seed=1):
    """Perturb the parameters ``names`` of ``module``, and no others."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name in names:
                p.add_(0.1 * torch.randn(p.shape, generator=gen, dtype=p.dtype).to(p.device))
    return module


def recurrent_pair(*, input_width=6, width=6, depth=2, bidirectional=True, cell="elstm",
                   dropout=0.0, **wiring):
    """An encoder with its options off (v1) and one with ``wiring`` (v2), with
    the same recurrent weights: one class, one layout."""
    torch.manual_seed(0)
    args = dict(cell=cell, input_width=input_width, width=width, depth=depth,
                bidirectional=bidirectional, period=3)
    v1 = perturb(RecurrentEncoder(**args, dropout=dropout)).double()
    v2 = RecurrentEncoder(**args, **{**OFF, "dropout": dropout, **wiring}).double()
    missing, unexpected = v2.load_state_dict(v1.state_dict(), strict=False)
    assert not unexpected
    # the parameters v1 lacks get their own values, the shared ones stay v1's
    return v1, perturb_only(v2, missing), missing


def dbrnn_pair(*, input_width=6, width=6, dropout=0.0, **wiring):
    torch.manual_seed(0)
    args = dict(cell="elstm", input_width=input_width, width=width, period=3)
    v1 = perturb(DBRNN(**args, dropout=dropout)).double()
    v2 = DBRNN(**args, **{**OFF, "dropout": dropout, **wiring}).double()
    missing, unexpected = v2.load_state_dict(v1.state_dict(),
                                             strict=False)
    assert not unexpected
    return v1, perturb_only(v2, missing), missing


# --- v2 with everything off is v1 ------------------------------------------------------


@pytest.mark.parametrize("cell,depth,bidirectional,input_width",
                         [("elstm", 1, True, 6), ("elstm", 2, True, 4), ("gru", 2, False, 5),
                          ("lstm", 3, True, 6)])
def test_v2_with_everything_off_is_v1(cell, depth, bidirectional, input_width):
    v1, v2, missing = recurrent_pair(cell=cell, depth=depth, bidirectional=bidirectional,
                                     input_width=input_width)
    assert missing == []  # nothing but v1's parameters
    x, lengths = flat_inputs(width=input_width)
    for module in (v1, v2):
        module.eval()
    torch.testing.assert_close(v2(x, lengths, flat=True), v1(x, lengths, flat=True),
                               rtol=0, atol=0)
    # padded input too
    xp = torch.randn(3, 4, input_width, dtype=torch.float64)
    lp = torch.tensor([4, 2, 3])
    torch.testing.assert_close(v2(xp, lp), v1(xp, lp), rtol=0, atol=0)


def test_v2_dbrnn_with_everything_off_is_v1():
    v1, v2, missing = dbrnn_pair(input_width=4)
    assert missing == []
    x, lengths = flat_inputs(width=4)
    v1.eval(), v2.eval()
    torch.testing.assert_close(v2(x, lengths, flat=True), v1(x, lengths, flat=True),
                               rtol=0, atol=0)


@pytest.mark.parametrize("dbrnn", [False, True])
def test_v2_with_wiring_off_is_v1_while_training_with_dropout(dbrnn):
    """With the same seed, v2's dropout between layers draws v1's masks: the
    input dropouts at 0 draw nothing."""
    v1, v2, _ = dbrnn_pair(dropout=0.4) if dbrnn else recurrent_pair(dropout=0.4)
    v1.train(), v2.train()
    x, lengths = flat_inputs()
    torch.manual_seed(7)
    y1 = v1(x, lengths, flat=True)
    torch.manual_seed(7)
    y2 = v2(x, lengths, flat=True)
    assert (y1 == 0).any()  # the dropout did drop something
    torch.testing.assert_close(y2, y1, rtol=0, atol=0)


# --- residual ------------------------------------------------------------------------------


def test_residual_adds_the_input_to_each_layer():
    v1, v2, missing = recurrent_pair(depth=1, residual=True)
    assert missing == []  # same widths: the skip path is the identity, no parameters
    v1.eval(), v2.eval()
    x, lengths = flat_inputs()
    y = v2(x, lengths, flat=True)
    torch.testing.assert_close(y - x, v1(x, lengths, flat=True), rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(y, v1(x, lengths, flat=True) + x, rtol=0, atol=0)


def test_residual_in_a_stack_is_around_each_layer():
    v1, v2, _ = recurrent_pair(depth=2, residual=True)
    v1.eval(), v2.eval()
    x, lengths = flat_inputs()
    x1 = x + v1.layers[0](x, lengths, flat=True)
    x2 = x1 + v1.layers[1](x1, lengths, flat=True)
    torch.testing.assert_close(v2(x, lengths, flat=True), x2, rtol=0, atol=0)


def test_residual_with_a_narrower_input_maps_it_linearly():
    v1, v2, missing = recurrent_pair(depth=2, input_width=4, residual=True)
    assert missing == ["layers.0.skip.linear.weight"]  # only the first layer, no bias
    v1.eval(), v2.eval()
    x, lengths = flat_inputs(width=4)
    w = v2.layers[0].skip.linear.weight
    assert w.shape == (6, 4)
    x1 = x @ w.T + v1.layers[0](x, lengths, flat=True)
    x2 = x1 + v1.layers[1](x1, lengths, flat=True)
    torch.testing.assert_close(v2(x, lengths, flat=True), x2, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("input_width", [6, 4])
def test_dbrnn_residual_is_around_the_lower_brnn_and_the_upper_combination(input_width):
    """h = skip(x) + BRNN(x); p = h + w_f * p^f(h) + w_b * p^b(h)."""
    v1, v2, _ = dbrnn_pair(input_width=input_width, residual=True)
    v1.eval(), v2.eval()
    x, lengths = flat_inputs(width=input_width)
    skip = x if input_width == 6 else x @ v2.lower.skip.linear.weight.T
    h = skip + v1.lower(x, lengths, flat=True)
    upper = (v1.upper.layer.pool.weight_forward * v1.upper.layer.upper_forward(h, lengths, flat=True)
             + v1.upper.layer.pool.weight_backward * v1.upper.layer.upper_backward(h, lengths, flat=True))
    torch.testing.assert_close(v2(x, lengths, flat=True), h + upper, rtol=1e-12, atol=1e-12)
    # and without residual it is not that
    v2.lower.residual = v2.upper.residual = False
    assert not torch.allclose(v2(x, lengths, flat=True), h + upper)


# --- layer norm and projection ---------------------------------------------------------------


def test_layer_norm_normalises_each_layer_after_the_residual_sum():
    v1, v2, missing = recurrent_pair(depth=2, residual=True, layer_norm=True)
    assert sorted(missing) == [f"layers.{i}.norm.{p}" for i in (0, 1) for p in ("bias", "weight")]
    v1.eval(), v2.eval()
    x, lengths = flat_inputs()
    norms = [v2.layers[i].norm for i in (0, 1)]
    x1 = norms[0](x + v1.layers[0](x, lengths, flat=True))
    x2 = norms[1](x1 + v1.layers[1](x1, lengths, flat=True))
    y = v2(x, lengths, flat=True)
    torch.testing.assert_close(y, x2, rtol=1e-12, atol=1e-12)
    # with LayerNorm's initial affine map every row has mean 0 and variance 1
    fresh = RecurrentEncoder(cell="elstm", input_width=6, width=6, depth=2, period=3,
                                  **{**OFF, "residual": True, "layer_norm": True}).double().eval()
    y = fresh(x, lengths, flat=True)
    torch.testing.assert_close(y.mean(-1), torch.zeros(len(y), dtype=y.dtype), atol=1e-12, rtol=0)
    torch.testing.assert_close(y.var(-1, unbiased=False), torch.ones(len(y), dtype=y.dtype),
                               atol=1e-3, rtol=0)


def test_layer_norm_without_residual_normalises_the_layer_output():
    v1, v2, _ = recurrent_pair(depth=1, layer_norm=True)
    v1.eval(), v2.eval()
    x, lengths = flat_inputs()
    norm = v2.layers[0].norm
    expected = F.layer_norm(v1(x, lengths, flat=True), (6,), norm.weight, norm.bias, norm.eps)
    torch.testing.assert_close(v2(x, lengths, flat=True), expected, rtol=1e-12, atol=1e-12)


def test_dbrnn_layer_norm_after_each_sum():
    v1, v2, _ = dbrnn_pair(residual=True, layer_norm=True)
    v1.eval(), v2.eval()
    x, lengths = flat_inputs()
    h = v2.lower.norm(x + v1.lower(x, lengths, flat=True))
    upper = (v1.upper.layer.pool.weight_forward * v1.upper.layer.upper_forward(h, lengths, flat=True)
             + v1.upper.layer.pool.weight_backward * v1.upper.layer.upper_backward(h, lengths, flat=True))
    torch.testing.assert_close(v2(x, lengths, flat=True), v2.upper.norm(h + upper),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dbrnn", [False, True])
def test_projection_is_a_final_linear_layer(dbrnn):
    v1, v2, missing = (dbrnn_pair(residual=True, projection=True) if dbrnn
                       else recurrent_pair(residual=True, projection=True))
    assert sorted(missing) == ["projection.linear.bias", "projection.linear.weight"]
    v2.eval()
    x, lengths = flat_inputs()
    proj = v2.projection
    v2.projection = None
    unprojected = v2(x, lengths, flat=True)
    v2.projection = proj
    w, b = proj.linear.weight, proj.linear.bias
    assert w.shape == (6, 6) and b.shape == (6,)
    torch.testing.assert_close(v2(x, lengths, flat=True), unprojected @ w.T + b,
                               rtol=1e-12, atol=1e-12)


# --- gradients and batch invariance with everything on -------------------------------------


def all_on(dbrnn, input_width=4, width=4, **changes):
    args = {**ALL_ON, **changes}
    torch.manual_seed(0)
    if dbrnn:
        module = DBRNN(cell="elstm", input_width=input_width, width=width, period=2, **args)
    else:
        module = RecurrentEncoder(cell="elstm", input_width=input_width, width=width,
                                       depth=2, period=2, **args)
    return perturb(module).double()


@pytest.mark.parametrize("dbrnn", [False, True])
@pytest.mark.parametrize("training", [False, True])
def test_gradcheck_with_everything_on(dbrnn, training):
    """float64 gradients of the input and of every parameter; in training with the
    dropout masks fixed by a seed, so the gradient through them is checked too."""
    model = all_on(dbrnn, input_width=3).train(training)
    x, lengths = flat_inputs(lengths=(4, 1, 3), width=3)

    def run(x, params=None):
        torch.manual_seed(5)
        if params is None:
            return model(x, lengths, flat=True)
        return torch.func.functional_call(model, params, (x, lengths), {"flat": True})

    if training:  # the masks do mask something
        torch.manual_seed(5)
        assert not torch.allclose(run(x), model.eval()(x, lengths, flat=True))
        model.train()
    assert torch.autograd.gradcheck(run, (x.clone().requires_grad_(),))
    names = [n for n, _ in model.named_parameters()]
    values = tuple(p.detach().clone().requires_grad_() for p in model.parameters())
    assert any("skip" in n for n in names) and any("norm" in n for n in names)
    assert torch.autograd.gradcheck(lambda *v: run(x, dict(zip(names, v))), values)


@pytest.mark.parametrize("dbrnn", [False, True])
def test_batch_invariance_with_everything_on(dbrnn, device):
    model = all_on(dbrnn, input_width=4, width=6).float().to(device).eval()
    gen = torch.Generator().manual_seed(3)
    alone = torch.randn(1, 5, 4, generator=gen).to(device)
    batch = (torch.randn(4, 9, 4, generator=gen) * 3).to(device)  # garbage in the padding
    batch[2, :5] = alone[0]
    lengths = torch.tensor([9, 2, 5, 7])
    y_batch = model(batch, lengths)
    torch.testing.assert_close(y_batch[2, :5], model(alone, torch.tensor([5]))[0],
                               rtol=1e-5, atol=1e-6)
    assert torch.all(y_batch[2, 5:] == 0)
    batch[2, 5:] = 100.0
    torch.testing.assert_close(model(batch, lengths), y_batch, rtol=0, atol=0)


# --- word dropout and the dropout probabilities ----------------------------------------------


def test_word_dropout_zeroes_whole_rows_only_while_training():
    p = 0.25
    drop = WordDropout(8, p)
    x = torch.randn(20_000, 8, dtype=torch.float64) + 3  # no element is 0 by chance
    y = drop.train().run(x, packing=None)
    zero = (y == 0).all(-1)
    kept = ~zero
    assert ((y == 0).any(-1) == zero).all()  # a row is dropped whole or not at all
    torch.testing.assert_close(y[kept], x[kept] / (1 - p), rtol=1e-15, atol=0)
    assert 0.23 < zero.double().mean() < 0.27  # one draw per token
    # each token draws for itself: the rows of a repeated token do not drop together
    same = x[:1].expand(10_000, 8)
    assert 0.23 < (drop.run(same, None) == 0).all(-1).double().mean() < 0.27
    assert drop.eval().run(x, None) is x
    assert WordDropout(8, 0.0).train().run(x, None) is x


def test_word_dropout_in_an_encoder_acts_in_training_only():
    """The same encoder with and without word dropout: the same in eval mode, and
    in training exactly the run on the input with whole rows zeroed."""
    torch.manual_seed(0)
    args = dict(cell="elstm", input_width=6, width=6, depth=1, period=3,
                **{**OFF, "residual": True})
    plain = perturb(RecurrentEncoder(**args)).double()
    dropped = RecurrentEncoder(**{**args, "word_dropout": 0.5}).double()
    dropped.load_state_dict(plain.state_dict())
    x, lengths = flat_inputs()
    plain.eval(), dropped.eval()
    torch.testing.assert_close(dropped(x, lengths, flat=True), plain(x, lengths, flat=True),
                               rtol=0, atol=0)
    dropped.train(), plain.train()
    torch.manual_seed(3)
    y = dropped(x, lengths, flat=True)
    # the mask it drew, drawn again on the packed rows and put back in doc order
    from spacy_elstm.pytorch import Packing

    packing = Packing(lengths, x.device)
    torch.manual_seed(3)
    xd = packing.to_flat(dropped.word_dropout.run(packing.from_flat(x), packing))
    rows = (xd == 0).all(-1)
    assert rows.any() and not rows.all()
    torch.testing.assert_close(y, plain(xd, lengths, flat=True), rtol=0, atol=0)
    assert not torch.allclose(y, plain(x, lengths, flat=True))


@pytest.mark.parametrize("p", [1.0, -0.1, "0.1", True, None, 1])
@pytest.mark.parametrize("module", [WordDropout, Dropout])
def test_dropout_probabilities_are_checked(module, p):
    with pytest.raises(ValueError, match=r"must be a number in \[0, 1\), got"):
        module(4, p)


def test_input_dropout_drops_elements_while_training_only():
    drop = Dropout(8, 0.5)
    x = torch.randn(1000, 8) + 3
    y = drop.train().run(x, None)
    zero = y == 0
    assert zero.any() and not zero.all(-1).all()
    torch.testing.assert_close(y[~zero], x[~zero] * 2)
    assert drop.eval().run(x, None) is x


def test_block_drops_the_layer_output_and_not_the_skip_path():
    """In training, y = x + dropout(layer(x)): the input reaches the next layer whole."""
    from spacy_elstm.pytorch import Layer, Packing

    torch.manual_seed(0)
    layer = Layer(cell="elstm", input_width=4, hidden_width=2, period=2, gates="recurrent",
                  bidirectional=True).double()
    block = Block(layer, input_width=4, residual=True, layer_norm=False, dropout=0.5).train()
    x, lengths = flat_inputs(width=4)
    packing = Packing(lengths, x.device)
    x = packing.from_flat(x)
    torch.manual_seed(4)
    y = block.run(x, packing)
    torch.manual_seed(4)
    expected = x + F.dropout(layer.run(x, packing), 0.5, training=True)
    torch.testing.assert_close(y, expected, rtol=0, atol=0)
    assert (y == x).any()  # some layer outputs were dropped, the input never is


def test_block_needs_the_widths_to_add_up():
    """A residual block whose layer changes the width maps the input; one that
    keeps it adds the input itself."""
    from spacy_elstm.pytorch import Layer

    layer = Layer(cell="srn", input_width=3, hidden_width=2, period=1, gates="recurrent",
                  bidirectional=True)
    assert Block(layer, input_width=3, residual=True, layer_norm=False).skip is not None
    assert Block(layer, input_width=3, residual=False, layer_norm=False).skip is None
    same = Layer(cell="srn", input_width=4, hidden_width=2, period=1, gates="recurrent",
                 bidirectional=True)
    assert Block(same, input_width=4, residual=True, layer_norm=False).skip is None
