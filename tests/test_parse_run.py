"""`spacy-elstm parse` as a hostile user runs it: the run manifest (the same plan
resumes, another stops, --force starts over), shard names that do not depend on
the working folder, an output folder inside the input folder, streaming input,
exit status and failure summary, a damaged pipeline, an output folder that
cannot be written, and workers orphaned by `kill -9`."""
import json
import os
import shutil
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin
from spacy.vocab import Vocab
from typer.testing import CliRunner

from spacy_elstm.cli.app import app
from spacy_elstm.parsing.local import parse_corpus
from spacy_elstm.parsing.plan import chunk_tasks, plan_chunks
from spacy_elstm.parsing.records import CorpusInputError
from spacy_elstm.parsing.run import InputFailure
from spacy_elstm.parsing.summary import Summary
from spacy_elstm.parsing.records import read_records
from spacy_elstm.parsing.manifest import PlanChangedError
from parse_utils import MODEL, TEXTS


@pytest.fixture(scope="module")
def nlp():
    return spacy.load(MODEL)


def run(nlp, source, out, **kwargs):
    return parse_corpus(nlp, source, out, progress=False, **kwargs)


def shards(out, suffix=".spacy"):
    return sorted(p for p in Path(out).iterdir() if p.suffix == suffix)


def n_docs(out, vocab):
    return sum(len(DocBin().from_disk(f)) for f in shards(out))


def parse_cli(*args):
    return CliRunner().invoke(app, ["parse", *map(str, args), "--no-progress"])


def test_same_plan_resumes_another_plan_stops_force_starts_over(nlp, tmp_path):
    source = tmp_path / "corpus.txt"
    source.write_text("\n\n".join(TEXTS) + "\n", encoding="utf8")
    out = tmp_path / "out"
    assert run(nlp, source, out, shard_size=100).written == 3
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["inputs"][0]["path"] == "corpus.txt" and manifest["options"]["shard_size"] == 100
    assert run(nlp, source, out, shard_size=100).skipped == 3  # the same plan resumes
    with pytest.raises(PlanChangedError, match="--shard-size was 100, now 80"):
        run(nlp, source, out, shard_size=80)
    with pytest.raises(PlanChangedError, match="--format was spacy, now jsonl"):
        run(nlp, source, out, shard_size=100, out_format="jsonl")
    assert len(shards(out)) == 3 and n_docs(out, nlp.vocab) == 240
    summary = run(nlp, source, out, shard_size=80, force=True)  # old shards removed
    assert (summary.written, summary.skipped) == (3, 0) and n_docs(out, nlp.vocab) == 240
    summary = run(nlp, source, out, shard_size=60, force=True)
    assert summary.written == 4 and n_docs(out, nlp.vocab) == 240  # no duplicates
    source.write_text("\n\n".join(TEXTS[:200]) + "\n", encoding="utf8")  # an edited input
    with pytest.raises(PlanChangedError, match="input corpus.txt changed"):
        run(nlp, source, out, shard_size=60)
    other = tmp_path / "other-model"  # another pipeline
    shutil.copytree(MODEL, other)
    meta = json.loads((other / "meta.json").read_text())
    (other / "meta.json").write_text(json.dumps({**meta, "version": "9.9.9"}))
    source.write_text("\n\n".join(TEXTS) + "\n", encoding="utf8")
    assert run(nlp, source, out, shard_size=60).skipped == 4
    with pytest.raises(PlanChangedError, match="the pipeline changed"):
        run(spacy.load(other), source, out, shard_size=60)
    result = parse_cli(MODEL, source, out, "--shard-size", 50)  # the CLI: one line
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "--shard-size was 60, now 50" in result.output
    assert "--force" in result.output


def test_shards_without_a_manifest_are_never_mixed_with_a_new_run(nlp, tmp_path):
    source = tmp_path / "corpus.txt"
    source.write_text("\n\n".join(TEXTS[:50]) + "\n", encoding="utf8")
    out = tmp_path / "out"
    run(nlp, source, out, shard_size=20)
    (out / "manifest.json").unlink()  # as an older version left it
    with pytest.raises(PlanChangedError, match="3 shards and no manifest.json"):
        run(nlp, source, out, shard_size=20)


def test_shard_names_do_not_depend_on_the_working_folder(nlp, tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    (data / "dev.txt").write_text("\n\n".join(TEXTS[:50]) + "\n", encoding="utf8")
    out = tmp_path / "out"
    monkeypatch.chdir(tmp_path)
    assert run(nlp, "data/dev.txt", out, shard_size=20).written == 3
    monkeypatch.chdir(data)
    summary = run(nlp, "dev.txt", out, shard_size=20)
    assert (summary.written, summary.skipped) == (0, 3) and len(shards(out)) == 3
    monkeypatch.chdir(tmp_path)
    assert run(nlp, "data/*.txt", out, shard_size=20).skipped == 3  # a glob: the same names


def test_an_output_folder_inside_the_input_folder_is_never_input(nlp, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_text("".join(json.dumps({"text": t}) + "\n" for t in TEXTS[:30])
                                    + "not json\n", encoding="utf8")
    out = folder / "parsed"
    for _ in range(2):
        summary = run(nlp, folder, out, out_format="jsonl", shard_size=20)
        assert summary.failures == 1
    assert (summary.docs, summary.skipped) == (0, 2)
    assert len((out / "errors.jsonl").read_text().splitlines()) == 1  # does not grow
    lines = [line for f in shards(out, ".jsonl") if f.name != "errors.jsonl"
             for line in f.read_text().splitlines()]
    assert len(lines) == 30
    with pytest.raises(CorpusInputError, match="inside OUTPUT_DIR"):
        run(nlp, out / "errors.jsonl", out, out_format="jsonl")


def test_input_is_read_as_a_stream(tmp_path):
    """Memory for reading and planning stays at a chunk, whatever the file's size
    (one doc a line; a paragraph's memory: tests/test_input_modes.py)."""
    source = tmp_path / "big.txt"
    source.write_text("".join(f"line {i} of a file that is larger than a chunk\n"
                              for i in range(200_000)), encoding="utf8")  # ~10 MB
    (tmp_path / "out").mkdir()
    tracemalloc.start()
    try:
        assert sum(1 for _ in read_records(source, "text", None, text_unit="line")) == 200_000
        reading = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        tasks = list(chunk_tasks(plan_chunks(
            source, tmp_path / "out", Vocab(), in_format=None, out_format="spacy",
            shard_size=500, max_length=0, on_error="skip", force=False, summary=Summary(),
            errors=[], text_unit="line")))
        planning = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(tasks) == 400 and tasks[1].start == tasks[0].end
    assert reading < 1_000_000 and planning < 2_000_000, (reading, planning)


def test_fail_keeps_the_shards_before_the_bad_line_and_exits_1(nlp, tmp_path):
    source = tmp_path / "corpus.jsonl"
    lines = [json.dumps({"text": t}) for t in TEXTS] + ["{broken"]
    source.write_text("\n".join(lines) + "\n", encoding="utf8")
    for n_process in (1, 2):
        out = tmp_path / f"out{n_process}"
        with pytest.raises(InputFailure, match="line 241: invalid JSON") as caught:
            run(nlp, source, out, shard_size=100, batch_size=64, on_error="fail",
                n_process=n_process)
        assert len(shards(out)) == 2 and caught.value.summary.written == 2
    result = parse_cli(MODEL, source, tmp_path / "cli", "--on-error", "fail", "--shard-size", 100)
    assert result.exit_code == 1
    summary_line, error_line = result.output.strip().splitlines()
    assert "1 failures (listed in" in summary_line and "errors.jsonl" in summary_line
    assert "2 shards written" in summary_line
    assert error_line.startswith("spacy-elstm parse: ") and "line 241: invalid JSON" in error_line


def test_every_doc_failing_under_skip_exits_1(tmp_path):
    source = tmp_path / "bad.jsonl"
    source.write_text("not json\n{\"id\": 1}\n", encoding="utf8")
    result = parse_cli(MODEL, source, tmp_path / "out")
    assert result.exit_code == 1
    assert "2 failures (listed in" in result.output and "every doc failed" in result.output
    (tmp_path / "ok.jsonl").write_text('{"text": "fine"}\nnot json\n', encoding="utf8")
    result = parse_cli(MODEL, tmp_path / "ok.jsonl", tmp_path / "ok")
    assert result.exit_code == 0 and "1 failures (listed in" in result.output


def test_a_damaged_pipeline_is_named_in_one_line(tmp_path):
    source = tmp_path / "corpus.txt"
    source.write_text("one line\n", encoding="utf8")
    for damage in ("truncated", "garbage"):
        model = tmp_path / damage
        shutil.copytree(MODEL, model)
        weights = model / "parser" / "model"
        data = weights.read_bytes()
        weights.write_bytes(data[: len(data) // 2] if damage == "truncated"
                            else bytes(range(256)) * 64)
        result = parse_cli(model, source, tmp_path / f"out-{damage}")
        assert result.exit_code == 1
        assert result.output.count("\n") == 1, result.output
        assert f"{weights} (component parser) cannot be read" in result.output
        assert "copy the pipeline folder again" in result.output


def test_an_output_path_that_cannot_be_written_stops_before_any_work(tmp_path, monkeypatch):
    source = tmp_path / "corpus.txt"
    source.write_text("one line\n", encoding="utf8")
    (tmp_path / "a-file").write_text("")
    result = parse_cli(MODEL, source, tmp_path / "a-file")
    assert result.exit_code == 1
    assert result.output == (f"spacy-elstm parse: OUTPUT_DIR {tmp_path / 'a-file'} is a file: "
                             "give a folder (new or one this command wrote).\n")
    import spacy_elstm.parsing.pipelines as loading

    def no_loading(*args, **kwargs):
        raise AssertionError("the pipeline was loaded")

    monkeypatch.setattr(loading, "load_pipeline", no_loading)
    read_only = tmp_path / "read-only"
    read_only.mkdir()
    read_only.chmod(0o555)
    try:
        if os.access(read_only, os.W_OK) and os.geteuid() == 0:  # root writes anyway
            import spacy_elstm.parsing.manifest as manifest

            def refused(path, data):
                raise PermissionError(13, "Permission denied")

            monkeypatch.setattr(manifest, "write_atomically", refused)
        result = parse_cli(MODEL, source, read_only / "out")
    finally:
        read_only.chmod(0o755)
    assert result.exit_code == 1
    assert result.output.strip() == (f"spacy-elstm parse: OUTPUT_DIR {read_only / 'out'} cannot "
                                     "be written: Permission denied.")


def test_workers_exit_quietly_when_their_parent_is_killed(tmp_path):
    script = textwrap.dedent("""
        import multiprocessing, os, signal, sys, time
        from spacy_elstm.parsing.processes import exit_with_parent

        def slow(x):
            time.sleep(2)
            return x

        if __name__ == "__main__":
            pool = multiprocessing.get_context("fork").Pool(
                2, initializer=exit_with_parent, initargs=(os.getpid(), 0.1))
            pool.map_async(slow, range(4))
            time.sleep(0.5)
            print(" ".join(str(p.pid) for p in pool._pool), flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
    """)
    root = str(Path(__file__).resolve().parent.parent)  # this checkout's spacy_elstm
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=60, cwd=tmp_path, env=env)
    assert result.returncode == -9
    assert len(result.stdout.split()) == 2
    assert result.stderr == ""  # no BrokenPipeError traceback from the orphans
