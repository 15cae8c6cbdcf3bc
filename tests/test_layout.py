"""The package's layout (docs/design.md): the root holds its face only, each
concern has a subpackage, and the imports between modules form no circle and
never reach up into the package root."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "spacy_elstm"
ROOT_MODULES = {"__init__", "__main__", "about", "files"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path):
    """The package's modules this file imports, at its top or inside functions."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] == "spacy_elstm":
                names = [f"{target}.{a.name}" for a in node.names]
                yield from (n if n in MODULES else target for n in names)
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.split(".")[0] == "spacy_elstm")


FILES = sorted(PACKAGE.rglob("*.py"))
MODULES = {module_name(p) for p in FILES}
GRAPH = {module_name(p): set(imports(p)) & MODULES for p in FILES}


def test_the_root_keeps_the_package_s_face_only():
    loose = {p.stem for p in PACKAGE.glob("*.py")} - ROOT_MODULES
    assert not loose, f"modules at the package root: {sorted(loose)}"
    for concern in ("text", "treebanks", "parsing", "training"):
        assert (PACKAGE / concern / "__init__.py").is_file()


def test_nothing_imports_the_package_root():
    """Only the command line's `info`, which imports the package to list what it
    registers, reaches the root's __init__."""
    upward = sorted((m, t) for m, targets in GRAPH.items() for t in targets
                    if t == "spacy_elstm" and m not in ("spacy_elstm", "spacy_elstm.cli.app"))
    assert not upward


def circles(edges):
    """Every circle a depth-first search meets in a graph {module: {imported}}."""
    state, found = {}, []

    def visit(node, path):
        state[node] = "open"
        for target in sorted(edges.get(node, ())):
            if state.get(target) == "open":
                found.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[node] = "done"

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    return found


def test_no_import_circle():
    """No module reachable from itself (the subpackages' `__init__`s left out:
    one that re-exports its modules is not a circle between modules)."""
    edges = {m: {t for t in ts if not _is_package(t)}
             for m, ts in GRAPH.items() if not _is_package(m)}
    assert circles(edges) == []


def test_the_circle_search_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert circles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def _is_package(name: str) -> bool:
    return (PACKAGE.parent / name.replace(".", "/") / "__init__.py").is_file()
