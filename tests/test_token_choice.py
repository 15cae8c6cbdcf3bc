"""Tokens chosen per chunk from two tokenizers (`lab.token_choice`): a Doc's
tokens as labels give back the same Doc, and a chunk chosen takes the other's
labels there alone."""
import spacy

from lab.token_choice import chosen_labels, non_space_offsets
from spacy_elstm.text.char_tokenizer import build_doc
from spacy_elstm.text.multiword import multiword_spans, set_multiword_spans
from spacy_elstm.text.segmenter import TOKEN_END, gold_labels


def test_a_doc_as_labels_gives_back_its_tokens_and_multiword_tokens():
    nlp = spacy.blank("en")
    text = "I can't see b/c  it's\nlate (ok)."
    doc = nlp.make_doc(text)
    set_multiword_spans(doc, [(1, 2)])
    again = build_doc(nlp.vocab, text, gold_labels(doc))
    assert [t.text for t in again] == [t.text for t in doc]
    assert multiword_spans(again) == [(1, 2)]


TEXT = "see abc now"


def rules_and_chars():
    """spaCy's English rules on TEXT as labels, and the same with "abc" split
    into "a" "b" "c" as the characters' labels."""
    nlp = spacy.blank("en")
    rules = gold_labels(nlp.make_doc(TEXT))
    chars = list(rules)
    chars[4] = chars[5] = TOKEN_END
    return nlp, rules, chars


def test_a_chosen_chunk_takes_the_other_labels_there_alone():
    nlp, rules, chars = rules_and_chars()
    text = TEXT
    chars[0] = TOKEN_END  # "s" "ee", in a chunk not chosen
    assert [t.text for t in build_doc(nlp.vocab, text, rules)] == ["see", "abc", "now"]
    labels = chosen_labels(rules, chars, [(4, 7)])  # the chunk "abc"
    assert [t.text for t in build_doc(nlp.vocab, text, labels)] == ["see", "a", "b", "c", "now"]
    assert non_space_offsets("a b\nc") == [0, 1, 1, 2, 2]


def test_each_chunk_says_whether_it_was_seen_how_sure_and_which_side_is_right():
    import numpy
    from lab.token_choice import chunks
    _, rules, chars = rules_and_chars()
    text = TEXT
    inside = numpy.full(len(text), 0.99)
    inside[4], inside[5] = 0.05, 0.3  # sure of the first split, not of the second
    gold = {(0, 3), (3, 4), (4, 5), (5, 6), (6, 9)}  # non-space places: a, b, c apart
    found = {"rules": {(0, 3), (3, 6), (6, 9)}, "chars": set(gold)}
    read = chunks(text, rules, chars, inside, gold, found, {"see", "now"})
    assert [c.span for c in read] == [(0, 3), (4, 7), (8, 11)]
    assert [c.seen for c in read] == [True, False, True]
    assert [c.sure for c in read] == [True, False, True]
    inside[5] = 0.95
    assert chunks(text, rules, chars, inside, gold, found, set())[1].sure
    assert [c.only_chars_right for c in read] == [False, True, False]
