"""project.yml is a file a user can navigate: a few commands, each in a workflow
a user runs, each declaring what it reads and writes, and every script and
config it names is in the repository."""
import re
import shlex
import subprocess
from pathlib import Path

import pytest

import srsly
from weasel.util import load_project_config

ROOT = Path(__file__).resolve().parent.parent
RAW = srsly.read_yaml(ROOT / "project.yml")
PROJECT = load_project_config(ROOT)  # validates it as `spacy project` does, vars filled in
COMMANDS = {command["name"]: command for command in PROJECT["commands"]}
WORKFLOWS = PROJECT["workflows"]


def test_the_project_is_small_and_every_command_is_in_a_workflow():
    assert len(COMMANDS) == len(PROJECT["commands"]) <= 26
    in_workflows = {step for steps in WORKFLOWS.values() for step in steps}
    assert set(COMMANDS) - in_workflows == set(), "commands that belong to no workflow"
    assert in_workflows <= set(COMMANDS)
    assert {"sample", "all", "ptb-sample", "ptb", "paper", "benchmark", "report"} <= set(WORKFLOWS)


def test_every_command_declares_what_it_reads_or_writes():
    for name, command in COMMANDS.items():
        assert command.get("help"), name
        assert command.get("deps") or command.get("outputs"), name


def _paths(line):
    for word in shlex.split(line):
        for token in word.split("="):
            if re.match(r"(scripts|configs)/", token) and "{" not in token:
                yield token


def test_every_script_and_config_a_command_names_is_there():
    named = [(name, path) for name, command in COMMANDS.items()
             for line in command["script"] for path in _paths(line)]
    named += [(name, dep) for name, command in COMMANDS.items()
              for dep in command.get("deps", []) if dep.startswith(("scripts/", "configs"))]
    assert len(named) > 20
    for name, path in named:
        assert (ROOT / path).exists(), f"{name}: no {path}"


def test_the_single_run_commands_let_spacy_decide_what_is_done():
    """Their outputs declare the score files, and the script trains again when
    spaCy runs the command (--force): no resume test of their own."""
    for name in ("train", "ptb-sample-train", "ptb-train", "pretrain-compare"):
        lines = [line for line in COMMANDS[name]["script"] if "train_and_score.py" in line]
        assert lines and all("--force" in line for line in lines), name
    assert any(out.endswith("-test.official.json") for out in COMMANDS["train"]["outputs"])


def test_every_study_trains_and_scores_through_one_script():
    for name, command in COMMANDS.items():
        for line in command["script"]:
            if "spacy train" in line:  # only the sample's smoke test calls spacy train itself
                assert name == "train-sample", name
    studies = [line for command in COMMANDS.values() for line in command["script"]
               if "train_and_score.py" in line]
    assert len(studies) >= 10
    scripts = {p.name for p in (ROOT / "scripts").iterdir()}
    assert "train_and_score.sh" not in scripts and "score_model.sh" not in scripts


def test_the_sample_trains_the_quick_start_config_and_the_report_is_the_lab():
    train = " ".join(COMMANDS["train-sample"]["script"])
    assert "spacy train configs/raw/elstm_brnn.cfg" in train
    (report,) = WORKFLOWS["report"]
    assert COMMANDS[report]["script"] == ["python -m lab.report"]


def test_the_raw_file_uses_vars_for_the_gpu():
    for command in RAW["commands"]:
        for line in command["script"]:
            if re.search(r"spacy (train|evaluate)|train_and_score\.py", line):
                assert "--gpu-id ${vars.gpu}" in line, command["name"]


def _written_by(command):
    """The paths a command writes: its outputs and every --output or log path of
    its script."""
    yield from command.get("outputs", [])
    for line in command["script"]:
        words = shlex.split(line)
        for flag, path in zip(words, words[1:]):
            if flag in ("--output", "--paths.train_log"):
                yield path


def test_the_sample_workflow_writes_only_untracked_files():
    """A quick start leaves `git status` as it found it: what the sample writes
    is ignored by git and none of it is tracked."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    written = sorted({path for step in WORKFLOWS["sample"]
                      for path in _written_by(COMMANDS[step])})
    assert any(path.endswith("model-best") for path in written)
    assert any(path.endswith(".json") for path in written), "the sample's scores"
    tracked = subprocess.run(["git", "ls-files", "--", *written], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    assert tracked == [], f"the sample rewrites tracked files: {tracked}"
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "--", *written], cwd=ROOT,
                             capture_output=True, text=True).stdout.split()
    assert sorted(ignored) == written, f"not ignored: {sorted(set(written) - set(ignored))}"
