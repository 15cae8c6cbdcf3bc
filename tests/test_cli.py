"""The command line: without the `project` extra it says so in one line, and it
runs as `python -m spacy_elstm`. (That `import spacy_elstm` never imports it is
tests/test_package.py's.)"""
import os
import re
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
    assert set(extras["project"]) | set(extras["lab"]) | set(extras["cluster"]) <= set(extras["test"])
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
        "         'spacy_elstm.benchmarks', 'spacy_elstm.treebanks.scoring')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or m in heavy\n"
        "             or any(m.startswith(h + '.') for h in heavy)))\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


# pyproject's entry-point groups, by the spaCy registry each fills
ENTRY_POINT_REGISTRIES = {"spacy_architectures": "architectures", "spacy_factories": "factories",
                          "spacy_loggers": "loggers", "spacy_readers": "readers",
                          "spacy_augmenters": "augmenters", "spacy_tokenizers": "tokenizers",
                          "thinc_optimizers": "optimizers", "spacy_schedules": "schedules",
                          "thinc_schedules": "schedules", "spacy_layers": "layers",
                          "thinc_layers": "layers", "spacy_scorers": "scorers",
                          "spacy_callbacks": "callbacks", "spacy_misc": "misc"}


def test_info_lists_every_registered_name():
    """Every name of pyproject's entry points, by registry, and nothing else."""
    tomllib = pytest.importorskip("tomllib")
    groups = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    expected = {}
    for group, names in groups.items():
        expected.setdefault(ENTRY_POINT_REGISTRIES[group], set()).update(names)
    result = subprocess.run([sys.executable, "-m", "spacy_elstm", "info"], capture_output=True,
                            text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    version, *lines = result.stdout.strip().splitlines()
    assert version.startswith("spacy-elstm ")
    listed = {registry: set(names.split(", "))
              for registry, names in (line.split(": ", 1) for line in lines)}
    assert listed == expected
    assert len(listed["architectures"]) == 14  # + Seq2SeqTagger.v2, ConvSeq2SeqTagger.v1, SentenceTok2Vec.v1


def _commands(command, path=()):
    yield list(path)
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


# a path in a help text: one of the repository's folders, then a file or folder name
HELP_PATH = re.compile(r"(?<![\w/.-])((?:configs|scripts|assets|docs)/[\w./-]*[\w/])")


def test_every_path_a_help_text_names_exists():
    """`lm train --help` once named configs/lm/small_lstm.cfg, which never
    existed: every configs/, scripts/, docs/ or assets/ path in any --help is in
    the repository (assets/: or a project asset, fetched by `spacy project assets`)."""
    import srsly
    import typer
    from typer.testing import CliRunner

    from spacy_elstm.cli.app import app

    project = srsly.read_yaml(ROOT / "project.yml")
    variables = project["vars"]
    assets = {re.sub(r"\$\{vars\.(\w+)\}", lambda m: str(variables[m[1]]), asset["dest"])
              for asset in project["assets"]}
    named = []
    for path in _commands(typer.main.get_command(app)):
        # wide enough that no path is wrapped
        result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "1000"})
        assert result.exit_code == 0, (path, result.output)
        named += [(" ".join(path), found) for found in HELP_PATH.findall(result.output)]
    assert len(named) >= 3
    for command, found in named:
        assert (ROOT / found).exists() or found.rstrip("/") in assets, (
            f"spacy-elstm {command} --help names {found}, which does not exist")


NO_CUPY = ("spacy-elstm {command}: --gpu-id 0 needs CuPy for your CUDA version (e.g. pip install "
           "cupy-cuda12x for CUDA 12) and a CUDA build of PyTorch (docs/gpu.md).")


DEV = str(ROOT / "assets" / "ud-ewt-sample" / "dev.conllu")
TRAIN = str(ROOT / "assets" / "ud-ewt-sample" / "train.conllu")


@pytest.mark.parametrize("args", [
    ["score", "no-pipeline", "no-gold.conllu"],
    ["benchmark", "pipelines", DEV],
    ["benchmark", "configs", DEV, str(ROOT / "configs" / "elstm_brnn.cfg")],
    ["benchmark", "paper", DEV, "--train", TRAIN],
])
def test_gpu_without_cupy_fails_first_in_one_line(monkeypatch, args):
    """With CuPy missing, a command given --gpu-id says what to install before it
    does anything: not spaCy's "Using GPU: 0" and then its error."""
    from typer.testing import CliRunner

    from spacy_elstm.cli.app import app

    monkeypatch.setitem(sys.modules, "cupy", None)  # as if CuPy were not installed
    result = CliRunner().invoke(app, [*args, "--gpu-id", "0"])
    assert result.exit_code == 1, result.output
    command = " ".join(a for a in args[:2] if a in ("score", "benchmark", "pipelines",
                                                      "configs", "paper"))
    assert result.output.strip() == NO_CUPY.format(command=command)


@pytest.mark.parametrize("args", [["lm", "train", "configs/lm/small.cfg", "out"],
                                  ["lm", "evaluate", "model.pt", "text.txt"],
                                  ["benchmark", "lm"]])
def test_gpu_with_a_cpu_torch_fails_first_in_one_line(monkeypatch, tmp_path, args):
    """The language models run in PyTorch alone: they need a CUDA build of it,
    not CuPy."""
    import torch
    from typer.testing import CliRunner

    from spacy_elstm.cli.app import app

    monkeypatch.setitem(sys.modules, "cupy", None)
    monkeypatch.setattr(torch.version, "cuda", None)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, [*args, "--gpu-id", "0"])
    assert result.exit_code == 1, result.output
    assert result.output.strip() == (
        f"spacy-elstm {' '.join(args[:2])}: --gpu-id 0 needs a CUDA build of PyTorch; this one "
        f"({torch.__version__}) is for the CPU only (docs/gpu.md).")
    assert list(tmp_path.iterdir()) == []


def test_train_and_score_without_cupy_fails_before_training(tmp_path):
    shim = ("import sys, runpy\nsys.modules['cupy'] = None\n"
            "sys.argv = ['scripts/train_and_score.py', 'configs/elstm_brnn.cfg', '--metrics', "
            f"{str(tmp_path / 'metrics')!r}, '--models', {str(tmp_path / 'models')!r}, "
            "'--gpu-id', '0']\n"
            "runpy.run_path('scripts/train_and_score.py', run_name='__main__')\n")
    result = subprocess.run([sys.executable, "-c", shim], capture_output=True, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.strip() == NO_CUPY.format(command="x").replace(
        "spacy-elstm x:", "train_and_score.py:")
    assert result.stdout == "" and list(tmp_path.iterdir()) == []


def test_the_gpu_docs_say_what_to_install_and_show_the_messages():
    readme = (ROOT / "README.md").read_text(encoding="utf8")
    gpu = (ROOT / "docs" / "gpu.md").read_text(encoding="utf8")
    assert "cupy-cuda12x" in readme and "docs/gpu.md#using-a-gpu" in readme
    assert "## Using a GPU" in gpu and "CUDA build of PyTorch" in gpu
    assert NO_CUPY.format(command="score") in gpu
