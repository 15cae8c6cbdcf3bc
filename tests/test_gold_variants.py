"""Gold CoNLL-U rewritten as users' text comes (`treebanks/gold_variants.py`):
lower case, no punctuation, CRLF line ends; each rewritten gold file is a
valid treebank the official script reads."""
import os
from pathlib import Path

import pytest

from spacy_elstm.treebanks.conllu_reader import CorpusFormatError, read_conllu
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.gold_variants import VARIANTS, variant_documents, variant_gold
from spacy_elstm.treebanks.scoring import SCORER_ASSET, SCORER_ENV, load_scorer

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "assets" / "ud-ewt-sample"
SCRIPT = Path(os.environ.get(SCORER_ENV) or ROOT / SCORER_ASSET)

ROW = "{i}\t{form}\t{lemma}\t{upos}\t_\t_\t{head}\t{rel}\t{deps}\t{misc}"


def sentence(*rows, comments=()):
    lines = list(comments)
    for row in rows:
        if isinstance(row, str):
            lines.append(row)
            continue
        i, form, upos, head, rel, misc = row
        lines.append(ROW.format(i=i, form=form, lemma=form.lower(), upos=upos, head=head,
                                rel=rel, deps=f"{head}:{rel}", misc=misc))
    return "\n".join(lines) + "\n\n"


def write(tmp_path, *sentences, folder="in"):
    path = tmp_path / folder / "gold.conllu"
    path.parent.mkdir()
    path.write_text("".join(sentences), encoding="utf8")
    return path


def rows_of(path):
    blocks = path.read_text(encoding="utf8").strip().split("\n\n")
    return [[line.split("\t") for line in block.splitlines() if not line.startswith("#")]
            for block in blocks]


def test_unpunctuated_drops_punctuation_words_and_keeps_a_space_in_their_place(tmp_path):
    path = write(tmp_path, sentence(
        (1, "Hello", "INTJ", 3, "discourse", "SpaceAfter=No"), (2, ",", "PUNCT", 1, "punct", "_"),
        (3, "long", "ADJ", 0, "root", "SpaceAfter=No"), (4, "-", "PUNCT", 5, "punct",
                                                          "SpaceAfter=No"),
        (5, "term", "NOUN", 3, "obl", "SpaceAfter=No"), (6, "!", "PUNCT", 3, "punct", "_"),
        comments=["# newdoc id = d1", "# sent_id = s1", "# text = Hello, long-term!"]))
    out = variant_gold(path, "unpunctuated", tmp_path / "out")
    assert out == tmp_path / "out" / "gold.conllu" and path.is_file()
    (rows,) = rows_of(out)
    assert [(r[0], r[1], r[6], r[7], r[8], r[9]) for r in rows] == [
        ("1", "Hello", "2", "discourse", "_", "_"), ("2", "long", "0", "root", "_", "_"),
        ("3", "term", "2", "obl", "_", "_")]
    text = out.read_text(encoding="utf8")
    assert "# newdoc id = d1" in text and "# text" not in text
    assert [d.text for d in raw_documents(out)] == ["Hello long term \n"]


def test_a_removed_root_hands_on_to_its_first_dependent_and_its_children_to_its_head(tmp_path):
    path = write(tmp_path, sentence(
        (1, "a", "X", 3, "dep", "_"), (2, "b", "X", 3, "dep", "_"), (3, "--", "PUNCT", 0, "root", "_"),
        (4, "(", "PUNCT", 5, "punct", "_"), (5, "c", "X", 3, "dep", "_")))
    (rows,) = rows_of(variant_gold(path, "unpunctuated", tmp_path / "out"))
    assert [(r[0], r[6], r[7]) for r in rows] == [("1", "0", "root"), ("2", "1", "dep"),
                                                   ("3", "1", "dep")]


def test_a_sentence_of_punctuation_alone_goes_and_passes_on_its_paragraph(tmp_path):
    path = write(tmp_path,
                 sentence((1, "Hi", "INTJ", 0, "root", "_"), comments=["# newdoc id = d1"]),
                 sentence((1, "***", "PUNCT", 0, "root", "_"),
                          comments=["# newdoc id = d2", "# newpar id = p2"]),
                 sentence((1, "Bye", "INTJ", 0, "root", "_"), comments=["# sent_id = s3"]))
    out = variant_gold(path, "unpunctuated", tmp_path / "out")
    blocks = out.read_text(encoding="utf8").strip().split("\n\n")
    assert len(blocks) == 2
    assert blocks[1].splitlines()[:3] == ["# newdoc id = d2", "# newpar id = p2", "# sent_id = s3"]
    assert [d.doc_id for d in raw_documents(out)] == ["d1", "d2"]
    only = write(tmp_path, sentence((1, "!", "PUNCT", 0, "root", "_")), folder="only")
    with pytest.raises(CorpusFormatError, match="no sentence is left in its unpunctuated form"):
        variant_gold(only, "unpunctuated", tmp_path / "out2")


def test_punctuation_inside_a_multiword_token_and_empty_nodes(tmp_path):
    path = write(tmp_path, sentence(
        "1-2\tgonna'\t_\t_\t_\t_\t_\t_\t_\t_", (1, "gon", "VERB", 0, "root", "_"),
        (2, "na'", "PUNCT", 1, "punct", "_"), "2.1\tx\tx\tX\t_\t_\t_\t_\t1:dep\t_",
        (3, "go", "VERB", 1, "xcomp", "SpaceAfter=No"), (4, ".", "PUNCT", 1, "punct", "_")))
    (rows,) = rows_of(variant_gold(path, "unpunctuated", tmp_path / "out"))
    assert [r[0] for r in rows] == ["1-2", "1", "2", "3"]  # no empty node; the token's word kept
    assert rows[3][9] == "_"  # `go` gets back the space the full stop had


def test_lowercase_lowers_forms_and_text_but_not_lemmas(tmp_path):
    path = write(tmp_path, sentence((1, "John", "PROPN", 0, "root", "_"),
                                    comments=["# text = John"]))
    out = variant_gold(path, "lowercase", tmp_path / "out")
    (rows,) = rows_of(out)
    assert rows[0][1] == "john" and rows[0][2] == "john"  # this lemma was lower already
    assert "# text = john" in out.read_text(encoding="utf8")
    (doc,) = read_conllu(variant_gold(SAMPLE / "dev.conllu", "lowercase", tmp_path / "dev"))[:1]
    assert doc.text == doc.text.lower()
    assert any(t.lemma_ != t.lemma_.lower() for d in read_conllu(
        tmp_path / "dev" / "dev.conllu") for t in d)


def test_crlf_writes_each_line_break_of_the_text_as_windows_does(tmp_path):
    assert variant_gold(SAMPLE / "dev.conllu", "crlf", tmp_path) == SAMPLE / "dev.conllu"
    plain = raw_documents(SAMPLE / "dev.conllu")
    crlf = variant_documents(SAMPLE / "dev.conllu", "ud", "crlf")
    assert [d.text.replace("\r\n", "\n") for d in crlf] == [d.text for d in plain]
    assert all("\r\n" in d.text for d in crlf) and not any(
        "\n" in d.text.replace("\r\n", "") for d in crlf)
    with pytest.raises(ValueError, match="text variant must be one of as-written, crlf, "
                                         "lowercase, unpunctuated, lowercase-unpunctuated, "
                                         "got 'loud'"):
        variant_documents(SAMPLE / "dev.conllu", "ud", "loud")


@pytest.mark.skipif(not SCRIPT.is_file(), reason="no CoNLL 2018 evaluation script")
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("split", ["train", "dev"])
def test_every_variant_of_the_sample_is_a_treebank_the_official_script_reads(
        tmp_path, variant, split):
    scorer = load_scorer(SCRIPT)
    gold = variant_gold(SAMPLE / f"{split}.conllu", variant, tmp_path)
    with gold.open(encoding="utf8") as f:
        loaded = scorer.load_conllu(f)  # raises on a cycle, two roots or bad numbering
    text = "".join(d.text for d in variant_documents(gold, "ud", variant))
    assert "".join(text.split()) == "".join(loaded.characters)
    if variant.endswith("unpunctuated"):
        assert not any(w.columns[3] == "PUNCT" and not w.is_multiword for w in loaded.words)


def test_lowercase_unpunctuated_is_the_unpunctuated_gold_lowered(tmp_path):
    both = variant_gold(SAMPLE / "dev.conllu", "lowercase-unpunctuated", tmp_path / "both")
    unpunctuated = variant_gold(SAMPLE / "dev.conllu", "unpunctuated", tmp_path / "u")
    lowered = variant_gold(unpunctuated, "lowercase", tmp_path / "ul")
    assert both.read_text(encoding="utf8") == lowered.read_text(encoding="utf8")
