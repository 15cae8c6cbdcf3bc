"""The spacy-elstm command line: `spacy-elstm --help`."""
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
