"""The tooling stays apart from the plugin: a pipeline's imports never reach
`spacy_elstm.tools`, and the command line without the `project` extra says so
in one line."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def python(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)


def test_runtime_modules_do_not_import_the_tools():
    result = python(
        "import sys\n"
        "import spacy_elstm, spacy_elstm.architectures, spacy_elstm.layers, spacy_elstm.logger\n"
        "import spacy_elstm.pytorch\n"
        "print(sorted(m for m in sys.modules if m.startswith('spacy_elstm.tools')))\n"
        "print(sorted(m for m in ('conllu', 'matplotlib') if m in sys.modules))\n"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["[]", "[]"]


@pytest.mark.parametrize("hidden,missing", [(["typer"], "typer"), (["typer", "conllu"], "typer, conllu")])
def test_command_line_without_the_project_extra(hidden, missing):
    # spaCy imports typer itself, so the packages are hidden after the plugin loads
    shim = "".join(f"sys.modules[{name!r}] = None\n" for name in hidden)
    result = python(f"import sys\nimport spacy_elstm\n{shim}sys.argv = ['spacy-elstm', 'info']\n"
                    "from spacy_elstm.tools.entry import main\nmain()\n")
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


def test_test_extra_includes_the_project_extra():
    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(extras["project"]) <= set(extras["test"])
    runtime = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert not {d.split(">")[0] for d in runtime} & {d.split(">")[0] for d in extras["project"]}
