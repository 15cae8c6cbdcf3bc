"""`spacy-elstm parse`: the three input formats, the three shard formats, resume,
bad input with line numbers, --max-length, n_process=2 equal to one process, the
tasks a Ray worker reads, --backend ray without Ray, and the CoNLL-U output
under the official scorer. The Ray backend itself: tests/test_parse_ray.py."""
import json
import os
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc, DocBin
from typer.testing import CliRunner

from spacy_elstm.cli.app import app
from spacy_elstm.parsing.local import parse_corpus
from spacy_elstm.parsing.records import CorpusInputError
from spacy_elstm.treebanks.scoring import SCORER_ASSET, SCORER_ENV
from spacy_elstm.treebanks.conllu_reader import read_conllu
from parse_utils import MODEL, TEXTS


@pytest.fixture(scope="module")
def nlp():
    return spacy.load(MODEL)


def annotations(doc):
    return [(t.text, t.whitespace_, t.tag_, t.head.i, t.dep_, t.is_sent_start) for t in doc]


def run(nlp, source, out, **kwargs):
    return parse_corpus(nlp, source, out, progress=False, **kwargs)


def shards(out, suffix):
    return sorted(p for p in Path(out).iterdir() if p.suffix == suffix)


def test_text_to_docbin_equals_pipe_and_resumes(nlp, tmp_path):
    source = tmp_path / "corpus.txt"
    source.write_text("\n\n".join(TEXTS) + "\n", encoding="utf8")
    out = tmp_path / "out"
    summary = run(nlp, source, out, shard_size=100)
    assert (summary.docs, summary.written, summary.skipped, summary.failures) == (240, 3, 0, 0)
    files = shards(out, ".spacy")
    assert len(files) == 3
    docs = [d for f in files for d in DocBin().from_disk(f).get_docs(nlp.vocab)]
    assert [annotations(d) for d in docs] == [annotations(d) for d in nlp.pipe(TEXTS)]
    # resume: nothing to redo; one shard deleted: only it is redone; --force: all
    stamps = {f: f.stat().st_mtime_ns for f in files}
    summary = run(nlp, source, out, shard_size=100)
    assert (summary.docs, summary.written, summary.skipped) == (0, 0, 3)
    assert {f: f.stat().st_mtime_ns for f in files} == stamps
    files[1].unlink()
    summary = run(nlp, source, out, shard_size=100)
    assert (summary.docs, summary.written, summary.skipped) == (100, 1, 2)
    assert files[1].exists() and files[0].stat().st_mtime_ns == stamps[files[0]]
    summary = run(nlp, source, out, shard_size=100, force=True)
    assert (summary.docs, summary.written, summary.skipped) == (240, 3, 0)
    assert not list(out.glob(".*.tmp"))


def test_jsonl_carries_fields_to_user_data_and_jsonl(nlp, tmp_path):
    source = tmp_path / "corpus.jsonl"
    source.write_text("".join(json.dumps({"id": i, "text": t, "meta": {"n": i}}) + "\n"
                              for i, t in enumerate(TEXTS[:50])), encoding="utf8")
    run(nlp, source, tmp_path / "bin", shard_size=20)
    docs = [d for f in shards(tmp_path / "bin", ".spacy")
            for d in DocBin().from_disk(f).get_docs(nlp.vocab)]
    assert [d.user_data["id"] for d in docs] == list(range(50))
    assert docs[3].user_data["meta"] == {"n": 3}
    run(nlp, source, tmp_path / "json", out_format="jsonl", shard_size=20)
    records = [json.loads(line) for f in shards(tmp_path / "json", ".jsonl")
               for line in f.read_text(encoding="utf8").splitlines()]
    expected = list(nlp.pipe(TEXTS[:50]))
    assert [r["id"] for r in records] == list(range(50))
    assert records[7]["text"] == TEXTS[7]
    assert [r["heads"] for r in records] == [[t.head.i for t in d] for d in expected]
    assert [r["deps"] for r in records] == [[t.dep_ for t in d] for d in expected]
    run(nlp, source, tmp_path / "conllu", out_format="conllu", shard_size=20)
    text = "".join(f.read_text(encoding="utf8") for f in shards(tmp_path / "conllu", ".conllu"))
    assert text.startswith("# newdoc id = 0\n# sent_id = 0-1\n# text = ")
    assert text.count("# newdoc id = ") == 50 and "# newdoc id = 49\n" in text
    (tmp_path / "corpus.txt").write_text("\n\n".join(TEXTS[:30]), encoding="utf8")
    run(nlp, tmp_path / "corpus.txt", tmp_path / "plain", out_format="conllu", shard_size=20)
    ids = [line for f in shards(tmp_path / "plain", ".conllu")
           for line in f.read_text(encoding="utf8").splitlines() if line.startswith("# sent_id")]
    assert len(ids) >= 30 and len(set(ids)) == len(ids)  # unique across docs and shards


def test_conllu_in_keeps_gold_words_and_conllu_out_has_the_parse(nlp, tmp_path):
    sentences = [["Dogs", "saw", "cats", "."], ["The", "house", "is", "big", "!"]] * 10
    lines = []
    for words in sentences:
        lines.append(f"# text = {' '.join(words)}")
        lines += [f"{i + 1}\t{w}\t_\tX\t_\t_\t{0 if i == 0 else 1}\t{'root' if i == 0 else 'dep'}"
                  "\t_\t_" for i, w in enumerate(words)]
        lines.append("")
    source = tmp_path / "gold.conllu"
    source.write_text("\n".join(lines) + "\n", encoding="utf8")
    out = tmp_path / "out"
    run(nlp, source, out, out_format="conllu", shard_size=8)
    files = shards(out, ".conllu")
    assert len(files) == 3
    parsed = [d for f in files for d in read_conllu(f)]  # valid CoNLL-U, one tree a sentence
    assert [[t.text for t in d] for d in parsed] == sentences
    expected = [nlp(Doc(nlp.vocab, words=w, sent_starts=[True] + [False] * (len(w) - 1)))
                for w in sentences]
    assert [[t.dep_ for t in d] for d in parsed] == [[t.dep_ for t in d] for d in expected]
    assert [[t.head.i for t in d] for d in parsed] == [[t.head.i for t in d] for d in expected]


def test_bad_lines_named_in_errors_file_or_fail(nlp, tmp_path):
    source = tmp_path / "bad.jsonl"
    source.write_bytes(b'{"text": "fine one"}\n{"text": \n{"id": 3}\n'
                       b'{"text": "bad \xff byte"}\n{"text": "' + b"x" * 50 + b'"}\n'
                       b'{"text": "fine two"}\n')
    out = tmp_path / "out"
    summary = run(nlp, source, out, max_length=40)
    assert (summary.docs, summary.failures) == (2, 4)
    errors = [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]
    assert [e["line"] for e in errors] == [2, 3, 4, 5]
    assert all(f"bad.jsonl, line {e['line']}:" in e["error"] for e in errors)
    assert "invalid JSON" in errors[0]["error"] and "'text'" in errors[1]["error"]
    assert "UTF-8" in errors[2]["error"] and "--max-length 40" in errors[3]["error"]
    with pytest.raises(CorpusInputError, match=r"bad.jsonl, line 2: invalid JSON"):
        run(nlp, source, tmp_path / "fail", on_error="fail")
    # nothing half-written: the manifest, and the error listed
    assert sorted(p.name for p in (tmp_path / "fail").iterdir()) == ["errors.jsonl",
                                                                      "manifest.json"]


def test_invalid_conllu_sentence_skipped_with_its_line(nlp, tmp_path):
    source = tmp_path / "bad.conllu"
    source.write_text("1\tA\t_\tX\t_\t_\t0\troot\t_\t_\n\n1\tB\t_\tX\t_\t_\t1\troot\t_\t_\n\n"
                      "1\tC\t_\tX\t_\t_\t0\troot\t_\t_\n", encoding="utf8")
    summary = run(nlp, source, tmp_path / "out")
    assert (summary.docs, summary.failures) == (2, 1)
    (error,) = [json.loads(line) for line in (tmp_path / "out" / "errors.jsonl").open()]
    assert error["line"] == 3 and "line 3: word 1 is its own head" in error["error"]


def test_two_processes_equal_one(nlp, tmp_path):
    source = tmp_path / "corpus.txt"
    source.write_text("\n\n".join(TEXTS[:120]) + "\n", encoding="utf8")
    run(nlp, source, tmp_path / "one", shard_size=50, batch_size=8)
    run(nlp, source, tmp_path / "two", shard_size=50, batch_size=8, n_process=2)
    one, two = shards(tmp_path / "one", ".spacy"), shards(tmp_path / "two", ".spacy")
    assert [f.name for f in one] == [f.name for f in two]
    for a, b in zip(one, two):
        assert ([annotations(d) for d in DocBin().from_disk(a).get_docs(nlp.vocab)]
                == [annotations(d) for d in DocBin().from_disk(b).get_docs(nlp.vocab)])


def test_cli_parse_folder_and_fail_exit(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.txt").write_text("\n\n".join(TEXTS[:5]) + "\n", encoding="utf8")
    (folder / "b.jsonl").write_text('{"text": "one"}\nnot json\n', encoding="utf8")
    runner = CliRunner()
    result = runner.invoke(app, ["parse", str(MODEL), str(folder), str(tmp_path / "out"),
                                 "--format", "jsonl", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "6 docs" in result.output and "1 failures" in result.output
    result = runner.invoke(app, ["parse", str(MODEL), str(folder / "b.jsonl"),
                                 str(tmp_path / "fail"), "--on-error", "fail", "--no-progress"])
    assert result.exit_code == 1
    assert "b.jsonl, line 2: invalid JSON" in result.output


def test_killed_run_restarted_equals_one_run_and_reparses_no_finished_shard(nlp, tmp_path,
                                                                            monkeypatch):
    import spacy_elstm.parsing.shards as shards_module

    source = tmp_path / "corpus.txt"
    source.write_text("\n\n".join(TEXTS) + "\n", encoding="utf8")
    run(nlp, source, tmp_path / "whole", shard_size=60)
    write, calls = shards_module.write_atomically, []

    def killed_on_third(path, data):
        calls.append(path)
        if len(calls) == 3:
            raise KeyboardInterrupt
        write(path, data)

    monkeypatch.setattr(shards_module, "write_atomically", killed_on_third)
    with pytest.raises(KeyboardInterrupt):
        run(nlp, source, tmp_path / "out", shard_size=60)
    monkeypatch.setattr(shards_module, "write_atomically", write)
    assert len(shards(tmp_path / "out", ".spacy")) == 2
    summary = run(nlp, source, tmp_path / "out", shard_size=60)
    assert (summary.docs, summary.written, summary.skipped) == (120, 2, 2)
    whole, out = shards(tmp_path / "whole", ".spacy"), shards(tmp_path / "out", ".spacy")
    assert [f.name for f in whole] == [f.name for f in out]
    assert [f.read_bytes() for f in whole] == [f.read_bytes() for f in out]


# -- tasks: a chunk read again from its byte range, as a Ray worker reads it ------------------


def test_tasks_read_again_give_the_plan_s_chunks(nlp, tmp_path):
    """BOM, CRLF, blank and bad lines inside a chunk, several files and a
    CoNLL-U file: each task's byte range reads back exactly its chunk's docs."""
    from spacy_elstm.parsing.plan import chunk_tasks, plan_chunks
    from spacy_elstm.parsing.records import Record, read_records
    from spacy_elstm.parsing.summary import Summary

    folder = tmp_path / "in"
    folder.mkdir()
    lines = [json.dumps({"text": t, "n": i}) for i, t in enumerate(TEXTS[:30])]
    lines[4], lines[11] = "not json", ""
    (folder / "a.jsonl").write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode("utf8"))
    (folder / "b.txt").write_text("\n\n".join(TEXTS[:7]), encoding="utf8")  # no final newline
    blocks = ["# text = A b\n1\tA\t_\tX\t_\t_\t0\troot\t_\t_\n2\tb\t_\tX\t_\t_\t1\tdep\t_\t_",
              "1\tC\t_\tX\t_\t_\t1\troot\t_\t_"] * 5  # every other sentence is bad
    (folder / "c.conllu").write_text("\n\n".join(blocks) + "\n", encoding="utf8")
    summary, errors = Summary(), []
    chunks = list(plan_chunks(folder, tmp_path / "out", nlp.vocab, in_format=None,
                              out_format="spacy", shard_size=4, max_length=0, on_error="skip",
                              force=False, summary=summary, errors=errors))
    tasks = list(chunk_tasks(iter(chunks)))
    assert summary.failures == 6 and len(tasks) == len(chunks) == 7 + 2 + 2
    for chunk, task in zip(chunks, tasks):
        assert Path(task.shard) == chunk.shard.resolve() and task.docs == len(chunk.records)
        again = [r for r in read_records(Path(task.path), task.fmt, nlp.vocab, 0, task.span,
                                         task.text_unit) if isinstance(r, Record)]
        assert [(r.line, r.text, r.extra, r.doc and [t.text for t in r.doc]) for r in again] == \
            [(r.line, r.text, r.extra, r.doc and [t.text for t in r.doc]) for r in chunk.records]


def test_parse_task_writes_the_local_backend_s_shard(nlp, tmp_path):
    from spacy_elstm.parsing.plan import chunk_tasks, plan_chunks
    from spacy_elstm.parsing.run import parse_task
    from spacy_elstm.parsing.summary import Summary

    source = tmp_path / "corpus.jsonl"
    source.write_text("".join(json.dumps({"id": i, "text": t}) + "\n"
                              for i, t in enumerate(TEXTS[:45])), encoding="utf8")
    run(nlp, source, tmp_path / "local", shard_size=20, out_format="jsonl")
    (tmp_path / "tasks").mkdir()
    chunks = plan_chunks(source, tmp_path / "tasks", nlp.vocab, in_format=None,
                         out_format="jsonl", shard_size=20, max_length=0, on_error="skip",
                         force=False, summary=Summary(), errors=[])
    results = [parse_task(nlp, task, out_format="jsonl", batch_size=8, max_length=0)
               for task in chunk_tasks(chunks)]
    assert [r["docs"] for r in results] == [20, 20, 5] and all(r["peak_rss"] > 0 for r in results)
    local, tasks = shards(tmp_path / "local", ".jsonl"), shards(tmp_path / "tasks", ".jsonl")
    assert [f.name for f in local] == [f.name for f in tasks] == [r["shard"] for r in results]
    assert [f.read_bytes() for f in local] == [f.read_bytes() for f in tasks]


def test_backend_ray_without_ray_names_the_extra(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    source = tmp_path / "corpus.txt"
    source.write_text("one line\n", encoding="utf8")
    result = CliRunner().invoke(app, ["parse", str(MODEL), str(source), str(tmp_path / "out"),
                                      "--backend", "ray", "--no-progress"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        'spacy-elstm parse: --backend ray needs Ray Data, not installed: '
        'pip install "spacy-elstm[cluster]"']
    assert not (tmp_path / "out").exists()


def test_backend_and_address_are_checked_before_loading(tmp_path):
    source = tmp_path / "corpus.txt"
    source.write_text("one line\n", encoding="utf8")
    runner = CliRunner()
    result = runner.invoke(app, ["parse", str(MODEL), str(source), str(tmp_path / "out"),
                                 "--backend", "spark"])
    assert result.exit_code == 1 and "--backend must be local or ray, got 'spark'" in result.output
    result = runner.invoke(app, ["parse", str(MODEL), str(source), str(tmp_path / "out"),
                                 "--address", "auto"])
    assert result.exit_code == 1 and "--address goes with --backend ray" in result.output


# -- the CoNLL-U output and the official scorer ----------------------------------------------

SCORER = Path(os.environ.get(SCORER_ENV) or Path(__file__).resolve().parent.parent / SCORER_ASSET)
DEV = Path(__file__).resolve().parent.parent / "assets" / "ud-ewt-sample" / "dev.conllu"


@pytest.mark.skipif(not SCORER.is_file(), reason=f"no CoNLL 2018 scorer at {SCORER}: run "
                    f"`spacy project assets` or set {SCORER_ENV} to a copy of conll18_ud_eval.py")
def test_conllu_output_scores_100_against_itself_with_the_official_script(nlp, tmp_path):
    from spacy_elstm.treebanks.scoring import load_scorer, official_scores

    gold = tmp_path / "dev.conllu"
    gold.write_text("\n\n".join(DEV.read_text(encoding="utf8").split("\n\n")[:40]) + "\n\n",
                    encoding="utf8")
    run(nlp, gold, tmp_path / "out", out_format="conllu", shard_size=15)
    system = tmp_path / "parsed.conllu"
    system.write_bytes(b"".join(f.read_bytes() for f in shards(tmp_path / "out", ".conllu")))
    scorer = load_scorer(SCORER)
    itself = official_scores(scorer, system, system)
    assert {m: itself[m].f1 for m in ("UPOS", "UAS", "LAS")} == {"UPOS": 1.0, "UAS": 1.0,
                                                                   "LAS": 1.0}
    against_gold = official_scores(scorer, gold, system)  # the gold words and sentences kept
    assert {m: against_gold[m].f1 for m in ("Words", "Sentences")} == {"Words": 1.0,
                                                                        "Sentences": 1.0}


def test_the_parse_benchmark_measures_the_machines_parallel_ceiling():
    from spacy_elstm.benchmarks.parse import parallel_ceiling

    ceiling = parallel_ceiling(2, n_steps=20_000)
    assert set(ceiling) == {"one_seconds", "together_seconds", "speedup"}
    assert ceiling["one_seconds"] > 0 and ceiling["together_seconds"] > 0
    assert ceiling["speedup"] == pytest.approx(2 * ceiling["one_seconds"]
                                               / ceiling["together_seconds"])
