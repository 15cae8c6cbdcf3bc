"""The parallel scan against the sequential recurrence it replaces."""
import pytest
import torch

from spacy_elstm.pytorch import Recurrence
from spacy_elstm.pytorch.kernels.scan import linear_scan

from kernel_utils import using


@pytest.mark.parametrize("steps", [1, 2, 5, 8, 13])
def test_scan_equals_loop(steps):
    torch.manual_seed(steps)
    a, b = torch.rand(steps, 3, 4, dtype=torch.float64), torch.randn(steps, 3, 4, dtype=torch.float64)
    x, expected = torch.zeros(3, 4, dtype=torch.float64), []
    for t in range(steps):
        x = a[t] * x + b[t]
        expected.append(x)
    torch.testing.assert_close(linear_scan(a, b), torch.stack(expected), rtol=1e-12, atol=1e-12)


def test_scan_gradients():
    torch.manual_seed(0)
    a = torch.rand(6, 2, dtype=torch.float64, requires_grad=True)
    b = torch.randn(6, 2, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(linear_scan, (a, b))


@pytest.mark.parametrize("kernel", ["cpp", "scan", "reference"])
@pytest.mark.parametrize("cell", ["elstm", "elstm2", "lstm"])
def test_one_step_sequences(cell, kernel):
    """A batch whose longest sequence is one token long, through every path."""
    rec = Recurrence(cell=cell, input_width=3, hidden_width=2, gates="input").double()
    x = torch.randn(3, 1, 3, dtype=torch.float64, requires_grad=True)
    lengths = torch.tensor([1, 0, 1])
    with using(kernel, rec, lengths):
        assert torch.autograd.gradcheck(lambda x: rec(x, lengths), (x,))
