"""The command line: without the `project` extra it says so in one line, and it
runs as `python -m spacy_elstm`. (That `import spacy_elstm` never imports it is
tests/test_package.py's.)"""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def python(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)


@pytest.mark.parametrize("hidden,missing", [(["typer"], "typer"), (["typer", "conllu"], "typer, conllu")])
def test_command_line_without_the_project_extra(hidden, missing):
    # spaCy imports typer itself, so the packages are hidden after the plugin loads
    shim = "".join(f"sys.modules[{name!r}] = None\n" for name in hidden)
    result = python(f"import sys\nimport spacy_elstm\n{shim}sys.argv = ['spacy-elstm', 'info']\n"
                    "from spacy_elstm.cli import main\nmain()\n")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "spacy-elstm: the command line needs the 'project' extra: "
        f'pip install "spacy-elstm[project]" (missing: {missing})')
    assert result.stdout == ""


def test_command_line_with_the_project_extra():
    result = subprocess.run([sys.executable, "-m", "spacy_elstm", "info"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("spacy-elstm ")


def test_test_extra_includes_the_project_and_lab_extras():
    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(extras["project"]) | set(extras["lab"]) <= set(extras["test"])
    runtime = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert not {d.split(">")[0] for d in runtime} & {d.split(">")[0] for d in extras["project"]}


def test_help_lists_the_user_commands_and_no_report():
    result = subprocess.run([sys.executable, "-m", "spacy_elstm", "--help"], capture_output=True,
                            text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    for command in ("convert", "score", "benchmark", "lm", "ptb", "info"):
        assert f" {command} " in result.stdout, command
    assert " report " not in result.stdout


def test_help_imports_no_command_s_work():
    """`spacy-elstm --help` imports the command modules (typer only) and none of
    what the commands run."""
    result = python(
        "import sys\n"
        "sys.argv = ['spacy-elstm', '--help']\n"
        "from spacy_elstm.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = ('conllu', 'matplotlib', 'spacy_elstm.treebanks', 'spacy_elstm.lm',\n"
        "         'spacy_elstm.benchmarks', 'spacy_elstm.scoring')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or m in heavy\n"
        "             or any(m.startswith(h + '.') for h in heavy)))\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
