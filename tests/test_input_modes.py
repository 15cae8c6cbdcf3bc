"""The input modes (spacy_elstm/text/input_modes.py, docs/raw-text.md#input-modes):
text files read one doc a paragraph (default), a line or a file, streamed by
byte ranges that a worker reads again; one sentence a line (`--presegmented`)
and pretokenized input (`--pretokenized`), kept whatever the sentence splitter
would do; and the same results from the Python calls and from the command line."""
import hashlib
import json
import tracemalloc
from pathlib import Path

import pytest
import spacy
from typer.testing import CliRunner

from spacy_elstm.cli.app import app
from spacy_elstm.parsing.local import parse_corpus
from spacy_elstm.parsing.manifest import PlanChangedError
from spacy_elstm.parsing.plan import chunk_tasks, plan_chunks
from spacy_elstm.parsing.records import CorpusInputError, Record, read_records
from spacy_elstm.parsing.summary import Summary
from spacy_elstm.text.input_modes import make_doc, make_docs, paragraphs, text_units
from spacy_elstm.treebanks.conllu_writer import doc_to_conllu
from parse_utils import MODEL, TEXTS

RAW = Path(__file__).parent / "fixtures" / "compat_raw" / "raw_best_elstm"  # elstm_senter first

# wrapped lines, blank lines with spaces and tabs on them, CRLF, a byte-order
# mark, blank lines before the first and after the last paragraph
TRICKY = ("\ufeff\n  \nThe first paragraph is wrapped\r\nover three lines, as UD's\r\n"
          "text files are.\r\n \t \r\n\r\nA second one. It has two sentences.\n\t\n"
          "  An indented third\nparagraph.\n\n\n")


@pytest.fixture(scope="module")
def nlp():
    return spacy.load(RAW)


def records(path, unit, max_length=0, **kwargs):
    return list(read_records(path, "text", None, max_length, text_unit=unit, **kwargs))


def test_text_units_cut_wrapped_lines_blank_lines_crlf_and_a_bom(tmp_path):
    assert paragraphs(TRICKY) == [
        "The first paragraph is wrapped\nover three lines, as UD's\ntext files are.",
        "A second one. It has two sentences.", "  An indented third\nparagraph."]
    assert text_units(TRICKY, "line")[1:4] == [
        "over three lines, as UD's", "text files are.", "A second one. It has two sentences."]
    (whole,) = text_units(TRICKY, "file")
    assert whole.startswith("The first") and whole.endswith("paragraph.")
    assert "are.\n \t \n\nA second" in whole
    with pytest.raises(ValueError, match="text unit must be one of paragraph, line, file, got"):
        text_units(TRICKY, "sentence")
    source = tmp_path / "tricky.txt"
    source.write_bytes(TRICKY.encode("utf8"))
    data = source.read_bytes()
    for unit, lines in (("paragraph", [(3, 5), (8, 8), (10, 11)]),
                        ("line", [(3, 3), (4, 4), (5, 5), (8, 8), (10, 10), (11, 11)]),
                        ("file", [(3, 11)])):
        found = records(source, unit)
        # the streamed file gives the Python call's docs, with their first and last
        # lines and the bytes they were read from
        assert [r.text for r in found] == text_units(TRICKY, unit)
        assert [(r.line, r.last) for r in found] == lines
        assert [data[r.start:r.end].decode("utf8").replace("\r", "").strip("\n")
                for r in found] == [r.text for r in found]


def test_paragraph_tasks_read_again_give_the_plan_s_chunks(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    paragraphs_ = [TEXTS[i] + "\r\n" + TEXTS[i + 1] for i in range(0, 40, 2)]
    paragraphs_[3] = "fine first line\r\nthen a bad \xff byte"
    paragraphs_[7] = "x" * 300 + "\r\n" + "y" * 300  # over --max-length 500: two pieces
    text = "\r\n \t\r\n".join(p.replace("\xff", "\udcff") for p in paragraphs_)
    (folder / "a.txt").write_bytes(b"\xef\xbb\xbf"
                                   + text.encode("utf8", errors="surrogateescape"))
    (folder / "b.txt").write_text("\n\n".join(TEXTS[:5]), encoding="utf8")
    for unit, docs in (("paragraph", 20 + 5), ("line", 39 + 5), ("file", 1)):
        summary, errors = Summary(), []
        chunks = list(plan_chunks(folder, tmp_path / "out", None, in_format=None,
                                  out_format="spacy", shard_size=4, max_length=500,
                                  on_error="skip", force=False, summary=summary, errors=errors,
                                  text_unit=unit))
        assert sum(len(c.records) for c in chunks) == docs
        for chunk, task in zip(chunks, chunk_tasks(iter(chunks))):
            assert task.text_unit == unit
            again = [r for r in read_records(Path(task.path), task.fmt, None, 500, task.span,
                                             task.text_unit) if isinstance(r, Record)]
            assert [(r.line, r.last, r.text) for r in again] == \
                [(r.line, r.last, r.text) for r in chunk.records]
        if unit == "paragraph":  # each error names the file and the line it is on
            assert [(e["line"], e["error"].split(": ", 1)[1]) for e in errors] == [
                (11, "not UTF-8 (byte 0xff at column 12).")]
            assert all("a.txt, line " in e["error"] for e in errors)
            cut = [(r.line, r.last, r.text, r.piece) for c in chunks for r in c.records
                   if r.piece]
            assert cut == [(22, 22, "x" * 300 + "\n", 1), (23, 23, "y" * 300, 2)]
            assert summary.cut == 1
        if unit == "file":  # the bad byte makes a.txt one error
            assert [e["line"] for e in errors] == [11]


def test_a_too_long_paragraph_is_cut_into_pieces_as_it_is_read(tmp_path):
    source = tmp_path / "long.txt"
    line = "a wrapped line of a paragraph that never ends, " * 2
    source.write_text("short one\n\n" + (line + "\n") * 100_000 + "\nshort two\n",
                      encoding="utf8")  # ~10 MB
    paragraph = hashlib.sha256("\n".join([line] * 100_000).encode("utf8"))
    tracemalloc.start()
    try:  # the pieces looked at one at a time: never more than a piece or two held
        joined, found = hashlib.sha256(), []
        for record in read_records(source, "text", None, 100_000, text_unit="paragraph"):
            found.append((record.line, record.last, len(record.text), record.piece))
            if record.piece:
                joined.update(record.text.encode("utf8"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found[0] == (1, 1, 9, 0) and found[-1] == (100_004, 100_004, 9, 0)
    pieces = found[1:-1]
    assert [p[3] for p in pieces] == list(range(1, len(pieces) + 1)) and len(pieces) == 96
    assert all(length <= 100_000 for _, _, length, _ in pieces)
    assert pieces[0][0] == 3 and pieces[-1][1] == 100_002
    assert all(b[0] == a[1] + 1 for a, b in zip(pieces, pieces[1:]))  # cut at line breaks
    assert joined.hexdigest() == paragraph.hexdigest()
    assert peak < 1_000_000, peak
    # the file unit: cut the same way, and read whole without a limit
    file_pieces = records(source, "file", max_length=100_000)
    (whole,) = records(source, "file")
    assert len(whole.text) == source.stat().st_size - 1
    assert len(file_pieces) == 96 and "".join(r.text for r in file_pieces) == whole.text


def test_text_unit_line_and_file_and_the_manifest_sees_the_unit(tmp_path):
    model = spacy.load(MODEL)
    source = tmp_path / "corpus.txt"
    source.write_text("\n\n".join(f"{a}\n{b}" for a, b in zip(TEXTS[:20:2], TEXTS[1:20:2])),
                      encoding="utf8")
    for unit, docs in (("paragraph", 10), ("line", 20), ("file", 1)):
        out = tmp_path / unit
        summary = parse_corpus(model, source, out, text_unit=unit, out_format="jsonl",
                               progress=False)
        assert summary.docs == docs
        assert json.loads((out / "manifest.json").read_text())["options"]["text_unit"] == unit
    with pytest.raises(PlanChangedError, match="--text-unit was paragraph, now line"):
        parse_corpus(model, source, tmp_path / "paragraph", text_unit="line",
                     out_format="jsonl", progress=False)
    with pytest.raises(PlanChangedError, match=r"the input mode \(--presegmented, "
                                               r"--pretokenized\) was raw, now sentences"):
        parse_corpus(model, source, tmp_path / "paragraph", input_mode="sentences",
                     out_format="jsonl", progress=False)
    # a manifest written before these options: one doc a line, raw text
    manifest = tmp_path / "line" / "manifest.json"
    old = json.loads(manifest.read_text())
    for key in ("text_unit", "input_mode"):
        del old["options"][key]
    manifest.write_text(json.dumps(old))
    assert parse_corpus(model, source, tmp_path / "line", text_unit="line", out_format="jsonl",
                        progress=False).skipped == 1
    result = CliRunner().invoke(app, ["parse", str(MODEL), str(source), str(tmp_path / "line"),
                                      "--no-progress", "--text-unit", "lines"])
    assert result.exit_code == 1 and result.output == (
        "spacy-elstm parse: --text-unit must be one of paragraph, line, file, got 'lines'.\n")


# the senter of the tiny pipeline splits inside lines ("5" and "." start sentences)
# and does not split at a single line break
LINES = ["It costs $5. Do n't go!!!", "no punctuation in this one", "  Line three.",
         "It ends here"]


def test_presegmented_gives_one_sentence_a_line_whatever_the_senter_does(nlp):
    text = "\n".join(LINES)
    lines = [line.strip() for line in LINES]
    raw = nlp(text)
    assert [s.text.strip() for s in raw.sents] != lines
    doc = make_doc(nlp, text, "sentences")
    assert all(t.is_sent_start is not None for t in doc)  # so elstm_senter keeps them
    for parsed in (nlp(doc), next(nlp.pipe([make_doc(nlp, text, "sentences")]))):
        assert [s.text.strip() for s in parsed.sents] == lines
        assert all(t.head.sent == t.sent for t in parsed)  # the parser kept them
    assert [t.text for t in doc] == [t.text for t in raw]  # the same tokenizer
    with pytest.raises(ValueError, match="mode must be one of raw, sentences, pretokenized, "
                                         "got 'lines'"):
        make_doc(nlp, text, "lines")


@pytest.mark.parametrize("mode", ["raw", "sentences", "pretokenized"])
def test_make_docs_gives_make_doc_of_each_text_in_order(nlp, mode):
    texts = [TRICKY, "One line.\nAnother line", "", "Ask Mr. Bush. He knows.", "x"] * 3
    made = list(make_docs(nlp, iter(texts), mode, batch_size=4))
    assert [[(t.text, t.is_sent_start) for t in doc] for doc in made] == \
        [[(t.text, t.is_sent_start) for t in make_doc(nlp, text, mode)] for text in texts]
    if mode == "pretokenized":  # no tokenizer, and no nlp.max_length
        return
    nlp.max_length = 20
    try:
        with pytest.raises(ValueError, match="E088"):
            list(make_docs(nlp, ["short", "a text longer than twenty characters"], mode))
    finally:
        nlp.max_length = 1_000_000


def test_pretokenized_words_are_the_space_separated_tokens(nlp):
    text = "It costs $5. Do n't\tgo !\n\nNo tokenizer  here"
    doc = nlp(make_doc(nlp, text, "pretokenized"))
    assert [t.text for t in doc] == text.split()
    assert [s.text for s in doc.sents] == ["It costs $5. Do n't go !", "No tokenizer here"]
    assert nlp("It costs $5.")[2].text == "$"  # what the tokenizer would have done
    assert len(make_doc(nlp, " \n ", "pretokenized")) == 0


@pytest.mark.parametrize("flags,mode", [([], "raw"), (["--presegmented"], "sentences"),
                                        (["--pretokenized"], "pretokenized"),
                                        (["--presegmented", "--pretokenized"], "pretokenized")])
def test_the_command_line_gives_what_the_python_calls_give(nlp, tmp_path, flags, mode):
    text = "\n".join(LINES[:2]) + "\r\n\r\n" + "\n".join(LINES[2:]) + "\n"
    source = tmp_path / "in.txt"
    source.write_bytes(text.encode("utf8"))
    result = CliRunner().invoke(app, ["parse", str(RAW), str(source), str(tmp_path / "out"),
                                      "--format", "conllu", "--no-progress", *flags])
    assert result.exit_code == 0, result.output
    (shard,) = (tmp_path / "out").glob("*.conllu")
    expected = "".join(doc_to_conllu(nlp(make_doc(nlp, paragraph, mode)), doc_id="doc")[0]
                       for paragraph in paragraphs(text))  # (ids aside, as parse writes it)

    def rows(conllu):
        return [line for line in conllu.splitlines() if not line.startswith("# ")]

    assert rows(shard.read_text(encoding="utf8")) == rows(expected)
    sentences = [line[len("# text = "):] for line in shard.read_text(encoding="utf8").splitlines()
                 if line.startswith("# text = ")]
    assert (sentences == [line.strip() for line in LINES]) == (mode != "raw")


def test_presegmented_jsonl_texts_in_one_process_and_in_forked_workers(nlp, tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"id": i, "text": "\n".join(LINES[i:])}) + "\n"
                              for i in range(4)), encoding="utf8")
    for n_process in (1, 2):
        out = tmp_path / f"out{n_process}"
        parse_corpus(nlp, source, out, input_mode="sentences", out_format="jsonl",
                     shard_size=2, n_process=n_process, progress=False)
        shards = sorted(out.glob("*.jsonl"))
        assert [len(json.loads(line)["sents"]) for shard in shards
                for line in shard.read_text().splitlines()] == [4, 3, 2, 1]
