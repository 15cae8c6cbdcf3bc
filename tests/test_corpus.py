"""The CoNLL-U reader: the committed sample reads, malformed files are named."""
from pathlib import Path

import pytest
import spacy

from spacy_elstm.tools.conllu import CorpusFormatError, read_conllu

SAMPLE = Path(__file__).parent.parent / "assets" / "ud-ewt-sample" / "dev.conllu"
GOOD = (
    "# text = Hi there.\n"
    "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n"
    "2\tthere\tthere\tADV\tRB\tPronType=Dem\t1\tadvmod\t_\tSpaceAfter=No\n"
    "3\t.\t.\tPUNCT\t.\t_\t1\tpunct\t_\t_\n\n"
)


def write(tmp_path, text):
    path = tmp_path / "x.conllu"
    path.write_text(text)
    return path


def test_reads_annotation(tmp_path):
    (doc,) = read_conllu(write(tmp_path, GOOD), spacy.blank("en").vocab)
    assert [t.text for t in doc] == ["Hi", "there", "."]
    assert doc.text == "Hi there. "
    assert [t.tag_ for t in doc] == ["UH", "RB", "."]
    assert [t.pos_ for t in doc] == ["INTJ", "ADV", "PUNCT"]
    assert str(doc[1].morph) == "PronType=Dem"
    assert [t.head.i for t in doc] == [0, 0, 0]
    assert [t.dep_ for t in doc] == ["ROOT", "advmod", "punct"]


def test_reads_the_committed_sample():
    docs = read_conllu(SAMPLE, spacy.blank("en").vocab)
    assert len(docs) == 150
    assert all(len(doc) > 0 for doc in docs)


@pytest.mark.parametrize(
    "text,message",
    [
        (GOOD.replace("1\tHi\thi\tINTJ\tUH\t_\t0", "1\tHi\thi\tINTJ\tUH\t_\t7"), r"sentence 1, word 1: HEAD must be an integer in 0\.\.3, got 7"),
        (GOOD + GOOD.replace("2\tthere", "4\tthere"), r"sentence 2: word ids must run 1\.\.3"),
        (GOOD.replace("\tPronType=Dem\t1", "\tPronType=Dem\tone"), r"sentence 1"),
    ],
)
def test_malformed_files_name_the_place(tmp_path, text, message):
    with pytest.raises(CorpusFormatError, match=message) as err:
        read_conllu(write(tmp_path, text), spacy.blank("en").vocab)
    assert "x.conllu" in str(err.value)


def test_missing_file_is_named(tmp_path):
    with pytest.raises(CorpusFormatError, match="no such CoNLL-U file"):
        read_conllu(tmp_path / "nope.conllu", spacy.blank("en").vocab)
