"""Every shipped config passes `spacy debug config` and `spacy init fill-config`
and builds its pipeline."""
from pathlib import Path

import pytest
import spacy
from spacy.cli.debug_config import debug_config
from spacy.cli.init_config import fill_config

ROOT = Path(__file__).parent.parent
CONFIGS = sorted((ROOT / "configs").glob("*.cfg"))
SAMPLE = {"paths.train": str(ROOT / "assets/ud-ewt-sample/train.conllu"),
          "paths.dev": str(ROOT / "assets/ud-ewt-sample/dev.conllu")}


def test_the_six_configs_are_there():
    assert {p.stem for p in CONFIGS} == {"elstm_brnn", "elstm2_brnn", "dbrnn_elstm",
                                         "lstm_brnn", "gru_brnn", "cnn"}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_config(path, tmp_path):
    debug_config(path, overrides=SAMPLE)  # exits on an invalid config
    filled = tmp_path / "filled.cfg"
    fill_config(filled, path)
    config = spacy.util.load_config(filled)
    nlp = spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
    assert nlp.pipe_names == ["tok2vec", "tagger", "morphologizer", "parser"]
    encode = config["components"]["tok2vec"]["model"]["encode"]
    expected = {"cnn": "spacy.MaxoutWindowEncoder.v2",
                "dbrnn_elstm": "spacy-elstm.DBRNNEncoder.v1"}.get(path.stem,
                                                                 "spacy-elstm.RecurrentEncoder.v1")
    assert encode["@architectures"] == expected
