"""Hard-wrapped lines read as running text (`text/wrapping.py`): wraps become
spaces and keep every offset, chosen line breaks stay, and the senter reads a
wrapped text as it reads the same text on one line."""
import numpy
import pytest
import spacy

from spacy_elstm.components.elstm_senter import ELSTMSenter
from spacy_elstm.text.wrapping import NARROWEST_WRAP, WIDEST_LONE_WRAP, unwrapped
from spacy_elstm.treebanks.gold_text import raw_documents

SAMPLE = "assets/ud-ewt-sample/dev.conllu"


def wrap(text: str, width: int) -> str:
    """The text's words on lines of at most `width` characters."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join(lines + [line])


PARAGRAPH = ("President Bush on Tuesday nominated two individuals to replace retiring jurists "
             "on federal courts in the Washington area. Bush nominated Jennifer M. Anderson "
             "for a 15-year term as associate judge of the Superior Court of the District of "
             "Columbia, replacing Steffen W. Graae.")


@pytest.mark.parametrize("width", [60, 72, 80, 100])
def test_text_wrapped_at_any_width_reads_as_one_line(width):
    wrapped = wrap(PARAGRAPH, width)
    assert wrapped.count("\n") >= 2
    assert unwrapped(wrapped) == PARAGRAPH
    crlf = wrapped.replace("\n", "\r\n")
    assert unwrapped(crlf) == wrap(PARAGRAPH, width).replace("\n", "  ")


def test_paragraphs_and_short_lines_stay_as_written():
    signature = "Thanks for the quick reply.\nJohn Smith\nSales Director"
    assert unwrapped(signature) == signature  # narrower than any wrapping
    text = wrap(PARAGRAPH, 72) + "\n\n" + signature
    # the wrapped paragraph unwrapped; the signature's chosen breaks kept
    assert unwrapped(text) == PARAGRAPH + "\n\n" + signature


def test_one_sentence_per_line_is_not_unwrapped():
    lines = [d.text for d in raw_documents(SAMPLE, "lines")]
    wide = [text for text in lines
            if max(len(line) for line in text.split("\n")) >= NARROWEST_WRAP]
    assert len(wide) >= 3
    assert all(unwrapped(text) == text for text in wide)
    # two lines, the first wider than text is wrapped at: a sentence on its line
    two = ("A first line that is longer than any line of text wrapped at eighty characters "
           "could be.\nSecond one.")
    assert len(two.split("\n")[0]) > WIDEST_LONE_WRAP
    assert unwrapped(two) == two


def test_a_single_wrap_within_eighty_characters_is_a_wrap():
    """One wrap is all a short paragraph of UD's text has (and it is where a
    sentence written on a line of 60-80 characters before a word that would
    not fit looks the same)."""
    one = wrap(PARAGRAPH.split(". ")[0] + ".", 80)
    assert one.count("\n") == 1
    assert unwrapped(one) == one.replace("\n", " ")
    wider = wrap(PARAGRAPH.split(". ")[0] + ".", 90)
    assert wider.count("\n") == 1 and unwrapped(wider) == wider


def test_a_paragraph_with_a_chosen_break_keeps_all_its_breaks():
    lines = wrap(PARAGRAPH, 72).split("\n")
    chosen = "\n".join(lines[:2] + ["Short line."] + lines[2:])
    assert unwrapped(chosen) == chosen


def test_ud_text_is_unwrapped_where_it_was_wrapped():
    texts = [d.text for d in raw_documents(SAMPLE, "ud")]
    read = [unwrapped(text) for text in texts]
    assert [len(r) for r in read] == [len(t) for t in texts]
    assert [r.count("\n\n") for r in read] == [t.count("\n\n") for t in texts]
    assert sum(r.count("\n") for r in read) < sum(t.count("\n") for t in texts) / 2


class NewlineSegmenter:
    """Ends a sentence at every line break (as a senter that learned that one
    sentence per line ends sentences would), nowhere else."""

    window = 300

    def read(self, texts):
        out = []
        for text in texts:
            ends = numpy.zeros(len(text), dtype="float32")
            for k, char in enumerate(text):
                if char == "\n" and k:
                    ends[k - 1] = 1.0  # the word before the break
            out.append((numpy.where(ends > 0.5, 3, 0), ends))
        return out


def test_the_senter_reads_wraps_as_spaces():
    nlp = spacy.blank("en")
    senter = ELSTMSenter("senter", NewlineSegmenter())
    wrapped = wrap(PARAGRAPH, 80)
    assert len(list(senter(nlp.make_doc(wrapped)).sents)) == 1
    lines = "One sentence here.\nAnother one here.\nAnd a third one."
    assert len(list(senter(nlp.make_doc(lines)).sents)) == 3


def test_a_line_of_one_long_word_does_not_set_the_width():
    """UD's text gives a word longer than its 80 characters a line of its own
    (a URL), and the next word goes on the next line: the lines are still
    wrapped at 80."""
    url = "[http://example.com/" + "a" * 100 + "]"
    wrapped = url + "\n" + wrap(PARAGRAPH, 80)
    assert unwrapped(wrapped) == url + " " + PARAGRAPH
    assert unwrapped(url + "\nShort line.\nAnother one.") == url + "\nShort line.\nAnother one."
