"""The input-gate study: scripts/input_gates.sh's runs (with a stand-in python that
prints what it is asked to run) and its page (lab/report/input_gates.py) on tiny
made-up metrics files."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from lab.report.input_gates import loss_curve, page_section, read_runs
from lab.report.pages import render, write

ROOT = Path(__file__).resolve().parent.parent


def _script(env, tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    (fake / "python").write_text('#!/bin/sh\necho "$@"\n')
    (fake / "python").chmod(0o755)
    return subprocess.run(["bash", str(ROOT / "scripts" / "input_gates.sh")], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", **env})


def test_the_study_runs_each_cell_and_gate_input_seed_by_seed(tmp_path):
    result = _script({"SEEDS": "0 1", "EPOCHS": "2"}, tmp_path)
    assert result.returncode == 0, result.stderr
    runs = result.stdout.splitlines()
    names = [line.split()[1].split("=")[0] for line in runs]
    assert names == [f"dep_brnn-{cell}-{gates}-seed{seed}" for seed in (0, 1)
                     for cell in ("lstm", "elstm") for gates in ("recurrent", "input")]
    assert all(line.split()[0] == "scripts/train_and_score.py" for line in runs)
    assert "--metrics metrics/input-gates-2epochs " in runs[0]
    assert "--splits dev --model-last --gold-lemmas" in runs[0]
    assert ("--components.elstm_seq_parser.model.cell lstm "
            "--components.elstm_seq_parser.model.gates input --system.seed 0 "
            "--training.max_epochs 2 --training.eval_frequency 157") in runs[1]
    paper = _script({"SEEDS": "3", "CELLS": "elstm", "GATES": "input"}, tmp_path).stdout
    assert "--metrics metrics/input-gates " in paper and "--training.max_epochs 11" in paper


@pytest.mark.parametrize("env,message", [
    ({"CELLS": "gru"}, "CELLS: 'gru' has no gates=\"input\" variant"),
    ({"GATES": "both"}, "GATES: 'both' is neither recurrent nor input"),
    ({"SEEDS": "0 x"}, "SEEDS: 'x' is not a whole number >= 0"),
    ({"EPOCHS": "0"}, "EPOCHS must be a whole number >= 1, got '0'"),
    ({"MODELS": "dep_nothing"}, "no config configs/paper/dep_nothing.cfg"),
])
def test_the_study_refuses_bad_settings_before_training(env, message, tmp_path):
    result = _script(env, tmp_path)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stdout == ""


def _run(folder, cell, gates, seed, losses, las=70.0, finished=True):
    """A training log whose stretches of 100 steps have mean loss `losses`."""
    folder.mkdir(parents=True, exist_ok=True)
    name = f"dep_brnn-{cell}-{gates}-seed{seed}"
    records = [{"epoch": 0, "step": 0, "words": 10, "seconds": 1, "score": 0.0,
                "losses": {"elstm_seq_parser": 7.0}}]
    for i, loss in enumerate(losses, start=1):
        records.append({"epoch": 0, "step": 100 * i, "words": 10 * i, "seconds": 60 * i,
                        "score": 0.5, "scores": {"dep_las": 0.6 + 0.01 * i}, "losses": {"elstm_seq_parser": 100 * loss}})
    (folder / f"train-{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    if finished:
        (folder / f"{name}-dev.official.json").write_text(json.dumps({"LAS": las, "UAS": las + 5}))


def test_loss_curve_divides_each_logged_sum_by_its_steps():
    records = [{"step": 0, "losses": {"x": 7.0}}, {"step": 100, "losses": {"x": 250.0}},
               {"step": 150, "losses": {"x": 50.0}}]
    assert loss_curve(records) == ([0, 100, 150], [7.0, 2.5, 1.0])


def _study(folder):
    for seed, shift in ((0, 0.0), (1, 0.02)):
        _run(folder, "elstm", "recurrent", seed, [3.0, 2.0, 1.00 + shift], las=75 + seed)
        _run(folder, "elstm", "input", seed, [3.0, 2.0, 1.01 + shift], las=75 + seed)
        _run(folder, "lstm", "recurrent", seed, [3.0, 2.0, 1.0 + shift], las=74)
        _run(folder, "lstm", "input", seed, [3.0, 2.5, 1.5 + shift], las=70)


def test_the_table_gives_mean_and_sd_over_seeds_and_the_claim(tmp_path):
    _study(tmp_path / "input-gates-2epochs")
    text, plots = page_section(tmp_path)
    assert "2 epochs (the paper trains 11)" in text
    assert "| dep_brnn | lstm | input | 0, 1 | 300 | 3 ± 0 | 1.510 ± 0.014 |" in text
    assert "| dep_brnn | elstm | recurrent | 0, 1 | 300 | 3 ± 0 | 1.010 ± 0.014 |" in text
    assert "| 63.00 ± 0.00 | 75.50 ± 0.71 |" in text  # the ELSTM's dev LAS: logged, official
    assert "dep_brnn lstm: the final training loss with input gates is +0.500 from the recurrent gates' (+49.5%); the seeds of one setting end up to 0.020 apart" in text
    assert "**they differ**" in text and "**alike** at this budget" in text
    assert "the paper's claim" in text and "**holds** here" in text
    assert ("The ELSTM's final training loss against the LSTM's on dep_brnn: +0.000 with "
            "gates from [x_t, h_(t-1)] (recurrent; the seeds' ranges overlap), -0.490 with "
            "gates from x_t alone (input; every ELSTM seed below every LSTM seed). Input gates "
            "cost the ELSTM +0.010 and the LSTM +0.500.") in text
    assert list(plots) == ["input-gates-2epochs.png"]


def test_unfinished_and_missing_runs_are_left_out_and_named(tmp_path, capsys):
    folder = tmp_path / "input-gates"
    _run(folder, "elstm", "recurrent", 0, [3.0, 1.0])
    _run(folder, "elstm", "input", 0, [3.0, 1.2], finished=False)  # still training
    assert set(read_runs(folder)) == {("dep_brnn", "elstm", "recurrent")}
    assert "still training" in capsys.readouterr().err
    text, _ = page_section(tmp_path)
    assert "11 epochs, the paper's schedule" in text
    assert "| dep_brnn | elstm | input | 0 | - | - | no runs | - | - | - | - |" in text
    assert "the paper's claim" not in text  # nothing to compare yet
    _run(folder, "elstm", "input", 0, [3.0, 1.2])  # finished now: one seed each
    text, _ = page_section(tmp_path)
    assert "+0.200 from the recurrent gates' (+20.0%); one seed of a setting" in text
    assert "no verdict yet" in text and "**" not in text
    assert "against the LSTM's" not in text  # one cell, one seed: nothing to set beside


def test_no_folder_no_results_and_the_ud_page_leaves_the_folder_alone(tmp_path):
    assert page_section(tmp_path) is None
    _study(tmp_path / "input-gates")
    rendered = render(tmp_path)
    assert "dep_brnn-lstm-input" not in rendered["pages"]["ud"]
    assert "**holds** here" in rendered["pages"]["input-gates"]


def test_the_report_writes_the_page_and_its_plot(tmp_path):
    pytest.importorskip("matplotlib")
    _study(tmp_path / "metrics" / "input-gates")
    write(tmp_path / "metrics", None, tmp_path / "docs")
    page = (tmp_path / "docs" / "results" / "input-gates.md").read_text()
    assert page.startswith("# Results: the input-gate study")
    assert "![training loss against steps](input-gates.png)" in page
    assert (tmp_path / "docs" / "results" / "input-gates.png").stat().st_size > 1000
