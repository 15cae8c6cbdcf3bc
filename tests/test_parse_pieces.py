"""`spacy-elstm parse` with a text longer than --max-length (text/pieces.py,
docs/parsing.md#texts-longer-than---max-length): cut into pieces at line breaks
or whitespace, each parsed as its own doc, in order, the pieces joined giving
back the text; a word longer than the limit still an error naming the file and
the unit; the cut said once a run; the pieces read again from a task's span as
a worker (forked or Ray) reads them."""
import json
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
import spacy
from typer.testing import CliRunner

from spacy_elstm.cli.app import app
from spacy_elstm.parsing.local import parse_corpus
from spacy_elstm.parsing.plan import chunk_tasks, plan_chunks
from spacy_elstm.parsing.records import Record, read_records
from spacy_elstm.parsing.run import parse_task
from spacy_elstm.parsing.summary import Summary
from spacy_elstm.text.pieces import NoCutError, pieces
from spacy_elstm.treebanks.conllu_reader import read_conllu
from parse_utils import MODEL, TEXTS

LIMIT = 200
# one paragraph of ~1,600 characters, hard-wrapped at 60 columns, no blank line
WRAPPED = textwrap.fill(" ".join(TEXTS[:60]), 60)
# one line of ~1,500 characters: runs of spaces, a tab, words of several bytes
LONG_LINE = "  ".join(f"{t} naïve café\tdéjà vu" if i % 7 == 0 else t
                      for i, t in enumerate(TEXTS[60:130]))


@pytest.fixture(scope="module")
def nlp():
    return spacy.load(MODEL)


def jsonl_docs(out):
    return [json.loads(line) for f in sorted(Path(out).glob("*.jsonl")) if f.name != "errors.jsonl"
            for line in f.read_text(encoding="utf8").splitlines()]


def errors_of(out):
    return [json.loads(line) for line in (Path(out) / "errors.jsonl").read_text().splitlines()]


def cut_inside_a_word(texts):
    return [k for k, (a, b) in enumerate(zip(texts, texts[1:]))
            if not a[-1].isspace() or b[0].isspace()]


def test_pieces_end_after_line_breaks_else_whitespace_and_join_to_the_text():
    wrapped = pieces(WRAPPED, LIMIT)
    assert "".join(wrapped) == WRAPPED and max(map(len, wrapped)) <= LIMIT
    assert all(p.endswith("\n") for p in wrapped[:-1])  # each at the last line break:
    assert all(len(a) + (b.find("\n") + 1 or len(b)) > LIMIT  # one more line is too long
               for a, b in zip(wrapped, wrapped[1:]))
    line = pieces(LONG_LINE, LIMIT)
    assert "".join(line) == LONG_LINE and max(map(len, line)) <= LIMIT
    assert len(line) > len(LONG_LINE) // LIMIT and not cut_inside_a_word(line)
    assert pieces("short", LIMIT) == ["short"]
    assert pieces("one two\nthree four", 12, "sentences") == ["one two\n", "three four"]
    with pytest.raises(NoCutError, match=r"a word of 13 characters is longer than "
                                         r"--max-length 12 \(a text is cut") as caught:
        pieces("fine words " + "w" * 13 + " more", 12)
    assert caught.value.position == 11
    with pytest.raises(NoCutError, match="a line of 17 characters is longer than --max-length "
                                         r"12 \(one sentence a line"):
        pieces("a line\none line too long\nshort", 12, "pretokenized")


def test_a_hard_wrapped_paragraph_over_the_limit_is_parsed_as_pieces(nlp, tmp_path):
    source = tmp_path / "wrapped.txt"
    source.write_text(f"Short one.\n\n{WRAPPED}\n\nShort two.\n", encoding="utf8")
    summary = parse_corpus(nlp, source, tmp_path / "json", max_length=LIMIT, shard_size=4,
                           out_format="jsonl", progress=False)
    docs = jsonl_docs(tmp_path / "json")
    middle = docs[1:-1]
    assert (docs[0]["text"], docs[-1]["text"]) == ("Short one.", "Short two.")
    assert "piece" not in docs[0] and "piece" not in docs[-1]
    assert [d["piece"] for d in middle] == list(range(1, len(middle) + 1))
    assert "".join(d["text"] for d in middle) == WRAPPED
    assert len(middle) == len(pieces(WRAPPED, LIMIT))
    assert all(len(d["text"]) <= LIMIT for d in middle)
    assert (summary.docs, summary.cut, summary.failures) == (len(docs), 1, 0)
    expected = list(nlp.pipe(d["text"] for d in middle))  # each piece parsed as a doc
    assert [d["heads"] for d in middle] == [[t.head.i for t in e] for e in expected]
    assert [d["sents"] for d in middle] == [[[s.start, s.end] for s in e.sents] for e in expected]
    parse_corpus(nlp, source, tmp_path / "conllu", max_length=LIMIT, shard_size=4,
                 out_format="conllu", progress=False)
    conllu = tmp_path / "all.conllu"
    conllu.write_text("".join(f.read_text(encoding="utf8")
                              for f in sorted((tmp_path / "conllu").glob("*.conllu"))),
                      encoding="utf8")
    assert len(read_conllu(conllu)) == sum(len(d["sents"]) for d in docs)  # valid CoNLL-U
    if shutil.which("udvalidate"):  # UD's validator, where installed (the test extra)
        result = subprocess.run(["udvalidate", "--lang", "en", "--level", "2", "--max-err", "0",
                                 str(conllu)], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
    ids = [line.split(" = ")[1] for line in conllu.read_text().splitlines()
           if line.startswith("# newdoc id")]
    assert len(ids) == len(docs) == len(set(ids))
    assert [i.rsplit("-", 1)[1] for i in ids[1:-1]] == [f"piece{d['piece']}" for d in middle]


def test_a_long_line_is_cut_at_whitespace_never_inside_a_word(nlp, tmp_path):
    source = tmp_path / "line.txt"
    source.write_bytes(("\ufeff" + LONG_LINE + "\r\nA second line.\r\n").encode("utf8"))
    summary = parse_corpus(nlp, source, tmp_path / "out", max_length=LIMIT, shard_size=3,
                           out_format="jsonl", text_unit="line", progress=False)
    texts = [d["text"] for d in jsonl_docs(tmp_path / "out")]
    assert texts[-1] == "A second line." and "".join(texts[:-1]) == LONG_LINE
    assert max(map(len, texts)) <= LIMIT and not cut_inside_a_word(texts[:-1])
    assert summary.cut == 1 and summary.docs == len(texts)


def test_a_word_longer_than_the_limit_fails_naming_the_file_and_the_unit(nlp, tmp_path):
    lines = WRAPPED.splitlines()
    lines[5] += " " + "x" * 250
    source = tmp_path / "long.txt"
    source.write_text("Short one.\n\n" + "\n".join(lines) + "\n\nShort two.\n", encoding="utf8")
    summary = parse_corpus(nlp, source, tmp_path / "out", max_length=LIMIT, out_format="jsonl",
                           progress=False)
    (error,) = errors_of(tmp_path / "out")
    assert error["line"] == 8
    assert error["error"] == (
        f"{source}, line 8: a word of 250 characters is longer than --max-length 200 (a text is "
        f"cut into pieces at line breaks or whitespace only); the text unit in lines "
        f"3-{len(lines) + 2} is left out from line 8 (its first 3 pieces are parsed).")
    docs = jsonl_docs(tmp_path / "out")  # the pieces before the word, up to the space before it
    assert [d["text"] for d in docs] == ["Short one.", "\n".join(lines[:3]) + "\n",
                                         "\n".join(lines[3:5]) + "\n", lines[5][:-250],
                                         "Short two."]
    assert (summary.docs, summary.failures, summary.cut) == (5, 1, 1)
    # a bad byte: the pieces before the piece it falls in are parsed, the rest of the unit not
    lines = WRAPPED.splitlines()
    source.write_bytes(("Short one.\n\n" + "\n".join(lines[:7])).encode() + b" \xff\n"
                       + "\n".join(lines[7:]).encode())
    found = list(read_records(source, "text", None, LIMIT))
    assert [getattr(r, "text", None) for r in found] == ["Short one.",
                                                        "\n".join(lines[:3]) + "\n", None]
    assert str(found[-1]) == (f"{source}, line 9: not UTF-8 (byte 0xff at "
                              f"column {len(lines[6]) + 2}).")
    record = tmp_path / "long.jsonl"
    record.write_text(json.dumps({"id": "a", "text": "fine " * 50 + "y" * 201}) + "\n")
    parse_corpus(nlp, record, tmp_path / "jsonl", max_length=LIMIT, progress=False)
    (error,) = errors_of(tmp_path / "jsonl")
    assert error["error"].startswith(f"{record}, line 1: 'text' at character 251: a word of "
                                     "201 characters is longer than --max-length 200")
    assert error["error"].endswith("; the record is left out.")


def test_jsonl_texts_are_cut_and_presegmented_text_at_line_breaks_only(nlp, tmp_path):
    source = tmp_path / "records.jsonl"
    source.write_text(json.dumps({"id": "long", "text": LONG_LINE, "n": 1}) + "\n"
                      + json.dumps({"id": "short", "text": "A short text."}) + "\n")
    summary = parse_corpus(nlp, source, tmp_path / "out", max_length=LIMIT, shard_size=4,
                           out_format="jsonl", progress=False)
    docs = jsonl_docs(tmp_path / "out")
    assert "".join(d["text"] for d in docs[:-1]) == LONG_LINE and summary.cut == 1
    assert all((d["id"], d["n"]) == ("long", 1) for d in docs[:-1])  # the record's fields kept
    assert [d.get("piece") for d in docs] == list(range(1, len(docs))) + [None]
    sentences = "\n".join(TEXTS[:40])  # one sentence a line, ~1,000 characters
    (tmp_path / "sentences.txt").write_text(sentences + "\n")
    parse_corpus(nlp, tmp_path / "sentences.txt", tmp_path / "seg", max_length=LIMIT,
                 out_format="jsonl", input_mode="sentences", progress=False)
    docs = jsonl_docs(tmp_path / "seg")
    assert "".join(d["text"] for d in docs) == sentences
    assert sum(len(d["sents"]) for d in docs) == 40  # no sentence cut


def test_the_cut_is_said_once_on_stderr(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.txt").write_text(f"{WRAPPED}\n\nShort.\n\n{WRAPPED}\n", encoding="utf8")
    (folder / "b.jsonl").write_text(json.dumps({"text": LONG_LINE}) + "\n", encoding="utf8")
    result = CliRunner().invoke(app, ["parse", str(MODEL), str(folder), str(tmp_path / "out"),
                                      "--max-length", str(LIMIT), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ("3 text units were longer than --max-length 200 and cut into "
                             "pieces at line breaks or whitespace (each piece a doc).\n")
    assert result.stdout.count("\n") == 1 and "0 failures" in result.stdout


@pytest.mark.parametrize("shard_size", [1, 2, 3])
def test_a_task_s_span_reads_again_the_plan_s_pieces(nlp, tmp_path, shard_size):
    """Chunks that start and end inside a unit cut into pieces (at line
    breaks, inside a line, after CRLF and a byte-order mark, in characters of
    several bytes) read back their own pieces, as forked and Ray workers read
    them, and their shards are the local backend's."""
    folder = tmp_path / "in"
    folder.mkdir()
    text = "\ufeff" + "\r\n".join(WRAPPED.splitlines()[:8]) + "\r\n \t\r\n" + LONG_LINE + "\n"
    (folder / "a.txt").write_bytes(text.encode("utf8"))
    (folder / "b.jsonl").write_text(json.dumps({"text": LONG_LINE}) + "\n" +
                                    json.dumps({"text": "short"}) + "\n", encoding="utf8")
    for unit in ("paragraph", "line", "file"):
        chunks = list(plan_chunks(folder, tmp_path / "out", nlp.vocab, in_format=None,
                                  out_format="jsonl", shard_size=shard_size, max_length=LIMIT,
                                  on_error="skip", force=False, summary=Summary(), errors=[],
                                  text_unit=unit))
        for chunk, task in zip(chunks, chunk_tasks(iter(chunks))):
            again = [r for r in read_records(Path(task.path), task.fmt, nlp.vocab, LIMIT,
                                             task.span, task.text_unit) if isinstance(r, Record)]
            assert again == chunk.records
            if task.fmt == "text":  # each piece knows its bytes (a unit's last, its newline)
                data = Path(task.path).read_bytes()
                assert all(data[r.start:r.end].decode("utf8").replace("\r", "") in
                           (r.text, r.text + "\n") for r in again)
    out = tmp_path / "local"
    parse_corpus(nlp, folder, out, max_length=LIMIT, shard_size=shard_size, out_format="jsonl",
                 progress=False)
    (tmp_path / "tasks").mkdir()
    chunks = plan_chunks(folder, tmp_path / "tasks", nlp.vocab, in_format=None,
                         out_format="jsonl", shard_size=shard_size, max_length=LIMIT,
                         on_error="skip", force=False, summary=Summary(), errors=[])
    for task in chunk_tasks(chunks):
        parse_task(nlp, task, out_format="jsonl", batch_size=8, max_length=LIMIT)
    local = sorted(out.glob("*.jsonl"))
    tasks = sorted((tmp_path / "tasks").glob("*.jsonl"))
    assert [f.name for f in local] == [f.name for f in tasks]
    assert [f.read_bytes() for f in local] == [f.read_bytes() for f in tasks]
