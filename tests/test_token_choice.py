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


def test_a_chosen_chunk_takes_the_other_labels_there_alone():
    nlp = spacy.blank("en")
    text = "see b/c now"
    rules = gold_labels(nlp.make_doc(text))
    chars = list(rules)
    chars[4] = chars[5] = TOKEN_END  # "b" "/" "c"
    chars[0] = TOKEN_END  # "s" "ee", in a chunk not chosen
    labels = chosen_labels(text, rules, chars, lambda m: m.group() == "b/c")
    assert [t.text for t in build_doc(nlp.vocab, text, labels)] == ["see", "b", "/", "c", "now"]
    assert non_space_offsets("a b\nc") == [0, 1, 1, 2, 2]
