"""The paragraph rule (spacy_elstm/text/paragraphs.py): a blank line ends a
paragraph, and the token after the whitespace that holds one starts a
sentence, set for the whole Doc at once."""
import pytest
import spacy

from spacy_elstm.text.paragraphs import ends_paragraph, mark_paragraph_starts

TEXTS = ["a\n\nb", "\n\n", "a \n \n b", "a\r\n\r\nb\n\n\n\nc", "", "x", "a\n\n", "\n\na",
         "a\n\t\n\n \nb c\n\nd", "a\nb\nc", "a  \n\n  b", "one.\n\n\n\ntwo three\r\n\r\n\r\nfour"]


def by_each_token(doc):
    """The rule token by token, as spaCy's setter applies it."""
    for token in doc[:-1]:
        if token.is_space and ends_paragraph(token.text):
            doc[token.i + 1].is_sent_start = True
    return [t.is_sent_start for t in doc]


@pytest.mark.parametrize("text", TEXTS)
def test_paragraph_starts_are_those_of_the_rule_token_by_token(text):
    nlp = spacy.blank("en")
    doc = nlp.make_doc(text)
    mark_paragraph_starts(doc, text)
    assert [t.is_sent_start for t in doc] == by_each_token(nlp.make_doc(text))


def test_a_long_document_s_paragraphs_all_start_sentences():
    nlp = spacy.blank("en")
    text = "\n\n".join(f"Paragraph {k} has words" for k in range(3000))
    doc = nlp.make_doc(text)
    mark_paragraph_starts(doc, text)
    starts = [t.text for t in doc if t.is_sent_start]
    assert starts == ["Paragraph"] * 3000
