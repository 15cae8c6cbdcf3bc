"""The raw text of a gold CoNLL-U file in UD's own form (byte for byte what
`conllu_to_text.pl --language CODE` writes; tests/fixtures/ud_text/README.md)
and in the joined form, document by document. The expected texts of the small
cases were written by the Perl script on the same input."""
from pathlib import Path

import pytest

from spacy_elstm.treebanks.conllu_reader import CorpusFormatError
from spacy_elstm.treebanks.gold_text import raw_documents, ud_text, wraps_between_characters
from spacy_elstm.treebanks.gold_variants import variant_documents
from spacy_elstm.treebanks.ud_names import language_code

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "ud_text"
# (CoNLL-U file, the Perl script's text of it, language code)
SAMPLES = [(ROOT / "assets" / "ud-ewt-sample" / f"{split}.conllu", FIXTURES / f"{split}.txt", "en")
           for split in ("train", "dev")] + [
    (conllu, conllu.with_suffix(".txt"), language_code(conllu))
    for conllu in sorted(FIXTURES.glob("UD_*/*.conllu"))]


def test_every_treebank_has_its_excerpt():
    assert len(SAMPLES) == 2 + 7
    assert {code for _, _, code in SAMPLES} == {"en", "vi", "ug", "cop", "lzh", "tr", "el", "wo"}


@pytest.mark.parametrize("source, text, language", SAMPLES,
                         ids=[f"{c.parent.name}/{c.name}" for c, _, _ in SAMPLES])
def test_the_text_is_ud_s_byte_for_byte(source, text, language):
    want = text.read_bytes()
    assert ud_text(source, language).encode("utf8") == want
    documents = raw_documents(source, "ud", language)
    assert "".join(d.text for d in documents).encode("utf8") == want
    lines = source.read_text(encoding="utf8").split("\n")
    sentences = sum(line.startswith("# sent_id ") for line in lines)
    assert sum(d.sentences for d in documents) == sentences


def test_classical_chinese_is_wrapped_between_characters():
    source = FIXTURES / "UD_Classical_Chinese-Kyoto" / "lzh_kyoto-ud-test.conllu"
    lines = ud_text(source, "lzh").split("\n")
    assert max(len(line) for line in lines) == 81  # the script's limit between characters
    assert ud_text(source, "lzh") != ud_text(source)  # English's rule: at whitespace only
    crlf = variant_documents(source, "ud", "crlf", "lzh")  # what `score --raw` reads
    assert "".join(d.text for d in crlf) == ud_text(source, "lzh").replace("\n", "\r\n")


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


HAN = "子曰學而時習之不亦說乎有朋自遠方來不亦樂乎人不知而不慍不亦君子乎"  # 33 characters

# (language, CoNLL-U, the Perl script's text of it)
LANGUAGE_CASES = {
    # A line of Chinese is cut after its 81st character (the script's limit
    # there), not at whitespace, of which it has none.
    "han_100": ("zh", sent(*[tok(i + 1, (HAN * 4)[5 * i:5 * i + 5], "SpaceAfter=No")
                             for i in range(20)]),
                (HAN * 4)[:81] + "\n" + (HAN * 4)[81:100] + "\n"),
    # A Latin word (letters and digits) is not cut: the line ends before it.
    "latin_word": ("zh", sent(tok(1, (HAN * 3)[:78], "SpaceAfter=No"),
                              tok(2, "Python3", "SpaceAfter=No"),
                              tok(3, HAN[:20], "SpaceAfter=No"), tok(4, "。")),
                   (HAN * 3)[:78] + "\nPython3" + HAN[:20] + "。 \n"),
    # Full-width Latin letters are Latin too (and `ja` wraps as `zh` does).
    "fullwidth_latin": ("ja", sent(tok(1, (HAN * 3)[:80], "SpaceAfter=No"),
                                   tok(2, "ＵＤ", "SpaceAfter=No"), tok(3, HAN[:5])),
                        (HAN * 3)[:80] + "\nＵＤ" + HAN[:5] + " \n"),
    # NewPar=Yes in MISC: a paragraph starts inside the sentence, at that token.
    "newpar_yes": ("en", "# newpar\n"
                   + sent(tok(1, "Items", "SpaceAfter=No"), tok(2, ":"),
                          tok(3, "first", "NewPar=Yes"),
                          tok(4, "second", "NewPar=Yes|SpaceAfter=No"), tok(5, "."))
                   + sent(tok(1, "After"), tok(2, ".")),
                   "Items: \n\nfirst \n\nsecond. After . \n"),
    # ... on a multiword token's line.
    "newpar_yes_multiword": ("en", sent(tok(1, "Verse"), tok("2-3", "don't", "NewPar=Yes"),
                                        tok(2, "do"), tok(3, "n't"), tok(4, "stop")),
                             "Verse \n\ndon't stop \n"),
    # ... on a sentence's first token after `# newpar`: both breaks are written.
    "newpar_yes_after_newpar": ("en", "# newpar\n" + sent(tok(1, "One")) + "# newpar\n"
                                + sent(tok(1, "Two", "NewPar=Yes"), tok(2, "three")),
                                "One \n\n\n\nTwo three \n"),
    # ... after a word longer than a line that has SpaceAfter=No: the word is
    # written as it stands, then the break (the script before its commit e5e22fb
    # of 2020-03-21, e.g. 04309f0, wrote one more empty line here).
    "newpar_yes_after_a_long_attached_word": (
        "en", sent(tok(1, "See"), tok(2, "x" * 85, "SpaceAfter=No"), tok(3, "y", "NewPar=Yes"),
                   tok(4, "end")),
        "See\n" + "x" * 85 + "\n\ny end \n"),
}


@pytest.mark.parametrize("name", sorted(LANGUAGE_CASES))
def test_language_cases(tmp_path, name):
    language, conllu, expected = LANGUAGE_CASES[name]
    assert ud_text(write(tmp_path, conllu), language) == expected


def test_only_chinese_style_codes_wrap_between_characters():
    assert all(map(wraps_between_characters, ["zh", "ja", "lzh", "yue", "zh_gsd", "ja_x"]))
    assert not any(map(wraps_between_characters, ["en", "vi", "zhx", "jav", "xzh", "ko", ""]))


def test_language_codes_are_read_from_ud_file_names():
    assert language_code("lzh_kyoto-ud-test.conllu") == "lzh"
    assert language_code(Path("data/UD_Greek-GDT/el_gdt-ud-train.conllu")) == "el"
    assert language_code("cop_scriptorium-ud-dev.conllu") == "cop"
    assert language_code("de_hdt-ud-train-a-1.conllu") == "de"
    for not_ud in ("dev.conllu", "wsj.conllu", "zh_notes.conllu", "lzh-kyoto-ud-test.conllu",
                   "UD_Classical_Chinese-Kyoto/test.conllu", ""):
        assert language_code(not_ud) == "en"


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
