"""How every command reports a failure: one line, exit status 1."""
import typer


def fail(command: str, err: Exception) -> None:
    """Print one line naming the command and the problem, then exit 1."""
    typer.echo(f"spacy-elstm {command}: {err}", err=True)
    raise typer.Exit(1)


PLOTTING = 'pip install "spacy-elstm[project]"'


def require_matplotlib(command: str, drawn: str) -> None:
    """Stop before any work, in one line, when the command could not draw its
    plots: matplotlib comes with the `project` extra (the command line's)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        fail(command, ImportError(f"draws {drawn} with matplotlib, which is not installed: "
                                  f"{PLOTTING}"))
