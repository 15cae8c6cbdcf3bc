"""The CoNLL-U reader: its Docs are those of `spacy convert`, and malformed
files are refused with the file and the line named."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_elstm.treebanks.conllu_reader import CorpusFormatError, conllu_to_docs, convert, read_conllu

SAMPLE = Path(__file__).parent.parent / "assets" / "ud-ewt-sample"
GOOD = (
    "# text = Hi there.\n"
    "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n"
    "2\tthere\tthere\tADV\tRB\tPronType=Dem\t1\tadvmod\t_\tSpaceAfter=No\n"
    "3\t.\t.\tPUNCT\t.\t_\t1\tpunct\t_\t_\n\n"
)
# A sentence with a multiword token and words without UPOS or XPOS.
MULTIWORD = (
    "1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n"
    "1\tdo\tdo\tAUX\t_\tMood=Imp\t0\troot\t_\t_\n"
    "2\tn't\tnot\t_\tRB\t_\t1\tadvmod\t_\t_\n"
    "3\t!\t!\t_\t_\t_\t1\tpunct\t_\t_\n\n"
)


def write(tmp_path, text, name="x.conllu"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf8"))
    return path


def attributes(doc):
    return [(t.text, t.whitespace_, t.tag_, t.pos_, str(t.morph), t.lemma_, t.head.i, t.dep_,
             t.is_sent_start) for t in doc]


def spacy_convert(path, out, n_sents):
    from spacy.cli.convert import convert as convert_cli

    convert_cli(path, out, file_type="spacy", converter="conllu", n_sents=n_sents, silent=True)
    return list(DocBin().from_disk(out / f"{path.stem}.spacy").get_docs(spacy.blank("en").vocab))


def test_reads_annotation(tmp_path):
    (doc,) = read_conllu(write(tmp_path, GOOD), spacy.blank("en").vocab)
    assert [t.text for t in doc] == ["Hi", "there", "."]
    assert doc.text == "Hi there. "
    assert [t.tag_ for t in doc] == ["UH", "RB", "."]
    assert [t.pos_ for t in doc] == ["INTJ", "ADV", "PUNCT"]
    assert str(doc[1].morph) == "PronType=Dem"
    assert [t.head.i for t in doc] == [0, 0, 0]
    assert [t.dep_ for t in doc] == ["ROOT", "advmod", "punct"]


def test_multiword_tokens_and_missing_tags_as_spacy_reads_them(tmp_path):
    (doc,) = read_conllu(write(tmp_path, MULTIWORD))
    assert [t.text for t in doc] == ["do", "n't", "!"]
    assert [t.whitespace_ for t in doc] == ["", "", " "]
    # XPOS as written: `_` where it is `_` (spaCy's converter gives the UPOS there)
    assert [t.tag_ for t in doc] == ["_", "RB", "_"]
    assert [t.pos_ for t in doc] == ["AUX", "", ""]  # no UPOS: empty, not X


@pytest.mark.parametrize("n_sents", [1, 10])
@pytest.mark.parametrize("split", ["train", "dev"])
def test_docs_equal_spacy_convert(tmp_path, split, n_sents):
    path = SAMPLE / f"{split}.conllu"
    theirs = spacy_convert(path, tmp_path / "spacy", n_sents)
    written = convert(path, tmp_path / "ours", n_sents)
    assert written == tmp_path / "ours" / f"{split}.spacy"
    ours = list(DocBin().from_disk(written).get_docs(spacy.blank("en").vocab))
    assert len(ours) == len(theirs) == -(-(400 if split == "train" else 150) // n_sents)
    for mine, reference in zip(ours, theirs):
        assert attributes(mine) == attributes(reference)


def test_edge_cases_equal_spacy_convert_but_a_missing_xpos(tmp_path):
    path = write(tmp_path, GOOD + MULTIWORD + GOOD.replace("\tSpaceAfter=No", "\t_"))
    theirs = spacy_convert(path, tmp_path / "spacy", 2)
    ours = conllu_to_docs(path, 2)
    # spaCy's converter tags a word without XPOS with its UPOS; ours keeps `_`
    assert [t.tag_ for d in theirs for t in d][3] == "AUX"
    assert [t.tag_ for d in ours for t in d][3] == "_"
    for doc in theirs:
        for token in doc:
            if token.text == "do":
                token.tag_ = "_"
    assert [attributes(d) for d in ours] == [attributes(d) for d in theirs]


def test_convert_command(tmp_path):
    result = subprocess.run([sys.executable, "-m", "spacy_elstm", "convert",
                             str(write(tmp_path, GOOD * 3)), str(tmp_path / "out"), "--n-sents", "2"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    docs = list(DocBin().from_disk(tmp_path / "out" / "x.spacy").get_docs(spacy.blank("en").vocab))
    assert [len(list(d.sents)) for d in docs] == [2, 1]


def test_convert_command_refuses_a_bad_file_and_writes_nothing(tmp_path):
    bad = GOOD + GOOD.replace("\t0\troot", "\t3\troot")
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "spacy_elstm", "convert",
                             str(write(tmp_path, bad)), str(out)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "x.conllu, line 7: cycle through words 1, 3" in result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists() or not any(out.iterdir())


def test_reads_the_committed_sample():
    docs = read_conllu(SAMPLE / "dev.conllu", spacy.blank("en").vocab)
    assert len(docs) == 150
    assert all(len(doc) > 0 for doc in docs)


def replace_line(text, number, line):
    lines = text.split("\n")
    lines[number - 1] = line
    return "\n".join(lines)


ROOT_LINE = "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_"


@pytest.mark.parametrize(
    "text,message",
    [
        (GOOD.replace("\tUH\t_\t0", "\tUH\t_\t7"), r"line 2: HEAD must be an integer in 0\.\.3, got 7"),
        (GOOD.replace("\tUH\t_\t0", "\tUH\t_\t_"), r"line 2: HEAD must be an integer in 0\.\.3, got '_'"),
        (GOOD + GOOD.replace("2\tthere", "4\tthere"), r"line 8: word ids must run 1\.\.3 in order: expected 2, got 4"),
        (GOOD.replace("2\tthere", "x\tthere"), r"line 3: .*'x' is not a valid ID"),
        (GOOD.replace("\tPronType=Dem\t1", "\tPronType=Dem\tone"), r"line 3: "),
        # a cycle beside a root: 1 -> 3 -> 1, 2 the root
        (GOOD.replace("\tUH\t_\t0\troot", "\tUH\t_\t3\tnsubj")
             .replace("\tPronType=Dem\t1\tadvmod", "\tPronType=Dem\t0\troot"),
         r"line 2: cycle through words 1, 3"),
        # a cycle without a root: 1 -> 2 -> 3 -> 1
        (GOOD.replace("\tUH\t_\t0\troot", "\tUH\t_\t2\tdep")
             .replace("\tPronType=Dem\t1", "\tPronType=Dem\t3"),
         r"line 2: cycle through words 1, 2, 3"),
        (GOOD.replace("\tPronType=Dem\t1", "\tPronType=Dem\t2"), r"line 3: word 2 is its own head"),
        (GOOD.replace(".\tPUNCT\t.\t_\t1\tpunct", ".\tPUNCT\t.\t_\t0\troot"),
         r"line 4: 2 words have HEAD 0 \(1, 3\); a sentence has exactly one root"),
        (GOOD.replace("\tSpaceAfter=No", "\tSpaceAfter=No\textra"), r"line 3: expected 10 tab-separated columns, got 11"),
        (GOOD.replace("\tpunct\t_\t_", "\tpunct\t_"), r"line 4: expected 10 tab-separated columns, got 9"),
        (GOOD.replace("\tadvmod", "\t_"), r"line 3: DEPREL is missing"),
        (GOOD.replace("3\t.", "# late comment\n3\t."), r"line 4: a comment after the words"),
        (GOOD + "# only a comment\n", r"line 6: comments without a sentence"),
        ("", r"no sentences"),
        ("\n\n# \n", r"line 3: comments without a sentence"),
        # FEATS that spaCy's MorphAnalysis cannot hold, or that `conllu` would rewrite
        (GOOD.replace("PronType=Dem", "Definite"),
         r"line 3: FEATS must be '_' or Feature=Value pairs joined by '\|' .*got 'Definite'"),
        (GOOD.replace("PronType=Dem", "PronType=Dem|Definite"), r"line 3: FEATS .*got 'Definite'"),
        (GOOD.replace("PronType=Dem", "A=B=C"), r"line 3: FEATS .*got 'A=B=C'"),
        (GOOD.replace("PronType=Dem", "=Def"), r"line 3: FEATS .*got '=Def'"),
        (GOOD.replace("PronType=Dem", "PronType=Dem||Number=Sing"), r"line 3: FEATS .*got ''"),
        (GOOD.replace("PronType=Dem", "Case=Nom|Case=Acc"), r"line 3: FEATS names 'Case' twice"),
    ],
)
def test_malformed_files_name_the_line(tmp_path, text, message):
    with pytest.raises(CorpusFormatError, match=message) as err:
        read_conllu(write(tmp_path, text), spacy.blank("en").vocab)
    assert str(err.value).startswith(str(tmp_path / "x.conllu"))


def test_empty_file_names_the_file(tmp_path):
    with pytest.raises(CorpusFormatError, match=r"x\.conllu: no sentences"):
        read_conllu(write(tmp_path, "\n\n"))


def test_latin1_byte_is_reported_at_its_line(tmp_path):
    text = (GOOD * 2).encode("utf8") + GOOD.encode("utf8").replace(b"there\tthere", b"th\xe9re\tthere")
    with pytest.raises(CorpusFormatError, match=r"x\.conllu, line 13: not UTF-8 \(byte 0xe9"):
        read_conllu(write(tmp_path, text))


def test_feats_are_kept_exactly(tmp_path):
    feats = "Case=Acc,Nom|Number=Sing|Number[psor]=Plur"
    (doc,) = read_conllu(write(tmp_path, GOOD.replace("PronType=Dem", feats)))
    assert str(doc[1].morph) == feats


def test_convert_command_refuses_bad_feats_without_a_traceback(tmp_path):
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "spacy_elstm", "convert",
                             str(write(tmp_path, GOOD + GOOD.replace("PronType=Dem", "Definite"))),
                             str(out)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "x.conllu, line 8: FEATS must be" in result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists() or not any(out.iterdir())


def test_byte_order_mark_is_accepted(tmp_path):
    (doc,) = read_conllu(write(tmp_path, b"\xef\xbb\xbf" + GOOD.encode("utf8")))
    assert [t.text for t in doc] == ["Hi", "there", "."]


def test_crlf_line_ends_are_accepted(tmp_path):
    (doc,) = read_conllu(write(tmp_path, GOOD.replace("\n", "\r\n")))
    assert [t.whitespace_ for t in doc] == [" ", "", " "]


def test_missing_file_is_named(tmp_path):
    with pytest.raises(CorpusFormatError, match="no such CoNLL-U file"):
        read_conllu(tmp_path / "nope.conllu", spacy.blank("en").vocab)


def test_converted_file_has_the_usual_permissions(tmp_path):
    output = convert(write(tmp_path, GOOD), tmp_path / "out")
    mask = os.umask(0)
    os.umask(mask)
    assert output.stat().st_mode & 0o777 == 0o666 & ~mask
    assert [p.name for p in output.parent.iterdir()] == ["x.spacy"]
