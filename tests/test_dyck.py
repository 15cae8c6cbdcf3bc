"""Bounded Dyck-2: the strings, the metrics on hand-made predictions, a tiny run."""
import json
import math
from dataclasses import replace

import pytest

from spacy_elstm.dyck import metrics
from spacy_elstm.dyck.data import DyckData, closing_distances, encode, is_well_formed
from spacy_elstm.dyck.experiment import Settings, evaluate, run, DyckLM
from spacy_elstm.pytorch.second_order import SecondOrder

@pytest.mark.parametrize("m", [1, 4, 6, 8])
def test_strings_are_well_formed_and_m_bounded(m):
    data = DyckData(m=m, train=200, dev=20, test=20, max_length=80)
    splits = data.splits()
    assert {k: len(v) for k, v in splits.items()} == {"train": 200, "dev": 20, "test": 20}
    strings = [s for split in splits.values() for s in split]
    assert all(is_well_formed(s, m) for s in strings)
    assert all(2 <= len(s) <= 80 and len(s) % 2 == 0 for s in strings)
    # the bound is reached: the depth does hit m somewhere
    assert any(not is_well_formed(s, m - 1) for s in strings) or m == 1


def test_the_paper_split_sizes_are_the_default():
    assert (DyckData(m=4).train, DyckData(m=4).dev, DyckData(m=4).test) == (10_000, 4_000, 10_000)


def test_seeded_strings_are_reproducible_and_split_by_split():
    a = DyckData(m=4, train=50, dev=10, test=10, max_length=30).splits()
    assert a == DyckData(m=4, train=50, dev=10, test=10, max_length=30).splits()
    assert a != DyckData(m=4, train=50, dev=10, test=10, max_length=30, seed=1).splits()
    # a bigger train split leaves dev and test as they were
    b = DyckData(m=4, train=80, dev=10, test=10, max_length=30).splits()
    assert b["dev"] == a["dev"] and b["test"] == a["test"] and b["train"][:50] == a["train"]


def test_the_checker_and_distances():
    assert is_well_formed(list("([])"), 2) and not is_well_formed(list("([])"), 1)
    assert not is_well_formed(list("(]"), 4) and not is_well_formed(list("(("), 4)
    assert closing_distances(list("([])()")) == [0, 0, 1, 3, 0, 1]
    assert encode(list("()")) == ([4, 0, 2], [0, 2, 5])


@pytest.mark.parametrize("bad,message", [
    (dict(m=0), "m must be an integer >= 1, got 0"),
    (dict(m=2, min_length=10, max_length=4), r"lengths must satisfy.*\[10, 4\]"),
    (dict(m=2, train=-1), "train size must be an integer >= 0, got -1"),
    (dict(m=2, p_open=1.0), r"p_open must be in \(0, 1\), got 1.0"),
])
def test_bad_data_settings(bad, message):
    with pytest.raises(ValueError, match=message):
        DyckData(**bad).check()


def test_ldpa_and_wcpa_by_hand():
    # (distance, p(true close), p(other close))
    predictions = [
        (1, 0.80, 0.20),  # 0.8 of the closing mass: right (the bound counts)
        (1, 0.30, 0.10),  # 0.75: wrong
        (1, 0.09, 0.01),  # 0.9: right, however little mass on closing at all
        (3, 0.50, 0.00),  # right
        (5, 0.40, 0.60),  # wrong
        (5, 0.00, 0.00),  # no closing mass: wrong
        (5, 0.99, 0.01),  # right
    ]
    by_distance = metrics.ldpa(predictions)
    assert by_distance == {1: (2 / 3, 3), 3: (1.0, 1), 5: (1 / 3, 3)}
    assert metrics.wcpa(by_distance) == pytest.approx(1 / 3)
    assert metrics.wcpa(by_distance, min_count=2) == pytest.approx(1 / 3)
    assert metrics.wcpa({1: (1.0, 5), 9: (0.0, 1)}, min_count=2) == 1.0
    assert metrics.accuracy(by_distance) == pytest.approx(4 / 7)
    assert math.isnan(metrics.wcpa({}))


def test_evaluate_reads_the_closing_brackets_at_their_distances():
    """A model that has learnt nothing spreads its mass evenly: every closing
    bracket is wrong (0.5 of the closing mass), at the distances of the strings."""
    import torch

    model = DyckLM(cell="lstm", hidden=4, embedding=3, period=1, second_order=SecondOrder())
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
    scores = evaluate(model, [list("(())"), list("[]")])
    assert scores["ldpa"] == {"1": [0.0, 2], "3": [0.0, 1]}
    assert scores["ppl"] == pytest.approx(6.0)  # uniform over six symbols


def test_a_tiny_run_writes_every_model():
    settings = Settings(ms=(2,), train=20, dev=5, test=5, max_length=8, epochs=2)
    results = run(settings, progress=False)
    assert [(r["m"], r["cell"]) for r in results["runs"]] == [(2, "lstm"), (2, "elstm"),
                                                               (2, "solstm")]
    solstm = results["runs"][2]
    # two batches per epoch, tau x 0.9 after the first epoch
    assert solstm["history"][1]["temperature"] == pytest.approx(0.9)
    json.dumps(results, allow_nan=False)


@pytest.mark.parametrize("args,message", [
    (["--cell", "gru"], "Unknown cell 'gru': choose from 'lstm', 'elstm', 'solstm'."),
    (["--name", "../x"], "--name must be a plain file name, got '../x'."),
    (["--m", "0"], "m must be an integer >= 1, got 0."),
])
def test_the_command_fails_in_one_line_on_a_bad_value(tmp_path, args, message):
    from typer.testing import CliRunner

    from spacy_elstm.cli.app import app

    result = CliRunner().invoke(app, ["dyck", str(tmp_path), *args])
    assert result.exit_code == 1
    assert result.output.strip() == f"spacy-elstm dyck: {message}"


def test_the_command_writes_json_and_a_plot(tmp_path):
    from typer.testing import CliRunner

    from spacy_elstm.cli.app import app

    result = CliRunner().invoke(app, ["dyck", str(tmp_path), "--m", "2", "--cell", "solstm",
                                      "--train", "10", "--dev", "4", "--test", "4",
                                      "--max-length", "6", "--epochs", "1", "--no-progress",
                                      "--name", "small"])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "small.json").read_text())
    assert data["runs"][0]["cell"] == "solstm" and data["settings"]["train"] == 10
    assert (tmp_path / "small-ldpa.png").stat().st_size > 0


class Stop(Exception):
    pass


@pytest.mark.parametrize("cell", ["lstm", "solstm"])
def test_a_model_stopped_midway_resumes_to_the_numbers_of_one_never_stopped(tmp_path, cell):
    from spacy_elstm.dyck.experiment import train_one

    settings = Settings(ms=(2,), cells=(cell,), train=30, dev=6, test=6, max_length=10, epochs=3)
    splits = settings.data(2, 0).splits()
    whole = train_one(settings, 2, cell, 0, splits)
    checkpoint = tmp_path / "m2.pt"

    def stop_in_epoch_3(desc):
        if desc.endswith("epoch 3"):
            raise Stop

    with pytest.raises(Stop):
        train_one(settings, 2, cell, 0, splits, stop_in_epoch_3, checkpoint)
    assert checkpoint.is_file()  # two epochs kept
    resumed = train_one(settings, 2, cell, 0, splits, checkpoint=checkpoint)
    for key in ("history", "dev", "test", "best_epoch", "epochs", "params"):
        assert resumed[key] == whole[key], key
    assert len(resumed["history"]) == 3


def test_a_checkpoint_of_other_settings_or_another_model_is_refused(tmp_path):
    from spacy_elstm.dyck.experiment import train_one

    settings = Settings(ms=(2,), cells=("lstm",), train=10, dev=2, test=2, max_length=6, epochs=1)
    splits = settings.data(2, 0).splits()
    checkpoint = tmp_path / "c.pt"

    train_one(settings, 2, "lstm", 0, splits, checkpoint=checkpoint)
    with pytest.raises(ValueError, match=r"c.pt: a checkpoint of other settings \(they differ "
                                         r"in epochs\); remove it"):
        train_one(replace(settings, epochs=2), 2, "lstm", 0, splits, checkpoint=checkpoint)
    with pytest.raises(ValueError, match="not a checkpoint of m=2 elstm seed 0"):
        train_one(settings, 2, "elstm", 0, splits, checkpoint=checkpoint)
    checkpoint.write_bytes(b"not torch")
    with pytest.raises(ValueError, match="c.pt: not a Dyck-2 training checkpoint"):
        train_one(settings, 2, "lstm", 0, splits, checkpoint=checkpoint)


def test_run_refuses_earlier_results_of_other_settings():
    from spacy_elstm.dyck.experiment import OtherSettings

    settings = Settings(ms=(2,), cells=("lstm",), train=10, dev=2, test=2, max_length=6, epochs=1)
    earlier = {"settings": replace(settings, epochs=2, seeds=(1,)).to_json(), "runs": []}
    with pytest.raises(OtherSettings, match=r"^holds the results of other settings \(they differ "
                                            r"in epochs, seeds\)$"):
        run(settings, progress=False, previous=earlier)


def test_the_command_resumes_its_own_results_and_refuses_other_settings(tmp_path):
    from typer.testing import CliRunner

    from spacy_elstm.cli.app import app

    args = ["dyck", str(tmp_path), "--m", "2", "--cell", "lstm", "--train", "10", "--dev", "4",
            "--test", "4", "--max-length", "6", "--epochs", "1", "--no-progress"]
    assert CliRunner().invoke(app, args).exit_code == 0
    path = tmp_path / "dyck.json"
    data = json.loads(path.read_text())
    data["runs"][0]["train_seconds"] = 12345.0  # a model trained again would not keep it
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(app, args + ["--cell", "elstm"])
    assert result.exit_code == 1
    assert result.output.strip() == (
        f"spacy-elstm dyck: {path} holds the results of other settings (they differ in "
        f"cells); give another --name, or remove it to start again.")
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "(1 epochs, 12345 s)" in result.output
    assert not (tmp_path / "dyck.checkpoints").exists()  # removed once its models are in


def _paper_script(env, tmp_path):
    import os
    import subprocess
    from pathlib import Path

    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    (fake / "python").write_text('#!/bin/sh\necho "$@"\n')
    (fake / "python").chmod(0o755)
    root = Path(__file__).resolve().parent.parent
    return subprocess.run(["bash", str(root / "scripts" / "dyck_paper.sh"), str(tmp_path / "m")],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", **env})


def test_the_paper_size_script_runs_one_model_a_command_the_slow_cell_last(tmp_path):
    done = tmp_path / "m" / "dyck"
    done.mkdir(parents=True)
    (done / "paper-m4-lstm-seed0.json").write_text("{}")  # finished: skipped
    (done / "paper-m6-lstm-seed0.json").write_text("{}")  # stopped midway: resumed
    (done / "paper-m6-lstm-seed0.checkpoints").mkdir()
    result = _paper_script({"MS": "4 6", "CELLS": "solstm lstm"}, tmp_path)
    assert result.returncode == 0, result.stderr
    runs = [line for line in result.stdout.splitlines() if line.startswith("-m spacy_elstm")]
    assert [line.split("--name ")[1].split()[0] for line in runs] == [
        "paper-m6-lstm-seed0", "paper-m4-solstm-seed0", "paper-m6-solstm-seed0"]
    assert f"dyck {tmp_path}/m/dyck --paper-size --m 6 --cell lstm --seed 0" in runs[0]
    assert "done already" in result.stdout


@pytest.mark.parametrize("env,message", [
    ({"CELLS": "gru"}, "CELLS: unknown cell 'gru'; choose lstm, elstm or solstm"),
    ({"MS": "4 0"}, "MS: '0' is not a whole number >= 1"),
    ({"SEEDS": "x"}, "SEEDS: 'x' is not a whole number >= 0"),
])
def test_the_paper_size_script_checks_every_value_first(tmp_path, env, message):
    result = _paper_script(env, tmp_path)
    assert result.returncode == 2 and result.stderr.strip() == message and not result.stdout
