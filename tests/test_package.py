"""What the wheel holds and what importing it costs: the plugin's wheel is the
runtime (no lab module), its modules import each other in no circle,
`import spacy_elstm` loads no command-line or lab dependency, every entry point
resolves, and a trained pipeline packaged as a wheel installs and loads in a
fresh environment."""
import ast
import importlib
import importlib.metadata
import importlib.util
import json
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Dict, List, Set

import pytest

from pipeline_utils import trained_nlp

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "spacy_elstm"
TEXTS = ["I like green eggs", "She reads long books today"]


def run(*args, **kwargs):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{args}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.mark.slow
def test_packaged_pipeline_loads_in_fresh_venv(tmp_path):
    nlp, _ = trained_nlp("dbrnn", n_iter=5)
    nlp.meta["name"] = "elstm_test"
    nlp.meta["version"] = "0.0.1"
    nlp.to_disk(tmp_path / "pipeline")
    expected = [[(t.tag_, t.head.i, t.dep_) for t in doc] for doc in nlp.pipe(TEXTS)]

    dist = tmp_path / "dist"
    (tmp_path / "packages").mkdir()
    run(sys.executable, "-m", "spacy", "package", tmp_path / "pipeline", tmp_path / "packages",
        "--build", "wheel", "--force")
    wheels = list((tmp_path / "packages").glob("*/dist/*.whl"))
    assert len(wheels) == 1, wheels
    meta = json.loads(next((tmp_path / "packages").glob("*/meta.json")).read_text())
    # spacy package found the plugin from the registered functions and requires it
    assert any(r.startswith("spacy-elstm") for r in meta["requirements"]), meta["requirements"]
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", dist, ROOT)

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    py = venv / "bin" / "python"
    run(py, "-m", "pip", "install", "-q", "torch==2.13.0")
    run(py, "-m", "pip", "install", "-q", "--find-links", dist, wheels[0])
    code = (
        "import json, sys, spacy\n"
        "nlp = spacy.load('en_elstm_test')\n"
        "assert 'spacy_elstm' in sys.modules\n"
        f"docs = list(nlp.pipe({TEXTS!r}))\n"
        "print(json.dumps([[(t.tag_, t.head.i, t.dep_) for t in d] for d in docs]))\n"
    )
    out = run(py, "-c", code, cwd=tmp_path)
    got = json.loads(out.strip().splitlines()[-1])
    assert [[tuple(t) for t in doc] for doc in got] == expected


# -- the wheel -------------------------------------------------------------------------------

# a module (or folder) of the package whose name says it is the lab's
LAB_NAMES = ("report", "target", "lab", "dev_search")


def is_lab_name(path: str) -> bool:
    stems = [part.split(".")[0] for part in path.split("/")]
    return any(stem.startswith("report") or "target" in stem or stem == "lab"
               or "dev_search" in stem for stem in stems)


def source_files() -> Set[str]:
    """The package's files as the wheel names them (no bytecode caches)."""
    return {path.relative_to(ROOT).as_posix() for path in PACKAGE.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts}


@pytest.mark.slow
def test_the_wheel_holds_the_package_and_no_lab(tmp_path):
    # build from a copy, so the checkout gets no build/ or egg-info; lab/ and scripts/ come
    # along to show that they stay out
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for name in ("spacy_elstm", "lab", "scripts"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name,
                            ignore=shutil.ignore_patterns("__pycache__"))
    # the installed setuptools where there is one (no download); else build's own environment
    isolation = ["--no-isolation"] if importlib.util.find_spec("setuptools") else []
    run(sys.executable, "-m", "build", "--wheel", *isolation, "--outdir", tmp_path / "dist", source)
    (wheel,) = (tmp_path / "dist").glob("spacy_elstm-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {n for n in names if ".dist-info/" not in n}
    assert shipped == source_files(), (sorted(shipped - source_files()),
                                       sorted(source_files() - shipped))
    assert [n for n in names if is_lab_name(n.split(".dist-info/")[0])] == []
    assert [n for n in names if n.startswith("spacy_elstm/pytorch/kernels/csrc/")
            and n.endswith(".cpp")], "the C++ kernel source is missing"


def test_the_lab_name_rule():
    assert is_lab_name("spacy_elstm/tools/report_targets.py")
    assert is_lab_name("lab/report/ud.py") and is_lab_name("spacy_elstm/dev_search.py")
    assert not is_lab_name("spacy_elstm/components/elstm_tagger.py")


# -- no circle of imports ----------------------------------------------------------------------


def module_names() -> Dict[str, Path]:
    """Each module of the package by its dotted name (a package by its __init__)."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def imported_modules(name: str, path: Path, modules: Dict[str, Path]) -> Set[str]:
    """The package's modules that ``name`` imports anywhere in its file, at its
    top or inside a function: ``from a import b`` counts as importing the module
    ``a.b`` where there is one, else ``a``."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            candidates = [[alias.name] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = name if path.name == "__init__.py" else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{node.module}" if node.module else package
            else:
                base = node.module
            candidates = [[f"{base}.{alias.name}", base] for alias in node.names]
        else:
            continue
        for options in candidates:
            target = next((option for option in options if option in modules), None)
            if target is not None and target != name:
                found.add(target)
    return found


def circles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_two_modules_import_each_other_in_a_circle():
    """The edges are the import statements a module's file holds, wherever they
    stand: an import inside a function still ties the two modules together (the
    report modules' old circle ran through one). Not an edge: the import Python
    makes of a package's __init__ before any of its submodules, which the file
    does not state. So a package __init__ that re-exports its submodules is no
    circle, while a submodule that imports a name back from its own package's
    __init__, which imports that submodule, is one (put the shared name in a
    module of its own, as cli/errors.py holds `fail`)."""
    modules = module_names()
    graph = {name: imported_modules(name, path, modules) for name, path in modules.items()}
    assert graph["spacy_elstm.components.elstm_seq_parser"] >= {
        "spacy_elstm.heads", "spacy_elstm.layers", "spacy_elstm.components.elstm_tagger"}
    assert circles(graph) == []


def test_the_circle_finder_finds_a_circle_through_a_package_init():
    graph = {"p": {"p.a"}, "p.a": {"p"}, "p.b": {"p.c"}, "p.c": set(), "q": {"p.b"}}
    assert circles(graph) == [["p", "p.a"]]


# -- a lean import ----------------------------------------------------------------------------

# what only the command line or the lab needs: a pipeline never loads it
NOT_AT_RUNTIME = ["typer", "conllu", "matplotlib", "spacy_elstm.cli", "spacy_elstm.treebanks",
                  "spacy_elstm.lm", "spacy_elstm.benchmarks", "spacy_elstm.treebanks.scoring",
                  "spacy_elstm.memory", "spacy_elstm.dyck", "lab", "ray", "spacy_elstm.parsing.ray_backend"]


def test_import_loads_no_command_line_or_lab_module():
    """spaCy imports typer itself (its own CLI), so typer counts only where
    `import spacy` alone does not load it."""
    code = (
        "import json, sys\n"
        f"watched = {NOT_AT_RUNTIME!r}\n"
        "def loaded():\n"
        "    return sorted(w for w in watched if any(m == w or m.startswith(w + '.')\n"
        "                                            for m in sys.modules))\n"
        "import spacy\n"
        "before = loaded()\n"
        "import spacy_elstm\n"
        "print(json.dumps([before, loaded()]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    before, after = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(before) <= {"typer"}
    assert sorted(set(after) - set(before)) == []


def test_the_components_old_names_are_the_new_classes():
    import spacy_elstm
    from spacy_elstm.components import ELSTMBiaffineParser, ELSTMSeqParser, ELSTMTagger

    assert spacy_elstm.SequenceLabeller is ELSTMTagger
    assert spacy_elstm.SequenceParser is ELSTMSeqParser
    assert spacy_elstm.BiaffineParser is ELSTMBiaffineParser


# -- entry points -----------------------------------------------------------------------------


def declared_entry_points() -> Dict[str, Dict[str, str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {"console_scripts": project["scripts"], **project["entry-points"]}


def test_every_entry_point_in_pyproject_resolves():
    """Each `module:attr` of pyproject.toml imports (the installed metadata may
    lag behind the file until the package is reinstalled; see the next test)."""
    groups = declared_entry_points()
    assert set(groups) >= {"console_scripts", "spacy_architectures", "spacy_factories"}
    for group, points in groups.items():
        for name, value in points.items():
            module, _, attr = value.partition(":")
            target = importlib.import_module(module)
            for part in attr.split("."):
                target = getattr(target, part)
            assert callable(target), (group, name, value)


def test_the_installed_entry_points_are_pyproject_s():
    """spaCy finds the factories of a loaded pipeline through the installed
    metadata, so it must say what pyproject.toml says."""
    for group, points in declared_entry_points().items():
        installed = {ep.name: ep.value for ep in importlib.metadata.entry_points(group=group)
                     if ep.value.startswith("spacy_elstm")}
        assert installed == points, (
            f"{group}: the installed entry points differ from pyproject.toml; reinstall "
            f"the package (pip install -e .)")
