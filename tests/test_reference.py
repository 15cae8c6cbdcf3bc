"""The cells against PyTorch's own modules, with copied weights."""
import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from spacy_elstm.pytorch import BiLayer

TORCH_MODULES = {"lstm": torch.nn.LSTM, "elstm": torch.nn.LSTM, "gru": torch.nn.GRU,
                 "srn": torch.nn.RNN}


def copy_weights(ours: BiLayer, ref: torch.nn.Module, cell: str) -> None:
    """Copy the reference's weights into ours (b_ih + b_hh folded into one bias,
    except the GRU's b_hn, which sits inside the reset gate)."""
    with torch.no_grad():
        for d, rec in enumerate(ours.rnns):
            sfx = "_l0" + ("_reverse" if d else "")
            rec.weight_x.copy_(getattr(ref, "weight_ih" + sfx))
            rec.weight_h.copy_(getattr(ref, "weight_hh" + sfx))
            b_ih, b_hh = getattr(ref, "bias_ih" + sfx), getattr(ref, "bias_hh" + sfx)
            if cell == "gru":
                n = rec.hidden_width
                rec.bias.copy_(torch.cat([b_ih[: 2 * n] + b_hh[: 2 * n], b_ih[2 * n :]]))
                rec.bias_hn.copy_(b_hh[2 * n :])
            else:
                rec.bias.copy_(b_ih + b_hh)


def run_reference(ref, x, lengths):
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    y, _ = ref(packed)
    return pad_packed_sequence(y, batch_first=True, total_length=x.shape[1])[0]


@pytest.mark.parametrize("cell", ["elstm", "lstm", "gru", "srn"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_matches_torch_module(cell, bidirectional, device):
    """ELSTM-I with s = 1 and b = 0 is an LSTM; the baselines are torch's modules.
    Variable lengths: torch's packed sequences are the reference for padding."""
    torch.manual_seed(0)
    kwargs = {"nonlinearity": "tanh"} if cell == "srn" else {}
    ref = TORCH_MODULES[cell](5, 6, batch_first=True, bidirectional=bidirectional, **kwargs)
    ours = BiLayer(cell=cell, input_width=5, hidden_width=6, period=3, gates="recurrent",
                   bidirectional=bidirectional)
    ref, ours = ref.double().to(device), ours.double().to(device)
    copy_weights(ours, ref, cell)
    if cell == "elstm":  # s and b at their initial values, 1 and 0
        for rec in ours.rnns:
            assert torch.equal(rec.scale, torch.ones_like(rec.scale))
            assert torch.equal(rec.state_bias, torch.zeros_like(rec.state_bias))
    lengths = torch.tensor([4, 7, 1, 7, 3])
    x = torch.randn(5, 7, 5, dtype=torch.float64, device=device)
    x_ref = x.clone().requires_grad_()
    x_ours = x.clone().requires_grad_()
    y_ref = run_reference(ref, x_ref, lengths)
    y_ours = ours(x_ours, lengths)
    torch.testing.assert_close(y_ours, y_ref, rtol=1e-10, atol=1e-10)
    weight = torch.randn_like(y_ref)
    (y_ref * weight).sum().backward()
    (y_ours * weight).sum().backward()
    torch.testing.assert_close(x_ours.grad, x_ref.grad, rtol=1e-10, atol=1e-10)
    for d, rec in enumerate(ours.rnns):
        sfx = "_l0" + ("_reverse" if d else "")
        torch.testing.assert_close(rec.weight_x.grad, getattr(ref, "weight_ih" + sfx).grad)
        torch.testing.assert_close(rec.weight_h.grad, getattr(ref, "weight_hh" + sfx).grad)
        b_hh_grad = getattr(ref, "bias_hh" + sfx).grad
        n = rec.hidden_width
        if cell == "gru":
            torch.testing.assert_close(rec.bias_hn.grad, b_hh_grad[2 * n :])
            torch.testing.assert_close(rec.bias.grad[: 2 * n], b_hh_grad[: 2 * n])
        else:
            torch.testing.assert_close(rec.bias.grad, b_hh_grad)


def test_elstm_differs_from_lstm_once_scaled():
    """The comparison above is not vacuous: moving s or b moves the output."""
    torch.manual_seed(0)
    ref = torch.nn.LSTM(3, 4, batch_first=True).double()
    ours = BiLayer(cell="elstm", input_width=3, hidden_width=4, period=2, gates="recurrent",
                   bidirectional=False).double()
    copy_weights(ours, ref, "elstm")
    x, lengths = torch.randn(2, 5, 3, dtype=torch.float64), torch.tensor([5, 5])
    y_ref = run_reference(ref, x, lengths)
    with torch.no_grad():
        ours.rnns[0].scale[1] = 1.5
    assert not torch.allclose(ours(x, lengths), y_ref)
    with torch.no_grad():
        ours.rnns[0].scale[1] = 1.0
        ours.rnns[0].state_bias += 0.1
    assert not torch.allclose(ours(x, lengths), y_ref)
