"""How every command reports a failure: one line, exit status 1."""
import typer


def fail(command: str, err: Exception) -> None:
    """Print one line naming the command and the problem, then exit 1."""
    typer.echo(f"spacy-elstm {command}: {err}", err=True)
    raise typer.Exit(1)
