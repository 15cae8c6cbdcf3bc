"""The spacy-elstm command line: `spacy-elstm --help`."""
import os
from pathlib import Path
from typing import Optional

import typer

from .benchmark import benchmark_app

app = typer.Typer(help="spacy-elstm: ELSTM and DBRNN encoders for spaCy.", no_args_is_help=True)
app.add_typer(benchmark_app, name="benchmark")


@app.command()
def info() -> None:
    """Print the version and the registered architectures."""
    from .. import __version__
    from ..architectures import DBRNN_ENCODER, RECURRENT_ENCODER

    typer.echo(f"spacy-elstm {__version__}: {RECURRENT_ENCODER}, {DBRNN_ENCODER}")


@app.command()
def report(
    metrics: Path = typer.Option(Path("metrics"), help="Folder of metrics files the project wrote."),
    readme: Optional[Path] = typer.Option(None, help="Rewrite this file's results section."),
    plots: Optional[Path] = typer.Option(None, help="Write plots (PNG) into this folder."),
) -> None:
    """Tabulate evaluation, training-log and benchmark files as Markdown."""
    from ..report import render, update_readme

    link = ""
    if plots is not None and readme is not None:
        link = os.path.relpath(plots, readme.parent) + "/"
    section = render(metrics, plots, link)
    if readme is None:
        typer.echo(section)
    else:
        update_readme(readme, section)
        typer.echo(f"updated {readme}")
