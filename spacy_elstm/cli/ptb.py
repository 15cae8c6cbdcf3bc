"""`spacy-elstm ptb`: the Penn Treebank (trees and NLTK's `.dp` dependencies)
to CoNLL-U and spaCy's binary format, and the head rules checked against `.dp`."""
from pathlib import Path
from typing import List, Optional

import typer

ptb_app = typer.Typer(help="Convert the Penn Treebank WSJ (.mrg trees, .dp dependencies).",
                      no_args_is_help=True)

SPLIT_HELP = ("NAME=FIRST-LAST[,FIRST-LAST...]: the files (or, with --unit section, the "
              "sections) of one output, e.g. train=1-159 or train=02-21. Repeat for each split.")
UNIT_HELP = "What the numbers of --split count: 'file' (wsj_0123 is 123) or 'section' (01)."


def _splits(specs: List[str], unit: str):
    from ..treebanks.ptb import parse_split

    if not specs:
        raise ValueError("name at least one --split, e.g. --split train=1-159.")
    splits = [parse_split(spec, unit) for spec in specs]
    names = [s.name for s in splits]
    if len(set(names)) != len(names):
        raise ValueError(f"split names must differ, got {', '.join(names)}.")
    return splits


def _convert(command: str, suffix: str, source: Path, output_dir: Path, split: List[str],
             unit: str, n_sents: int, summary: Optional[Path]) -> None:
    from ..treebanks.conllu_reader import CorpusFormatError
    from ..treebanks.ptb_conversion import convert_splits, write_json
    from .errors import fail

    try:
        result = convert_splits(source, _splits(split, unit), suffix, output_dir, n_sents)
        if summary is not None:
            write_json(summary, {"unit": unit, "n_sents": n_sents, "splits": result})
    except (ValueError, CorpusFormatError, OSError) as err:
        fail(f"ptb {command}", err)
    for name, part in result.items():
        typer.echo(f"{output_dir / name}.conllu, .spacy: {part['sentences']:,} sentences, "
                   f"{part['words']:,} words ({part['selection']})")


@ptb_app.command()
def trees(
    source: Path = typer.Argument(..., help="A folder with wsj_*.mrg files (searched recursively)."),
    output_dir: Path = typer.Argument(..., help="Write <split>.conllu and <split>.spacy here."),
    split: List[str] = typer.Option(..., help=SPLIT_HELP),
    unit: str = typer.Option("file", help=UNIT_HELP),
    n_sents: int = typer.Option(10, min=1, help="Sentences per Doc in the .spacy files."),
    summary: Optional[Path] = typer.Option(None, help="Write the splits' counts as JSON here."),
) -> None:
    """Bracketed trees to words, PTB tags and head-rule dependencies.

    Empty elements (-NONE-) and the constituents they leave empty are dropped,
    function tags stripped, spacing reconstructed; heads and labels come from
    spacy_elstm.treebanks.headrules. Nothing is written unless every file reads.
    """
    _convert("trees", "mrg", source, output_dir, split, unit, n_sents, summary)


@ptb_app.command()
def dependencies(
    source: Path = typer.Argument(..., help="A folder with wsj_*.dp files (FORM, POS, HEAD)."),
    output_dir: Path = typer.Argument(..., help="Write <split>.conllu and <split>.spacy here."),
    split: List[str] = typer.Option(..., help=SPLIT_HELP),
    unit: str = typer.Option("file", help=UNIT_HELP),
    n_sents: int = typer.Option(10, min=1, help="Sentences per Doc in the .spacy files."),
    summary: Optional[Path] = typer.Option(None, help="Write the splits' counts as JSON here."),
) -> None:
    """Unlabelled .dp dependencies to CoNLL-U, every relation the placeholder `dep`.

    Each sentence must be a tree (heads in range, one root, no cycle).
    """
    _convert("dependencies", "dp", source, output_dir, split, unit, n_sents, summary)


@ptb_app.command()
def agreement(
    trees_dir: Path = typer.Argument(..., help="The folder of wsj_*.mrg files."),
    dependencies_dir: Path = typer.Argument(..., help="The folder of the same files as wsj_*.dp."),
    output: Path = typer.Option(..., help="Write the agreement as JSON here."),
    split: List[str] = typer.Option(..., help=SPLIT_HELP),
    unit: str = typer.Option("file", help=UNIT_HELP),
) -> None:
    """How often the head rules give the .dp files' heads (unlabelled, in %)."""
    from ..treebanks.ptb_conversion import agreement as measure
    from ..treebanks.ptb_conversion import write_json
    from .errors import fail

    try:
        result = measure(trees_dir, dependencies_dir, _splits(split, unit))
        write_json(output, result)
    except (ValueError, OSError) as err:
        fail("ptb agreement", err)
    overall = result["all"]
    typer.echo(f"head rules agree with the .dp heads on {overall['agreement']:.2f}% of "
               f"{overall['words']:,} words ({overall['agreement_no_punct']:.2f}% without "
               f"punctuation; {overall['whole_sentences']:.2f}% of {overall['sentences']:,} "
               f"sentences whole); wrote {output}")
