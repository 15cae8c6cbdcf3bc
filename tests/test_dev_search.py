"""scripts/dev_search.py: every named setting (UD and the Penn Treebank sample)
is a config of the repo whose overrides go into sections that config has (a new
key is an argument the section's function takes by default), so each name
re-makes what it measured; a seed other than 0 is an override of its own, under
a name of its own; every run goes through scripts/train_and_score.py, on dev only."""
import importlib.util
from pathlib import Path

import pytest
from thinc.api import Config

ROOT = Path(__file__).parent.parent
_spec = importlib.util.spec_from_file_location("dev_search", ROOT / "scripts" / "dev_search.py")
search = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(search)


def lookup(config, dotted):
    node = config
    for key in dotted.split("."):
        assert key in node, f"{dotted}: no [{key}]"
        node = node[key]
    return node


def section(dotted):
    return dotted.rsplit(".", 1)[0]


SETTINGS = {**{name: setting for name, setting in search.SETTINGS.items()},
            **{f"ptb:{name}": (config, overrides)
               for name, (config, _, overrides) in search.PTB_SETTINGS.items()}}


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_each_setting_overrides_keys_its_config_has(name):
    path, overrides = SETTINGS[name]
    config = Config().from_disk(ROOT / path, interpolate=False)
    for dotted, value in overrides.items():
        lookup(config, section(dotted))
        changed = Config().from_disk(ROOT / path, interpolate=False, overrides={dotted: value})
        assert lookup(changed, dotted) == value


def test_a_seed_runs_under_its_own_name(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(search.tas.subprocess, "run", lambda args, **kw: calls.append(args))
    search.run("lstm-lr2", 100, tmp_path, 1, seed=2)
    train, evaluate = calls
    assert "--system.seed=2" in train
    assert str(Path("training") / "search" / "lstm-lr2-seed2") in train
    assert str(tmp_path / "train-lstm-lr2-seed2.jsonl") in train
    assert str(tmp_path / "lstm-lr2-seed2-dev.json") in evaluate
    assert "corpus/UD_English-EWT/en_ewt-ud-dev.spacy" in evaluate  # dev only, no official scores
    calls.clear()
    search.run("lstm-lr2", 100, tmp_path, 1)
    assert not any("system.seed" in arg for arg in calls[0])
    assert str(Path("training") / "search" / "lstm-lr2") in calls[0]


def test_a_ptb_setting_runs_on_the_sample_trees_with_a_record(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(search.tas.subprocess, "run", lambda args, **kw: calls.append(args))
    search.run_ptb("best_elstm-wd", tmp_path)
    train, evaluate, record = calls
    assert "corpus/ptb-sample/trees/train.spacy" in train and "2000" in train
    assert str(tmp_path / "train-trees-best_elstm-wd.jsonl") in train
    assert str(tmp_path / "trees-best_elstm-wd-dev.json") in evaluate
    assert "corpus/ptb-sample/trees/dev.spacy" in evaluate
    assert record[-3:] == [str(tmp_path / "run-trees-best_elstm-wd.json"), "--gpu-id", "-1"]
