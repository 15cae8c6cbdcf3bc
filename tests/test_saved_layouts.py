"""State dicts saved under the parameter names of 0.1 load into today's modules
(pytorch/saved_layouts.py), and the DBRNN stack is one module wherever it is
used. tests/test_compat.py checks the same on whole saved pipelines."""
import re

import pytest
import torch

from spacy_elstm.architectures import (DBRNN_ENCODER, DBRNN_ENCODER_V2, DBRNN_TAGGER,
                                       RECURRENT_ENCODER)
from spacy_elstm.pytorch import DBRNN, DBRNNLabeller, RecurrentEncoder
from spacy.util import registry
from thinc.api import Config

# today's name -> the name 0.1 saved, for each module (the inverse of RENAMES)
OLD_NAMES = {
    "v1 RecurrentEncoder": [(r"^layers\.(\d+)\.layer\.rnns\.", r"layers.\1.directions.")],
    "v1 DBRNN": [(r"^lower\.layer\.rnns\.", "lower.directions."),
                 (r"^upper\.layer\.pool\.", ""), (r"^upper\.layer\.", "")],
    "v2 DBRNN": [(r"\.rnns\.", ".directions."), (r"^upper\.layer\.pool\.", "upper.layer.")],
    "DBRNNLabeller": [(r"^dbrnn\.lower\.layer\.rnns\.", "lower.directions."),
                      (r"^dbrnn\.upper\.layer\.", ""), (r"^pool\.logits$", "pool_logits")],
}


def modules():
    args = dict(cell="elstm", input_width=4, width=6, period=3)
    return {
        "v1 RecurrentEncoder": lambda: RecurrentEncoder(depth=2, **args),
        "v1 DBRNN": lambda: DBRNN(**args),
        "v2 DBRNN": lambda: DBRNN(residual=True, layer_norm=True, **args),
        "DBRNNLabeller": lambda: DBRNNLabeller(n_labels=5, **args),
    }


def as_saved_by_0_1(state, rules):
    out = {}
    for key, value in state.items():
        for new, old in rules:
            key = re.sub(new, old, key)
        out[key] = value
    return out


@pytest.mark.parametrize("kind", sorted(OLD_NAMES))
def test_a_state_dict_saved_by_0_1_loads(kind):
    torch.manual_seed(0)
    saved = modules()[kind]()
    with torch.no_grad():
        for p in saved.parameters():
            p.add_(0.1 * torch.randn_like(p))
    old_state = as_saved_by_0_1(saved.state_dict(), OLD_NAMES[kind])
    assert set(old_state) != set(saved.state_dict())
    loaded = modules()[kind]()
    loaded.load_state_dict(old_state)  # strict
    x, lengths = torch.randn(9, 4), torch.tensor([5, 1, 3])
    saved.eval(), loaded.eval()
    torch.testing.assert_close(loaded(x, lengths, flat=True), saved(x, lengths, flat=True),
                               rtol=0, atol=0)
    # and today's names load as they are
    modules()[kind]().load_state_dict(saved.state_dict())


def _torch_module(name, **args):
    model = registry.resolve(Config({"m": {"@architectures": name, **args}}))["m"]
    return next(node.shims[0]._model for node in model.walk() if node.shims)


def test_the_dbrnn_encoders_and_labeller_share_one_stack():
    assert type(_torch_module(DBRNN_ENCODER, width=4)) is DBRNN
    assert type(_torch_module(DBRNN_ENCODER_V2, width=4)) is DBRNN
    tok2vec = {"@architectures": "spacy.Tok2Vec.v2",
               "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 4,
                         "attrs": ["NORM"], "rows": [10], "include_static_vectors": False},
               "encode": {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 4,
                          "depth": 1, "window_size": 1, "maxout_pieces": 2}}
    labeller = _torch_module(DBRNN_TAGGER, width=4, tok2vec=tok2vec)
    assert type(labeller.dbrnn) is DBRNN
    assert type(_torch_module(RECURRENT_ENCODER, width=4)) is RecurrentEncoder
