"""`spacy-elstm parse --backend ray` on a local 2-CPU Ray cluster: the same
shards, annotations and errors file as one local process, and the resume rule
(a finished shard is never a task). Skipped without Ray (`spacy-elstm[cluster]`)."""
import json
import os
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_elstm.parsing.local import parse_corpus
from spacy_elstm.parsing.ray_backend import parse_with_ray

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")

MODEL = Path(__file__).parent / "fixtures" / "compat_models" / "biaffine_dbrnn"
WORDS = "the a dog cat saw chased quickly big small house near".split()
TEXTS = [" ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 4 + i % 6)) + "."
         for i in range(200)]
pytestmark = pytest.mark.slow  # a cluster and two actors that load the pipeline: ~1 minute


@pytest.fixture(scope="module")
def cluster():
    """A small local cluster for the module: 2 CPUs, no dashboard, a small
    object store (tasks and results are a few bytes)."""
    saved = dict(os.environ)
    os.environ.update(RAY_USAGE_STATS_ENABLED="0", RAY_DEDUP_LOGS="0")
    ray.init(address="local", num_cpus=2, include_dashboard=False,
             object_store_memory=80 * 2**20, logging_level="WARNING")
    yield
    ray.shutdown()
    os.environ.clear()
    os.environ.update(saved)


@pytest.fixture(scope="module")
def nlp():
    return spacy.load(MODEL)


def annotations(doc):
    return [(t.text, t.whitespace_, t.tag_, t.head.i, t.dep_, t.is_sent_start) for t in doc]


def docs_of(files, vocab):
    return [d for f in files for d in DocBin().from_disk(f).get_docs(vocab)]


def spacy_shards(out):
    return sorted(p for p in Path(out).iterdir() if p.suffix == ".spacy")


def test_ray_on_two_workers_equals_one_local_process_and_resumes(cluster, nlp, tmp_path):
    source = tmp_path / "corpus.jsonl"
    lines = [json.dumps({"id": i, "text": t}) for i, t in enumerate(TEXTS)]
    lines[57] = "{broken"  # inside a chunk: listed by the plan, skipped by its worker
    source.write_text("\n".join(lines) + "\n", encoding="utf8")
    local = parse_corpus(nlp, source, tmp_path / "local", shard_size=40, progress=False)
    out = tmp_path / "ray"
    summary = parse_with_ray(MODEL, source, out, shard_size=40, n_process=2,
                           progress=False)
    assert (summary.docs, summary.words, summary.written, summary.failures) == \
        (local.docs, local.words, 5, 1)
    assert len(summary.peak_rss) in (1, 2) and min(summary.peak_rss) > 0
    one, two = spacy_shards(tmp_path / "local"), spacy_shards(out)
    assert [f.name for f in one] == [f.name for f in two]
    assert [annotations(d) for d in docs_of(one, nlp.vocab)] == \
        [annotations(d) for d in docs_of(two, nlp.vocab)]
    assert [d.user_data["id"] for d in docs_of(two, nlp.vocab)] == \
        [i for i in range(len(TEXTS)) if i != 57]
    assert (out / "errors.jsonl").read_text() == (tmp_path / "local" / "errors.jsonl").read_text()
    # resume: a finished shard is never a task; a deleted one is the only task
    stamps = {f: f.stat().st_mtime_ns for f in two}
    two[2].unlink()
    summary = parse_with_ray(MODEL, source, out, shard_size=40, n_process=2,
                           progress=False)
    assert (summary.docs, summary.written, summary.skipped) == (40, 1, 4)
    assert all(f.stat().st_mtime_ns == stamps[f] for f in two if f != two[2])
    assert docs_of([two[2]], nlp.vocab)[0].user_data["id"] == 81
    summary = parse_with_ray(MODEL, source, out, shard_size=40, n_process=2,
                           progress=False)
    assert (summary.docs, summary.written, summary.skipped) == (0, 0, 5)
    assert not list(out.glob(".*.tmp"))


def test_benchmark_parse_writes_the_three_settings_and_the_ratios(tmp_path):
    """`spacy-elstm benchmark parse` (each setting in a fresh process, its own
    cluster for Ray) on a small CoNLL-U file, parsed as its sentences' text."""
    from typer.testing import CliRunner

    from spacy_elstm.cli.app import app

    blocks = []
    for i, text in enumerate(TEXTS[:60]):
        words = text[:-1].split() + ["."]
        blocks.append("\n".join(
            f"{k + 1}\t{w}\t_\tX\t_\t_\t{0 if k == 0 else 1}\t{'root' if k == 0 else 'dep'}\t_\t"
            + ("SpaceAfter=No" if k == len(words) - 2 else "_") for k, w in enumerate(words)))
    source = tmp_path / "small.conllu"
    source.write_text("\n\n".join(blocks) + "\n", encoding="utf8")
    output = tmp_path / "bench-parse.json"
    result = CliRunner().invoke(app, ["benchmark", "parse", str(MODEL), str(source),
                                      "--output", str(output), "--shard-size", "20"])
    assert result.exit_code == 0, result.output
    data = json.loads(output.read_text())
    rows = data["rows"]
    assert [(r["backend"], r["n_process"]) for r in rows] == [("local", 1), ("local", 2),
                                                              ("ray", 2)]
    assert len({r["words"] for r in rows}) == 1 and rows[0]["docs"] == 60
    assert [r["shards"] for r in rows] == [3, 3, 3]
    assert [len(r["worker_peak_rss_bytes"]) for r in rows][:2] == [1, 2]
    assert set(data["ratios"]) == {"n_process_vs_one", "ray_vs_n_process"}
    assert data["ray_overhead"]["cluster_start_seconds"] > 0
    assert "target >= 0.8" in result.output


def test_ray_reads_paragraphs_and_presegmented_text_as_the_local_backend(cluster, nlp,
                                                                        tmp_path):
    """A paragraph's byte range and its first line go to the actor, which reads
    it again, and the input mode with the run's options."""
    source = tmp_path / "corpus.txt"
    source.write_bytes("\r\n \r\n".join(f"{a}\r\n{b}" for a, b in zip(TEXTS[:40:2],
                                                                      TEXTS[1:40:2])).encode())
    options = dict(shard_size=8, input_mode="sentences", progress=False)
    local = parse_corpus(nlp, source, tmp_path / "local", **options)
    summary = parse_with_ray(MODEL, source, tmp_path / "ray", n_process=2, **options)
    assert (summary.docs, summary.written) == (local.docs, local.written) == (20, 3)
    one, two = spacy_shards(tmp_path / "local"), spacy_shards(tmp_path / "ray")
    docs = docs_of(two, nlp.vocab)
    assert [annotations(d) for d in docs_of(one, nlp.vocab)] == [annotations(d) for d in docs]
    assert all(len(list(d.sents)) == 2 for d in docs)  # a sentence a line
