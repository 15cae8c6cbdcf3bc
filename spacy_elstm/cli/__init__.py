"""The `spacy-elstm` command line (also `python -m spacy_elstm`): convert, score,
benchmark, lm, ptb, info. `main` checks that the `project` extra is installed
before it imports the typer app (`app.py`), so a missing package is one clear
line rather than an ImportError traceback. `import spacy_elstm` never imports
this package."""
import importlib.util
import sys
from typing import List, Optional, Sequence

REQUIRED = ("typer", "conllu")
INSTALL = 'pip install "spacy-elstm[project]"'


def missing_packages(names: Sequence[str] = REQUIRED) -> List[str]:
    """The packages of `names` that are not installed (found, not imported: a
    command imports what it needs when it runs)."""
    return [name for name in names if importlib.util.find_spec(name) is None]


def main(argv: Optional[List[str]] = None) -> None:
    missing = missing_packages()
    if missing:
        print(f"spacy-elstm: the command line needs the 'project' extra: {INSTALL} "
              f"(missing: {', '.join(missing)})", file=sys.stderr)
        raise SystemExit(1)
    from .app import app

    app(args=argv, prog_name="spacy-elstm")

