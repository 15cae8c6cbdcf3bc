"""The `spacy-elstm` typer app. Each command module imports only typer at its
top; what a command runs (torch, conllu, the treebank readers...) is imported
inside the command, so `spacy-elstm --help` loads none of it."""
from pathlib import Path
from typing import Dict, List

import typer

from .benchmark import benchmark_app
from .dyck import dyck
from .errors import fail
from .lm import lm_app
from .memory import memory_app
from .parse import parse
from .ptb import ptb_app
from .score import score

app = typer.Typer(help="spacy-elstm: ELSTM and DBRNN encoders for spaCy.", no_args_is_help=True)
app.add_typer(benchmark_app, name="benchmark")
app.add_typer(ptb_app, name="ptb")
app.add_typer(lm_app, name="lm")
app.add_typer(memory_app, name="memory")
app.command("parse")(parse)
app.command("dyck")(dyck)
app.command("score", context_settings={"allow_extra_args": True,
                                       "ignore_unknown_options": True})(score)


def registered_names() -> Dict[str, List[str]]:
    """Every name the package registers, by spaCy registry (architectures,
    factories, loggers, ...), read from the registries themselves: the
    functions of each registry that come from this package."""
    from spacy.util import registry

    from .. import __name__ as package  # importing the package registers its names

    names = {}
    for registry_name in registry.get_registry_names():
        found = sorted(name for name, func in getattr(registry, registry_name).get_all().items()
                       if (getattr(func, "__module__", None) or "").split(".")[0] == package)
        if found:
            names[registry_name] = found
    return names


@app.command()
def info() -> None:
    """Print the version and every name the package registers in spaCy."""
    from ..about import __version__

    typer.echo(f"spacy-elstm {__version__}")
    for registry_name, names in registered_names().items():
        typer.echo(f"{registry_name}: {', '.join(names)}")


@app.command()
def convert(
    data: Path = typer.Argument(..., help="A CoNLL-U file, e.g. UD English-EWT train, or a UD "
                                "treebank's folder (its <code>_<name>-ud-{train,dev,test}.conllu; "
                                "a split in parts is read as one, and without dev, one is held "
                                "out from the end of train)."),
    output_dir: Path = typer.Argument(..., help="Write <stem>.spacy into this folder."),
    n_sents: int = typer.Option(10, min=1, help="Sentences per Doc."),
) -> None:
    """Check a CoNLL-U file, or the three splits of a UD treebank's folder,
    and convert each to spaCy's binary format.

    The Docs are those of `spacy convert --converter conllu`; errors name the
    file and line, and nothing is written unless every file is valid. For a
    folder it also says which language spaCy builds the treebank's pipeline in
    (`xx` where spaCy has no class for its language, or one that builds
    a component of the configs its own way, as Japanese's morphologizer).
    """
    from ..treebanks.conllu_reader import CorpusFormatError, convert_files
    from ..treebanks.ud_folder import (TreebankFolderError, find_treebank,
                                        treebank_notes)

    try:
        if data.is_dir():
            treebank = find_treebank(data)
            for note in treebank_notes(treebank):
                typer.echo(note)
            files = list(treebank.files.values())
        else:
            files = [data]
        for output in convert_files(files, output_dir, n_sents):
            typer.echo(f"wrote {output}")
    except (CorpusFormatError, TreebankFolderError, OSError) as err:
        fail("convert", err)
