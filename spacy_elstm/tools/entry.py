"""The `spacy-elstm` console script: checks that the `project` extra is
installed before importing the command line, so a missing package is one
clear line rather than an ImportError traceback."""
import importlib
import sys
from typing import List, Optional, Sequence

REQUIRED = ("typer", "conllu")
INSTALL = 'pip install "spacy-elstm[project]"'


def missing_packages(names: Sequence[str] = REQUIRED) -> List[str]:
    """The packages of `names` that cannot be imported."""
    missing = []
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


def main(argv: Optional[List[str]] = None) -> None:
    missing = missing_packages()
    if missing:
        print(f"spacy-elstm: the command line needs the 'project' extra: {INSTALL} "
              f"(missing: {', '.join(missing)})", file=sys.stderr)
        raise SystemExit(1)
    from .cli import app

    app(args=argv, prog_name="spacy-elstm")


if __name__ == "__main__":
    main()
