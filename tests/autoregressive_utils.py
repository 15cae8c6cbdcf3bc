"""Checks every autoregressive labeller (pytorch/autoregressive.py) must pass,
shared by the tests of the recurrent and the convolutional seq2seq."""
import torch


def check_missing_gold_is_replaced_by_the_prediction(module, x, gold, lengths):
    """Steps whose gold label is missing (-1) are fed the model's own
    prediction: the same output as feeding that prediction as gold, and with
    every label missing, the same as greedy decoding."""
    partial = gold.clone()
    partial[[1, 5]] = -1
    y = module(x, lengths, flat=True, gold=partial)  # step by step
    filled = partial.clone()
    filled[[1, 5]] = y[[1, 5]].argmax(-1)
    torch.testing.assert_close(y, module(x, lengths, flat=True, gold=filled))  # one pass
    everything_missing = module(x, lengths, flat=True, gold=torch.full_like(gold, -1))
    torch.testing.assert_close(everything_missing, module(x, lengths, flat=True))
