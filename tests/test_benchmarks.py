"""The benchmarks run end to end on tiny inputs and compute their ratios
against the references of the same run (speed itself is not asserted)."""
from pathlib import Path

import pytest
import torch

from spacy_elstm.benchmarks.layers import run_layer_benchmark
from spacy_elstm.benchmarks.paper import run_paper_benchmark
from spacy_elstm.benchmarks.pipelines import run_pipeline_benchmark
from spacy_elstm.benchmarks.timing import interleaved_median_seconds

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DEV = ROOT / "assets" / "ud-ewt-sample" / "dev.conllu"


def test_interleaved_rounds_run_every_function_once_per_round():
    calls = []
    fns = {name: (lambda name=name: calls.append(name)) for name in "abc"}
    seconds = interleaved_median_seconds(fns, device=torch.device("cpu"), repeats=3, warmup=1)
    assert set(seconds) == {"a", "b", "c"} and all(s >= 0 for s in seconds.values())
    assert calls == list("abc") + list("abc") * 3


def test_layer_benchmark_rows_and_ratios(monkeypatch):
    """Ratios are the reference's time over the candidate's, per shape; the
    timings are fixed here so that a wrong ratio cannot pass."""
    from spacy_elstm.benchmarks import layers

    fixed = {"torch.nn.LSTM": 2.0, "torch.nn.GRU": 1.0, "elstm/input": 0.5, "gru/recurrent": 4.0}
    monkeypatch.setattr(layers, "interleaved_median_seconds",
                        lambda steps, device, repeats: {n: fixed[n] for n in steps})
    rows = run_layer_benchmark(shapes=[(2, 3, 8)], long_shapes=[(1, 5, 4)],
                               names=["elstm/input", "gru/recurrent"], repeats=1, memory=False,
                               progress=lambda msg: None)
    assert [(r["length"], r["name"]) for r in rows] == [
        (3, "torch.nn.GRU"), (3, "torch.nn.LSTM"), (3, "elstm/input"), (3, "gru/recurrent"),
        (5, "torch.nn.GRU"), (5, "torch.nn.LSTM"), (5, "elstm/input")]  # gru: not a long one
    row = rows[2]
    assert (row["vs_LSTM"], row["vs_GRU"]) == (4.0, 2.0)
    assert row["tokens_per_second"] == 2 * 3 / 0.5
    assert rows[3]["vs_LSTM"] == 0.5
    assert row["kernel"] in ("cpp", "scan") and rows[3]["kernel"] == "reference"


def test_layer_benchmark_runs_for_real():
    rows = run_layer_benchmark(shapes=[(2, 3, 8)], long_shapes=[(1, 40, 4)],
                               names=["elstm/recurrent"], repeats=1, memory=False,
                               progress=lambda msg: None)
    assert len(rows) == 6
    assert all(r["seconds"] > 0 and r["vs_LSTM"] > 0 for r in rows)


def test_pipeline_benchmark_rows_and_ratios():
    rows = run_pipeline_benchmark(path=SAMPLE_DEV, names=["elstm", "spacy-cnn"], width=16,
                                  max_words=150, train_words=100, repeats=1, memory=False,
                                  progress=lambda msg: None)
    assert {(r["name"], r["mode"]) for r in rows} == {
        (n, m) for n in ("elstm", "spacy-cnn") for m in ("train", "predict")}
    for row in rows:
        assert row["words"] > 0 and row["words_per_second"] > 0
        if row["name"] == "spacy-cnn":
            assert row["vs_spacy-cnn"] == 1.0


def test_pipeline_benchmark_rejects_unknown_encoder():
    with pytest.raises(ValueError, match="'lstn'.*'elstm'"):
        run_pipeline_benchmark(path=SAMPLE_DEV, names=["lstn"], progress=lambda msg: None)


def _tiny_configs(tmp_path):
    from spacy_elstm.benchmarks.pipelines import ENCODERS, tagger_parser_config

    paths = {}
    for name in ("elstm", "spacy-cnn"):
        paths[name] = tmp_path / f"{name}.cfg"
        tagger_parser_config(ENCODERS[name], 16).to_disk(paths[name])
    return paths


def test_config_benchmark_times_whole_pipelines_against_a_reference(tmp_path):
    paths = _tiny_configs(tmp_path)
    rows = run_pipeline_benchmark(path=SAMPLE_DEV, configs={n: str(p) for n, p in paths.items()},
                                  max_words=150, train_words=100, repeats=1, memory=False,
                                  reference=["spacy-cnn"], progress=lambda msg: None)
    assert {(r["name"], r["mode"]) for r in rows} == {
        (n, m) for n in ("elstm", "spacy-cnn") for m in ("train", "predict")}
    for row in rows:
        assert row["words"] > 0 and row["width"] is None
        assert "vs_spacy-bilstm" not in row
        if row["name"] == "spacy-cnn":
            assert row["vs_spacy-cnn"] == 1.0
        else:
            ref = next(r for r in rows if r["name"] == "spacy-cnn" and r["mode"] == row["mode"])
            assert row["vs_spacy-cnn"] == row["words_per_second"] / ref["words_per_second"]


def test_config_benchmark_loads_a_trained_pipeline_as_it_is(tmp_path):
    """A folder is a trained pipeline: loaded, not initialised again (its weights
    are the trained ones), and named after its parent when it is model-best."""
    import numpy
    import spacy

    from spacy_elstm.benchmarks.pipelines import build_from_config, load_examples
    from spacy_elstm.cli.benchmark import pipeline_name

    paths = _tiny_configs(tmp_path)
    # a shipped config: its saved copy has variables (${training.max_steps}) to resolve
    nlp, is_trained = build_from_config(str(ROOT / "configs" / "elstm_brnn.cfg"))
    assert not is_trained
    nlp.initialize(lambda: load_examples(SAMPLE_DEV, nlp.vocab, 100))
    folder = tmp_path / "run" / "model-best"
    folder.parent.mkdir()
    nlp.to_disk(folder)
    def weights(pipeline):
        return [node.get_param("W").copy() for node in pipeline.get_pipe("tagger").model.walk()
                if node.has_param("W")]

    trained = weights(nlp)
    pipeline, is_trained = build_from_config(str(folder))
    assert is_trained
    loaded = weights(pipeline)
    assert trained and len(loaded) == len(trained)
    assert all(numpy.array_equal(a, b) for a, b in zip(loaded, trained))
    assert pipeline_name(folder) == "run" and pipeline_name(paths["elstm"]) == "elstm"
    rows = run_pipeline_benchmark(path=SAMPLE_DEV, configs={"run": str(folder)}, max_words=100,
                                  train_words=50, repeats=1, memory=False, reference=["run"],
                                  progress=lambda msg: None)
    assert {r["mode"] for r in rows} == {"train", "predict"}
    assert spacy.load(folder).get_pipe("tagger").labels == nlp.get_pipe("tagger").labels


@pytest.mark.parametrize("extra,message", [(["--reference", "cnn"], "'cnn' is not one of"),
                                           (["same"], "two configs are named 'elstm'")])
def test_config_benchmark_refuses_bad_names(tmp_path, extra, message):
    from typer.testing import CliRunner

    from spacy_elstm.cli.app import app

    paths = _tiny_configs(tmp_path)
    args = ["benchmark", "configs", str(SAMPLE_DEV), str(paths["elstm"])]
    if extra == ["same"]:
        (tmp_path / "other").mkdir()
        twin = tmp_path / "other" / "elstm.cfg"
        twin.write_text(paths["elstm"].read_text())
        args.append(str(twin))
    else:
        args += extra
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    squeezed = " ".join(result.output.replace("│", " ").split())
    assert message in squeezed


@pytest.fixture
def no_run(monkeypatch):
    """The benchmarks themselves fail the test if they start."""
    import spacy_elstm.benchmarks.layers as layers
    import spacy_elstm.benchmarks.pipelines as pipelines

    def refuse(**kwargs):
        raise AssertionError("the benchmark ran before --output was checked")

    monkeypatch.setattr(layers, "run_layer_benchmark", refuse)
    monkeypatch.setattr(pipelines, "run_pipeline_benchmark", refuse)


@pytest.mark.parametrize("command", [["layers"], ["pipelines", str(SAMPLE_DEV)]])
@pytest.mark.parametrize("where,message", [("file/out.json", "cannot be written"),
                                           ("folder", "is a folder")])
def test_bad_output_is_refused_before_the_run(tmp_path, no_run, command, where, message):
    from typer.testing import CliRunner

    from spacy_elstm.cli.app import app

    (tmp_path / "file").write_text("a regular file")
    (tmp_path / "folder").mkdir()
    output = tmp_path / where
    result = CliRunner().invoke(app, ["benchmark", *command, "--output", str(output)])
    assert result.exit_code == 2, result.output
    squeezed = "".join(c for c in result.output if not c.isspace() and c != "│")  # rich's box
    assert message.replace(" ", "") in squeezed
    assert (tmp_path / "file").read_text() == "a regular file"


def test_good_output_is_checked_without_leaving_a_file(tmp_path):
    from spacy_elstm.cli.benchmark import check_output

    output = tmp_path / "new" / "bench.json"
    check_output(output)
    assert output.parent.is_dir() and not output.exists()


def test_lm_benchmark_rows_and_ratios():
    from spacy_elstm.benchmarks.lm import REFERENCE, run_lm_benchmark

    rows = run_lm_benchmark(cells=["elstm", "gru"], repeats=1, updates=2, vocab_size=50,
                            width=8, depth=1, batch=3, bptt=4)
    assert [r["name"] for r in rows] == [REFERENCE, "elstm", "gru"]
    assert rows[0][f"vs_{REFERENCE}"] == 1.0
    assert all(r["words_per_second"] > 0 for r in rows)


def test_lm_benchmark_names_an_unknown_cell():
    from typer.testing import CliRunner

    from spacy_elstm.cli.app import app

    result = CliRunner().invoke(app, ["benchmark", "lm", "--cell", "tree"])
    assert result.exit_code != 0 and "Unknown cell 'tree'" in result.output


PAPER_CONFIGS = Path(__file__).resolve().parent.parent / "configs" / "paper"


def test_paper_benchmark_rows_ratios_and_hours():
    rows = run_paper_benchmark(path=SAMPLE_DEV, configs=PAPER_CONFIGS, models=["pos_rnn"],
                               cells=["lstm"], max_words=60, repeats=1, epoch_words=1000,
                               progress=lambda msg: None)
    assert {(r["model"], r["cell"], r["mode"]) for r in rows} == {
        (m, "lstm", mode) for m in ("pos_brnn", "pos_rnn") for mode in ("train", "predict")}
    for row in rows:
        assert row["words"] >= 60 and row["words_per_second"] > 0
        if row["model"] == "pos_brnn":
            assert row["vs_pos_brnn"] == 1.0
        if row["mode"] == "train":
            assert row["paper_training_hours"] == pytest.approx(
                11 * 1000 / row["words_per_second"] / 3600)
        else:
            assert "paper_training_hours" not in row


def test_paper_benchmark_names_an_unknown_model():
    with pytest.raises(ValueError, match="pos_nope.*choose from.*pos_brnn"):
        run_paper_benchmark(path=SAMPLE_DEV, configs=PAPER_CONFIGS, models=["pos_nope"],
                            cells=["elstm"], max_words=20, repeats=1, progress=lambda msg: None)
