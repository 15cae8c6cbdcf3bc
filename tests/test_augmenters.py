"""Training examples as users' text comes (`training/augmenters.py`): sentences
without their punctuation, hung again as the gold files that score such text
are (`treebanks/unpunctuated.py`), and the augmenter a config names."""
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import registry

from spacy_elstm.training.augmenters import AUGMENTER, unpunctuated_example
from spacy_elstm.treebanks.conllu_reader import read_conllu
from spacy_elstm.treebanks.gold_variants import variant_gold
from spacy_elstm.treebanks.unpunctuated import ROOT, rehung_heads

SAMPLE = Path(__file__).resolve().parent.parent / "assets" / "ud-ewt-sample" / "dev.conllu"


def test_rehung_heads_hangs_dependents_on_the_nearest_kept_ancestor():
    # 0 <- 1 (removed) <- 2 (root); 3 <- 1
    assert rehung_heads([1, 2, ROOT, 1], [1]) == {0: 2, 2: ROOT, 3: 2}
    # a chain of removed words: 0 <- 1 <- 2 <- 3 (root), 1 and 2 removed
    assert rehung_heads([1, 2, 3, ROOT], [1, 2]) == {0: 3, 3: ROOT}


def test_rehung_heads_keeps_one_root_where_the_root_is_removed():
    # the root (1) goes: its dependents 0 and 2 are left without a head; 0 becomes the root
    assert rehung_heads([1, ROOT, 1, 2], [1]) == {0: ROOT, 2: 0, 3: 2}
    assert rehung_heads([ROOT], [0]) == {}
    assert rehung_heads([1, ROOT], []) == {0: 1, 1: ROOT}


def example(words, spaces, pos, heads, deps):
    vocab = spacy.blank("en").vocab
    reference = Doc(vocab, words=words, spaces=spaces, pos=pos, heads=heads, deps=deps,
                    lemmas=[w.lower() for w in words], tags=pos)
    return Example(Doc(vocab, words=words, spaces=spaces), reference)


def test_unpunctuated_example_takes_punctuation_out_and_leaves_a_space():
    eg = example(["Hi", ",", "it", "works", "."], [False, True, True, False, False],
                 ["INTJ", "PUNCT", "PRON", "VERB", "PUNCT"], [3, 0, 3, 3, 3],
                 ["discourse", "punct", "nsubj", "ROOT", "punct"])
    out = unpunctuated_example(eg)
    assert out.reference.text == "Hi it works" and out.predicted.text == "Hi it works"
    assert [t.head.i for t in out.reference] == [2, 2, 2]
    assert [t.dep_ for t in out.reference] == ["discourse", "nsubj", "ROOT"]
    assert [t.lemma_ for t in out.reference] == ["hi", "it", "works"]
    assert [t.pos_ for t in out.reference] == ["INTJ", "PRON", "VERB"]
    assert not out.predicted.has_annotation("DEP")


def test_unpunctuated_example_makes_a_new_root_where_the_root_was_punctuation():
    eg = example(["yes", "-", "no"], [True, True, False], ["INTJ", "PUNCT", "INTJ"],
                 [1, 1, 1], ["discourse", "ROOT", "discourse"])
    out = unpunctuated_example(eg)
    assert [t.head.i for t in out.reference] == [0, 0]
    assert [t.dep_ for t in out.reference] == ["ROOT", "discourse"]


def test_an_example_without_punctuation_or_with_nothing_else_is_kept():
    plain = example(["it", "works"], [True, False], ["PRON", "VERB"], [1, 1], ["nsubj", "ROOT"])
    assert unpunctuated_example(plain) is plain
    marks = example(["!", "!"], [False, False], ["PUNCT", "PUNCT"], [0, 0], ["ROOT", "punct"])
    assert unpunctuated_example(marks) is marks


def test_examples_and_the_scoring_gold_agree_on_the_sample(tmp_path):
    gold = variant_gold(SAMPLE, "unpunctuated", tmp_path)
    expected = [[(t.text, t.head.i - t.sent.start, t.dep_) for t in sent]
                for doc in read_conllu(gold) for sent in doc.sents]
    found = []
    for doc in read_conllu(SAMPLE):
        for sent in doc.sents:
            if all(t.pos_ == "PUNCT" for t in sent):
                continue
            eg = unpunctuated_example(Example(sent.as_doc(), sent.as_doc()))
            found.append([(t.text, t.head.i, t.dep_) for t in eg.reference])
    assert len(found) == len(expected) > 10
    assert found == expected


def augmenter(**changes):
    settings = {"lower_level": 0.0, "orth_level": 0.0, "orth_variants": None,
                "whitespace_level": 0.0, "whitespace_per_token": 0.0,
                "whitespace_variants": None, "unpunctuated_level": 1.0, **changes}
    return registry.augmenters.get(AUGMENTER)(**settings)


def test_the_augmenter_reads_examples_without_punctuation_and_in_lower_case():
    nlp = spacy.blank("en")
    eg = example(["Hi", ",", "it", "works", "."], [False, True, True, False, False],
                 ["INTJ", "PUNCT", "PRON", "VERB", "PUNCT"], [3, 0, 3, 3, 3],
                 ["discourse", "punct", "nsubj", "ROOT", "punct"])
    (out,) = augmenter()(nlp, eg)
    assert out.reference.text == "Hi it works"
    (out,) = augmenter(unpunctuated_level=0.0, lower_level=1.0)(nlp, eg)
    assert out.predicted.text == "hi, it works."
    (out,) = augmenter(unpunctuated_level=0.0)(nlp, eg)
    assert out is eg


def test_a_bad_level_is_named():
    with pytest.raises(ValueError, match="unpunctuated_level must be between 0 and 1, got 1.5"):
        augmenter(unpunctuated_level=1.5)


def test_a_reference_with_sentence_starts_and_no_parse_keeps_its_sentences():
    vocab = spacy.blank("en").vocab
    words = ["-", "Hi", "there", ".", "Bye"]
    reference = Doc(vocab, words=words, spaces=[True, True, False, True, False],
                    pos=["PUNCT", "INTJ", "ADV", "PUNCT", "INTJ"],
                    sent_starts=[True, False, False, False, True])
    out = unpunctuated_example(Example(Doc(vocab, words=words), reference))
    assert [t.text for t in out.reference] == ["Hi", "there", "Bye"]
    assert [t.is_sent_start for t in out.reference] == [True, False, True]
