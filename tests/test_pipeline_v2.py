"""The v2 encoders inside real spaCy pipelines: training and serialisation."""
from typing import Dict

import numpy
import pytest
import spacy

from pipeline_utils import TRAIN, make_examples, make_nlp, predictions, trained_nlp

WIRING = ("residual = true\nlayer_norm = true\nprojection = true\ndropout = 0.1\n"
          "input_dropout = 0.1\nword_dropout = 0.1")
ENCODERS_V2: Dict[str, str] = {
    "elstm-v2": '@architectures = "spacy-elstm.RecurrentEncoder.v2"\nwidth = 32\ncell = "elstm"\n'
                'period = 3\ndepth = 2\n' + WIRING,
    "dbrnn-v2": '@architectures = "spacy-elstm.DBRNNEncoder.v2"\nwidth = 32\ncell = "elstm"\n'
                'period = 3\n' + WIRING,
    "elstm-v2-defaults": '@architectures = "spacy-elstm.RecurrentEncoder.v2"\nwidth = 32',
}


@pytest.mark.parametrize("name", list(ENCODERS_V2))
def test_v2_trains_and_round_trips(name, tmp_path):
    nlp, history = trained_nlp(name, n_iter=15, encoders=ENCODERS_V2)
    assert history[-1] < 0.5 * history[0], history
    texts = [" ".join(words) for words, *_ in TRAIN]
    before = predictions(nlp, texts)
    nlp.to_disk(tmp_path)
    loaded = spacy.load(tmp_path)
    encode = loaded.config["components"]["tok2vec"]["model"]["encode"]
    assert encode["@architectures"].endswith(".v2")
    assert predictions(loaded, texts) == before
    v1 = nlp.get_pipe("tok2vec").predict([nlp.make_doc(texts[0])])[0]
    v2 = loaded.get_pipe("tok2vec").predict([loaded.make_doc(texts[0])])[0]
    numpy.testing.assert_array_equal(v1, v2)
    # the saved weights are what makes the predictions: a fresh pipeline differs
    fresh = make_nlp(name, ENCODERS_V2)
    fresh.initialize(lambda: make_examples(fresh))
    assert not numpy.array_equal(fresh.get_pipe("tok2vec").predict([fresh.make_doc(texts[0])])[0],
                                 v1)
