"""The routing study (`lab.senter_routing`): the rule pipelines had before
counts every punctuation word, the shipped one only sentence marks, and the
senter routes by the one asked for inside the study and by its own after."""
import spacy

import spacy_elstm.components.elstm_senter as elstm_senter
from lab.senter_routing import RULES, any_punctuation_word, routed_by
from spacy_elstm.text.punctuation import has_no_punctuation


def test_the_two_rules_part_on_a_hyphen_inside_a_word():
    nlp = spacy.blank("en")
    hyphen, comma = nlp.make_doc("a long - term plan"), nlp.make_doc("a plan , then")
    assert not any_punctuation_word(hyphen) and has_no_punctuation(hyphen)
    assert not any_punctuation_word(comma) and not has_no_punctuation(comma)
    assert list(RULES.values()) == [any_punctuation_word, has_no_punctuation]


def test_the_senter_routes_by_the_rule_asked_for_then_by_its_own():
    shipped = elstm_senter.has_no_punctuation
    with routed_by(any_punctuation_word):
        assert elstm_senter.has_no_punctuation is any_punctuation_word
    assert elstm_senter.has_no_punctuation is shipped is has_no_punctuation
