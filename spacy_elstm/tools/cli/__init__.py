"""The spacy-elstm command line: `spacy-elstm --help`."""
from pathlib import Path

import typer

from .benchmark import benchmark_app
from .lm import lm_app
from .ptb import ptb_app
from .score import score

app = typer.Typer(help="spacy-elstm: ELSTM and DBRNN encoders for spaCy.", no_args_is_help=True)
app.add_typer(benchmark_app, name="benchmark")
app.add_typer(ptb_app, name="ptb")
app.add_typer(lm_app, name="lm")
app.command("score", context_settings={"allow_extra_args": True,
                                       "ignore_unknown_options": True})(score)


def fail(command: str, err: Exception) -> None:
    """Print one line naming the command and the problem, then exit 1."""
    typer.echo(f"spacy-elstm {command}: {err}", err=True)
    raise typer.Exit(1)


@app.command()
def info() -> None:
    """Print the version and the registered architectures."""
    from ... import __version__
    from ...architectures import DBRNN_ENCODER, RECURRENT_ENCODER

    typer.echo(f"spacy-elstm {__version__}: {RECURRENT_ENCODER}, {DBRNN_ENCODER}")


@app.command()
def convert(
    data: Path = typer.Argument(..., help="A CoNLL-U file, e.g. UD English-EWT train."),
    output_dir: Path = typer.Argument(..., help="Write <stem>.spacy into this folder."),
    n_sents: int = typer.Option(10, min=1, help="Sentences per Doc."),
) -> None:
    """Check a CoNLL-U file and convert it to spaCy's binary format.

    The Docs are those of `spacy convert --converter conllu`; errors name the
    file and line, and nothing is written unless the whole file is valid.
    """
    from ..conllu import CorpusFormatError
    from ..conllu import convert as convert_file

    try:
        output = convert_file(data, output_dir, n_sents)
    except (CorpusFormatError, OSError) as err:
        fail("convert", err)
    typer.echo(f"wrote {output}")
