"""scripts/learn_tokenizer.py: a trained pipeline's tokenizer learned again from
a treebank, as training learns it, and nothing else of the pipeline changed."""
import importlib.util
from pathlib import Path

import spacy
from spacy.tokens import DocBin

from spacy_elstm.text.treebank_tokenizer import NAME
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs

ROOT = Path(__file__).resolve().parent.parent
PIPELINE = ROOT / "tests" / "fixtures" / "compat_raw" / "raw_best_elstm"
SAMPLE_TRAIN = ROOT / "assets" / "ud-ewt-sample" / "train.conllu"


def load_script():
    spec = importlib.util.spec_from_file_location("learn_tokenizer",
                                                  ROOT / "scripts" / "learn_tokenizer.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_pipeline_gets_the_tokenizer_training_would_give_it(tmp_path, capsys):
    script = load_script()
    nlp = spacy.blank("en")
    treebank = tmp_path / "train.spacy"
    DocBin(docs=conllu_to_docs(SAMPLE_TRAIN, 10, nlp.vocab)).to_disk(treebank)
    output = tmp_path / "relearned"
    assert script.main([str(PIPELINE), str(output), "--treebank", str(treebank)]) == 0
    new, old = spacy.load(output), spacy.load(PIPELINE)
    fresh = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    fresh.tokenizer.initialize(lambda: [], nlp=fresh, treebank=treebank)
    assert new.tokenizer.learned == fresh.tokenizer.learned
    text = "Why?! I don't know... it's Arafat's e-mail!!"
    assert [t.text for t in new.make_doc(text)] == [t.text for t in fresh(text)]
    assert new.pipe_names == old.pipe_names
    for name in old.pipe_names:  # every component as it was (the vocab holds new strings)
        assert (new.get_pipe(name).to_bytes(exclude=["vocab"])
                == old.get_pipe(name).to_bytes(exclude=["vocab"]))
    assert script.main([str(tmp_path / "nowhere"), str(tmp_path / "x")]) == 1
    assert "nowhere: not found" in capsys.readouterr().err
