"""lab.parser_sentences: the senter sets the starts it is sure of and leaves
the rest to the parser; its bands are read as given."""
import argparse
from pathlib import Path

import numpy
import pytest
import spacy

from lab import parser_sentences

RAW = Path(__file__).parent / "fixtures" / "compat_raw" / "raw_best_elstm"
TEXT = "The cat sat. It was warm, and the dog slept. Then it rained"


def test_bands_are_lo_colon_hi_inside_zero_and_one():
    assert parser_sentences.band("0.2:0.8") == (0.2, 0.8)
    for bad in ("0.8:0.2", "0:0.5", "0.5:1", "half"):
        with pytest.raises((argparse.ArgumentTypeError, ValueError)):
            parser_sentences.band(bad)


def test_a_senter_without_a_word_model_is_refused(tmp_path):
    # the fixture's senter has its character model alone, which no threshold moves
    with pytest.raises(SystemExit, match="word-level model"):
        parser_sentences.main([str(RAW), "--treebank", str(tmp_path), "--output",
                               str(tmp_path / "out.json")])


def test_the_senter_sets_what_it_is_sure_of_and_leaves_the_rest_unset(monkeypatch):
    nlp = spacy.load(RAW)
    n = len(nlp.make_doc(TEXT))
    # the senter's starts at each threshold: at 0.9 the second token, at 0.1 the third too
    found = {0.9: numpy.array([1, 1] + [-1] * (n - 2)),
             0.1: numpy.array([1, 1, 1] + [-1] * (n - 3))}
    monkeypatch.setattr(parser_sentences, "starts",
                        lambda senter, docs, value: [found[value] for _ in docs])
    senter = nlp.get_pipe(parser_sentences.SENTER)
    doc = parser_sentences.banded(senter, [nlp.make_doc(TEXT)], 0.1, 0.9)[0]
    assert [t.is_sent_start for t in doc] == [True, True, None] + [False] * (n - 3)
    # in the senter's place, the parser after it keeps the starts it was given and
    # decides the one left open
    nlp.add_pipe(parser_sentences.BANDED, before=parser_sentences.SENTER,
                 config={"lo": 0.1, "hi": 0.9})
    with nlp.select_pipes(disable=[parser_sentences.SENTER]):
        parsed = next(nlp.pipe([TEXT]))
    assert parsed[1].is_sent_start is True
    assert parsed[2].is_sent_start in (True, False)
    assert not any(parsed[k].is_sent_start for k in range(3, n))
