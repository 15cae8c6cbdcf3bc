"""The README and docs/ say what is true: their project commands exist and parse,
the README's test command is what CI runs, and the generated blocks (the
README's headline table, the results pages) are what the report computes from
metrics/ today."""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import srsly

from lab.report.common import generated_block
from lab.report.headline import ROWS, headline, row_scores
from lab.report.pages import PAGE_BLOCK, QUICKSTART_BLOCK, README_BLOCK, render
from lab.report.quickstart import quickstart

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf8")
DOCS = sorted((ROOT / "docs").rglob("*.md"))
TEST_COMMAND = 'pip install torch==2.13.0 && pip install -e ".[test]" && python -m pytest --runslow -q'
CLI_COMMANDS = {"convert", "score", "benchmark", "lm", "ptb", "info", "parse", "dyck", "memory"}


def bash_lines(text):
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            for part in line.split("&&"):
                yield part.split("#")[0].strip()


def readme_project_commands():
    return [line for line in bash_lines(README) if line.startswith("python -m spacy project run")]


def test_readme_is_short_and_has_project_commands():
    assert len(README.splitlines()) <= 300
    assert len(readme_project_commands()) >= 3


@pytest.mark.parametrize("command", readme_project_commands())
def test_readme_project_command_dry_run(command):
    args = shlex.split(command)[1:]  # drop "python"
    result = subprocess.run([sys.executable, *args, "--dry"], cwd=ROOT, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_docs_name_only_project_steps_and_commands_that_exist():
    project = srsly.read_yaml(ROOT / "project.yml")
    names = set(project.get("workflows", {})) | {c["name"] for c in project.get("commands", [])}
    for page in [ROOT / "README.md"] + DOCS:
        text = page.read_text(encoding="utf8")
        for name in re.findall(r"spacy project run ([\w-]+)", text):
            assert name in names, f"{page.relative_to(ROOT)}: no project step {name!r}"
        code = re.findall(r"```.*?```", text, flags=re.S) + re.findall(r"`[^`\n]+`", text)
        for name in re.findall(r"(?<![\w.-])spacy-elstm ([a-z]+)", "\n".join(code)):
            assert name in CLI_COMMANDS, f"{page.relative_to(ROOT)}: no command spacy-elstm {name}"


def ci_lines():
    """.ci/run's lines but comments, `set` and `cd`."""
    return [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
            if line.strip() and not line.startswith(("#", "set ", "cd "))]


def ci_scorer_lines(lines):
    """The lines of .ci/run that point the scorer tests at the CI machine's copy of
    the evaluation script: from `scorer=` to its `fi`."""
    start = next(k for k, line in enumerate(lines) if line.startswith("scorer="))
    return lines[start:lines.index("fi", start) + 1]


def test_readme_test_command_is_what_ci_runs():
    assert f"```bash\n{TEST_COMMAND}\n```" in README
    lines = ci_lines()
    scorer = ci_scorer_lines(lines)
    ci = [shlex.split(line) for line in lines if line not in scorer]
    ci = [words[2:] if words[:3] == ["python", "-m", "pip"] else words for words in ci]
    ci = [["pip"] + [w for w in words[1:] if w != "--quiet"] if words[0] == "pip" else words
          for words in ci]
    assert ci == [shlex.split(step) for step in TEST_COMMAND.split(" && ")]
    assert lines.index(scorer[0]) == len(lines) - len(scorer) - 1  # right before pytest


@pytest.mark.parametrize("there", [True, False], ids=["shared copy", "none"])
def test_ci_gives_the_tests_the_shared_scorer_where_there_is_one(tmp_path, there):
    """.ci/run sets $SPACY_ELSTM_CONLL18_EVAL to ../shared/data/conll2018-eval/
    conll18_ud_eval.py (from the checkout), as an absolute path, where that file is;
    elsewhere it leaves the variable as it was."""
    checkout = tmp_path / "repo"
    checkout.mkdir()
    script = tmp_path / "shared" / "data" / "conll2018-eval" / "conll18_ud_eval.py"
    if there:
        script.parent.mkdir(parents=True)
        script.write_text("# the scorer\n")
    setup = "\n".join(ci_scorer_lines(ci_lines()))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SPACY_ELSTM_CONLL18_EVAL": "before"}
    result = subprocess.run(["bash", "-c", f"set -euo pipefail\n{setup}\n"
                             'printf %s "$SPACY_ELSTM_CONLL18_EVAL"'],
                            cwd=checkout, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (str(script.resolve()) if there else "before")


def test_readme_headline_is_what_the_report_computes():
    block = generated_block(README, README_BLOCK)
    assert block == headline(ROOT / "metrics")
    # and each row's numbers are the seeds' official test scores
    for row in ROWS:
        found = row_scores(ROOT / "metrics", row)
        line = next(l for l in block.splitlines() if l.startswith(f"| `{row.config}` |"))
        for key in ("UPOS", "UAS", "LAS"):
            mean = sum(found[key]) / len(found[key])
            assert f"| {mean:.2f}" in line, (row.config, key)


def test_results_pages_are_up_to_date(monkeypatch):
    monkeypatch.chdir(ROOT)  # the pages name their files as python -m lab.report does
    rendered = render(Path("metrics"))
    pages = rendered["pages"]
    for page, text in pages.items():
        path = ROOT / "docs" / "results" / f"{page}.md"
        assert generated_block(path.read_text(encoding="utf8"), PAGE_BLOCK) == text, (
            f"{path.relative_to(ROOT)} is stale: run python -m lab.report")
    for images in rendered["plots"].values():
        for image in images:
            assert (ROOT / "docs" / "results" / image).is_file(), image


def _dist_name(requirement):
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip().lower().replace("_", "-")


def _third_party_imports(script):
    import ast
    tree = ast.parse(script.read_text(encoding="utf8"))
    for node in ast.walk(tree):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module] if isinstance(node, ast.ImportFrom) and node.module
                 and not node.level else [])
        for name in names:
            top = name.split(".")[0]
            if top not in sys.stdlib_module_names and top != "spacy_elstm":
                yield top


def test_the_readme_install_has_what_the_all_workflow_runs():
    """The `all` workflow runs after the README's install: its `package` step's
    `spacy package --build wheel` runs `python -m build`, its `spacy-elstm`
    commands need the command line's packages, and its scripts' imports are
    installed (by the package, the README's extra, or spaCy's own dependencies)."""
    tomllib = pytest.importorskip("tomllib")
    from importlib.metadata import packages_distributions, requires

    from spacy_elstm.cli import REQUIRED
    from weasel.util import load_project_config

    extra = re.search(r'pip install -e "\.\[(\w+)\]" && python -m spacy project run sample',
                      README)[1]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    installed = {_dist_name(d) for d in pyproject["dependencies"]
                 + pyproject["optional-dependencies"][extra]}
    installed |= {_dist_name(d) for d in requires("spacy") or [] if "extra ==" not in d}
    project = load_project_config(ROOT)
    commands = {command["name"]: command for command in project["commands"]}
    dists = packages_distributions()
    needed = {}
    for step in project["workflows"]["all"]:
        for line in commands[step]["script"]:
            words = shlex.split(line)
            if "package" in words and "--build" in words:
                if words[words.index("--build") + 1] != "none":
                    needed["build"] = f"{step}: spacy package --build"
            if "scripts/prepare_package.py" in words and "--build" in words:
                needed["build"] = f"{step}: prepare_package.py --build (spacy package --build wheel)"
            if "spacy_elstm" in words or "spacy-elstm" in words:
                needed.update({name: f"{step}: the spacy-elstm command line"
                               for name in REQUIRED})
            for word in words:
                if word.startswith("scripts/") and word.endswith(".py"):
                    for module in _third_party_imports(ROOT / word):
                        for dist in dists.get(module, [module]):
                            needed[_dist_name(dist)] = f"{step}: {word} imports {module}"
    assert "build" in needed
    missing = {name: why for name, why in needed.items() if name not in installed}
    assert not missing, f'pip install -e ".[{extra}]" lacks {missing}'


QUICK_START = ('pip install torch==2.13.0 && pip install -e ".[project]" '
               '&& python -m spacy project run sample')
# a duration: "5½ minutes", "23 min", "a few minutes", "90 s", "an hour"
DURATION = re.compile(r"(?:\d[\d.,½]*\s*|½\s*|\b(?:a few|a|an|several)\s+)"
                      r"(?:minutes?|mins?|seconds?|secs?|s|hours?|h)\b", re.I)


def _outside_generated_blocks(text):
    return re.sub(r"<!-- (\w+):start.*?<!-- \1:end -->", "", text, flags=re.S)


def test_readme_states_no_time_it_does_not_measure():
    """A time in the README comes from a measurement (a generated block, written
    from metrics/ by the report); the prose states none of its own."""
    prose = _outside_generated_blocks(README)
    assert generated_block(README, QUICKSTART_BLOCK) is not None
    assert [m.group(0) for m in DURATION.finditer(prose)] == []


def test_readme_quickstart_time_is_what_the_script_measured():
    assert f"```bash\n{QUICK_START}\n```" in README
    assert generated_block(README, QUICKSTART_BLOCK) == quickstart(ROOT / "metrics")


def test_the_timing_script_runs_the_readme_s_quick_start():
    result = subprocess.run(["bash", str(ROOT / "scripts" / "time_quickstart.sh"),
                             "--print-command"], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == QUICK_START


def test_the_quickstart_line_says_what_was_measured(tmp_path):
    record = {
        "command": QUICK_START, "commit": "0123456789abcdef", "started": "2026-11-26T00:00:00Z",
        "wall_s": 421.4, "user_s": 600.2, "system_s": 20.0,
        "parts": [{"part": "venv", "command": "python3 -m venv v", "wall_s": 5.0},
                  {"part": "readme", "command": "pip install torch==2.13.0", "wall_s": 60.0},
                  {"part": "readme", "command": 'pip install -e ".[project]"', "wall_s": 100.0},
                  {"part": "readme", "command": "python -m spacy project run sample",
                   "wall_s": 256.4}],
        "machine": {"cpu_cores": 2, "cpu": "AMD EPYC", "load_before": [0.12, 0.3, 0.2],
                    "load_after": [2.0, 1.5, 1.0], "python": "3.11.7", "torch": "2.13.0+cpu",
                    "omp_num_threads": None},
    }
    srsly.write_json(tmp_path / "quickstart.json", record)
    line = quickstart(tmp_path)
    for part in ("7 min 01 s of wall time in all", "2 min 45 s for the venv and the install",
                 "4 min 16 s for the `sample` workflow", "10 min 00 s of user CPU time",
                 "2 CPU cores (AMD EPYC)", "load average 0.1", "commit 0123456",
                 "torch 2.13.0+cpu"):
        assert part in line, part
    assert "Not timed" in quickstart(tmp_path / "none")


@pytest.mark.slow
def test_the_timing_script_writes_its_record(tmp_path):
    """The script's parts, on a stand-in command: a clone, a venv, each part of
    the line timed, the machine's facts, one JSON file."""
    output = tmp_path / "quickstart.json"
    subprocess.run(["bash", str(ROOT / "scripts" / "time_quickstart.sh"), "--output", str(output),
                    "--command", "python -c pass && git status --short"],
                   check=True, capture_output=True, text=True)
    record = srsly.read_json(output)
    assert [p["command"] for p in record["parts"]][1:] == ["python -c pass", "git status --short"]
    assert record["parts"][0]["part"] == "venv"
    assert record["wall_s"] >= sum(p["wall_s"] for p in record["parts"]) - 0.01
    assert record["machine"]["cpu_cores"] >= 1 and len(record["machine"]["load_before"]) == 3
    assert "min" in quickstart(tmp_path)


def test_the_readme_gives_the_cpu_build_of_torch_everywhere():
    """PyPI serves torch's CUDA build on Linux: the index URL gets the CPU one."""
    assert ("pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
            in list(bash_lines(README)))


def test_the_project_page_scores_a_pipeline_that_a_workflow_writes():
    """Every `spacy-elstm score|parse training/.../model-best` of docs/project.md
    names a pipeline that a command of a workflow lists in its outputs."""
    project = srsly.read_yaml(ROOT / "project.yml")
    names = {name for steps in project["workflows"].values() for name in steps}
    variables = {k: str(v) for k, v in project.get("vars", {}).items()}
    written = set()
    for command in project["commands"]:
        if command["name"] in names:
            for output in command.get("outputs", []):
                written.add(re.sub(r"\$\{vars\.(\w+)\}", lambda m: variables[m[1]], output))
    page = (ROOT / "docs" / "project.md").read_text(encoding="utf8")
    found = [model for block in re.findall(r"```bash\n(.*?)```", page, flags=re.S)
             for model in re.findall(r"spacy-elstm (?:score|parse) (training/\S+/model-best)", block)]
    assert found
    for model in found:
        assert model in written, f"docs/project.md: no workflow writes {model}"
