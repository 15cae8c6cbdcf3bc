"""The parameter names that earlier releases saved, and the names they have now.

This is the one place where a saved state dict is brought up to date. Each
module class listed in ``RENAMES`` rewrites the keys under its own prefix
before torch loads them, parents before children, so a rule only ever sees the
names its own class used. Every rule matches old names only, so a state dict
saved by this release loads unchanged. Nothing is reparametrised: the
parameters themselves kept their meaning and their values.

- ``Layer``: its forward and backward RNNs were ``directions``, now ``rnns``.
- ``RecurrentEncoder``: v1's layers were bare ``Layer``s (``layers.N.``); v1 is
  now v2 with the options off, whose layers sit in a ``Block`` (``layers.N.layer.``).
- ``DBRNN``: v1 held the lower BRNN, the upper forward and backward RNNs and
  the Eq. 42 weights at its top; v2 and now both hold them in two ``Block``s,
  the Eq. 42 weights in the upper RNNs' ``pool``.
- ``DBRNNLabeller``: built its own lower BRNN and upper RNNs; it now holds the
  one DBRNN stack (``dbrnn.``) and its pooling of the heads in ``pool``.
"""
import re
from typing import Dict, List, Tuple

RENAMES: Dict[str, List[Tuple[str, str]]] = {
    "Layer": [(r"^directions\.", "rnns.")],
    "RecurrentEncoder": [(r"^layers\.(\d+)\.directions\.", r"layers.\1.layer.directions.")],
    "DBRNN": [
        (r"^lower\.directions\.", "lower.layer.directions."),
        (r"^(upper_forward|upper_backward)\.", r"upper.layer.\1."),
        (r"^(weight_forward|weight_backward)$", r"upper.layer.pool.\1"),
        (r"^upper\.layer\.(weight_forward|weight_backward)$", r"upper.layer.pool.\1"),
    ],
    "DBRNNLabeller": [
        (r"^(lower|upper_forward|upper_backward)\.", r"dbrnn.\1."),
        (r"^pool_logits$", "pool.logits"),
    ],
}


def upgrade_state_dict(class_name: str, state_dict: dict, prefix: str) -> None:
    """Rename, in place, the keys under ``prefix`` that an earlier release
    saved for a module of class ``class_name``."""
    rules = RENAMES.get(class_name, ())
    for key in [k for k in state_dict if k.startswith(prefix)]:
        name = key[len(prefix):]
        for old, new in rules:
            name = re.sub(old, new, name)
        if prefix + name != key:
            state_dict[prefix + name] = state_dict.pop(key)


class UpgradesSavedLayout:
    """Mixed into the torch modules named in ``RENAMES``: their saved state
    dicts load whichever release wrote them."""

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        upgrade_state_dict(type(self).__name__, state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)
