"""The command line the lab's scripts over trained pipelines share: the
pipelines, the split they read, and the metrics file they write."""
import argparse
from pathlib import Path


def pipelines_parser(doc: str, output: str, *, text_form: bool = False,
                     labelled: bool = False) -> argparse.ArgumentParser:
    """A parser of PIPELINE... (LABEL=PIPELINE... when `labelled`), --split
    (dev), --text-form (ud; when `text_form`) and --output (`output`), described
    by the first line of the script's docstring `doc`; a script adds its own."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    if labelled:
        parser.add_argument("pipelines", nargs="+", help="LABEL=PIPELINE: what its senter is")
    else:
        parser.add_argument("pipelines", nargs="+", type=Path)
    parser.add_argument("--split", default="dev")
    if text_form:
        parser.add_argument("--text-form", default="ud")
    parser.add_argument("--output", type=Path, default=Path(output))
    return parser
