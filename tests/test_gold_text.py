"""The raw text of a gold CoNLL-U file in UD's own form (byte for byte what
`conllu_to_text.pl` writes; tests/fixtures/ud_text/README.md) and in the joined
form, document by document. The expected texts of the small cases were written
by the Perl script on the same input."""
from pathlib import Path

import pytest

from spacy_elstm.treebanks.conllu_reader import CorpusFormatError
from spacy_elstm.treebanks.gold_text import raw_documents, ud_text

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "ud_text"


@pytest.mark.parametrize("split", ["train", "dev"])
def test_the_sample_s_text_is_ud_s_byte_for_byte(split):
    source = ROOT / "assets" / "ud-ewt-sample" / f"{split}.conllu"
    want = (FIXTURES / f"{split}.txt").read_bytes()
    assert ud_text(source).encode("utf8") == want
    documents = raw_documents(source)
    assert "".join(d.text for d in documents).encode("utf8") == want
    assert sum(d.sentences for d in documents) == source.read_text().count("# sent_id")


def tok(i, form, misc="_"):
    return "\t".join([str(i), form, "_", "_", "_", "_", "_", "_", "_", misc])


def sent(*toks):
    return "\n".join(toks) + "\n\n"


def write(tmp_path, text, name="in.conllu"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


CASES = {
    # '# newpar' inside a document: blank line before the new paragraph; the
    # line before it keeps its trailing space.
    "newpar": (
        "# newdoc id = d1\n# newpar\n"
        + sent(tok(1, "Hello"), tok(2, "world", "SpaceAfter=No"), tok(3, "."))
        + sent(tok(1, "Same"), tok(2, "paragraph"))
        + "# newpar\n"
        + sent(tok(1, "New"), tok(2, "one")),
        "Hello world. Same paragraph \n\nNew one \n",
    ),
    # A multiword token is written by its surface form; its words are skipped.
    "mwt": (
        sent(tok(1, "I"), tok("2-3", "don't"), tok(2, "do", "SpaceAfter=No"),
             tok(3, "n't"), tok(4, "know", "SpaceAfter=No"), tok(5, ".")),
        "I don't know. \n",
    ),
    # SpaceAfter=No on the last token glues the next sentence on.
    "spaceafter_end": (
        sent(tok(1, "Wait"), tok(2, "...", "SpaceAfter=No")) + sent(tok(1, "Done"), tok(2, ".")),
        "Wait ...Done . \n",
    ),
    # Wrapping at the last space within 80 columns.
    "wrap": (
        sent(*[tok(i + 1, w) for i, w in enumerate(
            ("The quick brown fox jumps over the lazy dog and then keeps running far away "
             "until the sun goes down over the hills.").split())]),
        "The quick brown fox jumps over the lazy dog and then keeps running far away\n"
        "until the sun goes down over the hills. \n",
    ),
    # A line of exactly 80 characters is allowed ...
    "wrap_exactly_80": (
        sent(*[tok(i + 1, w) for i, w in enumerate(["a" * 9] * 7 + ["b" * 10, "c" * 5])]),
        " ".join(["a" * 9] * 7 + ["b" * 10]) + "\nccccc \n",
    ),
    # ... but 81 is not.
    "wrap_81": (
        sent(*[tok(i + 1, w) for i, w in enumerate(["a" * 9] * 7 + ["b" * 11, "c" * 5])]),
        " ".join(["a" * 9] * 7) + "\n" + "b" * 11 + " ccccc \n",
    ),
    # A word longer than 80 characters gets a line of its own; with
    # SpaceAfter=No it stays glued to the following token.
    "longword": (
        sent(tok(1, "See"), tok(2, "x" * 90), tok(3, "here"))
        + sent(tok(1, "y" * 85, "SpaceAfter=No"), tok(2, "z" * 10), tok(3, "end")),
        "See\n" + "x" * 90 + "\nhere\n" + "y" * 85 + "z" * 10 + "\nend \n",
    ),
    # Two documents: the separating blank line ends the first document.
    "newdocs": (
        "# newdoc id = a\n" + sent(tok(1, "One"))
        + "# newdoc id = b\n# newpar\n" + sent(tok(1, "Two")) + sent(tok(1, "Three")),
        "One \n\nTwo Three \n",
    ),
}




@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_small_cases(tmp_path, name, newline):
    conllu, expected = CASES[name]
    assert ud_text(write(tmp_path, conllu.replace("\n", newline))) == expected


def test_documents_split_at_newdoc(tmp_path):
    conllu, _ = CASES["newdocs"]
    documents = raw_documents(write(tmp_path, conllu))
    assert [(d.doc_id, d.text, d.sentences) for d in documents] == [
        ("a", "One \n\n", 1), ("b", "Two Three \n", 2)]


def test_no_newdoc_is_one_document(tmp_path):
    conllu, expected = CASES["mwt"]
    documents = raw_documents(write(tmp_path, conllu))
    assert [(d.doc_id, d.text, d.sentences) for d in documents] == [(None, expected, 1)]


def test_the_joined_form_puts_a_paragraph_on_one_line(tmp_path):
    conllu, _ = CASES["wrap"]
    (document,) = raw_documents(write(tmp_path, conllu), "joined")
    assert "\n" not in document.text and document.text.endswith("hills.")


def test_the_lines_form_puts_each_sentence_on_a_line_of_its_own(tmp_path):
    path = write(tmp_path, CASES["wrap"][0])
    (joined,) = raw_documents(path, "joined")
    (lines,) = raw_documents(path, "lines")
    sentences = [line for line in lines.text.split("\n") if line]
    assert len(sentences) == lines.sentences and lines.sentences == joined.sentences
    assert lines.text.replace("\n", " ") == joined.text


def test_bad_input_is_named(tmp_path):
    with pytest.raises(CorpusFormatError, match=r"in\.conllu, line 2: expected 10"):
        ud_text(write(tmp_path, "# sent_id = 1\n1\tHello\t_\n\n"))
    with pytest.raises(ValueError, match="text form must be one of ud, joined, lines, got 'pdf'"):
        raw_documents(write(tmp_path, CASES["mwt"][0]), "pdf")


def test_comment_lines_are_read_by_one_rule():
    from spacy_elstm.treebanks.gold_text import comment_keyword, newdoc_id
    assert comment_keyword("# newdoc id = weblog-1") == "newdoc"
    assert comment_keyword("# NewPar") == "newpar"
    assert comment_keyword("# text = a b") == "text"
    assert comment_keyword("#") == comment_keyword("1\tword") == ""
    assert newdoc_id("# newdoc id = weblog-1 ") == "weblog-1"
    assert newdoc_id("# newdoc") == newdoc_id("# newdoc = x") == ""
