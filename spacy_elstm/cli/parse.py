"""`spacy-elstm parse`: a pipeline over a corpus, into whole, resumable shards
(docs/parsing.md). The work is in spacy_elstm/corpus_parsing.py, imported when
the command runs."""
from pathlib import Path
from typing import Optional

import typer

from .errors import fail
from .gpu import check_gpu_or_fail


def parse(
    model: str = typer.Argument(..., help="A pipeline: a package name or a folder."),
    input_path: str = typer.Argument(..., metavar="INPUT",
                                     help="A .txt, .jsonl or .conllu file, a folder, or a glob."),
    output_dir: Path = typer.Argument(..., help="The folder that receives the shards."),
    out_format: str = typer.Option("spacy", "--format", help="spacy (DocBin), conllu or jsonl."),
    input_format: Optional[str] = typer.Option(None, "--input-format",
                                               help="text, jsonl or conllu (default: extension)."),
    shard_size: int = typer.Option(1000, min=1, help="Docs per output shard."),
    batch_size: int = typer.Option(64, min=1, help="Docs per nlp.pipe batch."),
    n_process: int = typer.Option(1, min=1, help="Processes for nlp.pipe."),
    gpu_id: int = typer.Option(-1, help="GPU to use; -1 for the CPU."),
    max_length: int = typer.Option(100_000, min=0,
                                   help="Longest input doc in characters (0: no limit)."),
    on_error: str = typer.Option("skip", help="skip (listed in OUTPUT_DIR/errors.jsonl) or fail."),
    force: bool = typer.Option(False, "--force", help="Redo shards that exist."),
    progress: bool = typer.Option(True, help="Show a progress bar on stderr."),
) -> None:
    """Parse a corpus with a pipeline into shards in OUTPUT_DIR: one shard per
    --shard-size docs of each input file, written whole; shards that exist are
    skipped (--force redoes them), so a killed run can be restarted."""
    check_gpu_or_fail("parse", gpu_id)
    import spacy

    from ..corpus_parsing import CorpusInputError, check_options, input_files, parse_corpus

    try:
        check_options(out_format=out_format, in_format=input_format, on_error=on_error,
                      shard_size=shard_size)
        input_files(input_path)
    except CorpusInputError as err:
        fail("parse", err)
    if gpu_id >= 0:
        spacy.require_gpu(gpu_id)
    try:
        nlp = spacy.load(model)
        summary = parse_corpus(nlp, input_path, output_dir, out_format=out_format,
                               in_format=input_format, shard_size=shard_size,
                               batch_size=batch_size, n_process=n_process,
                               max_length=max_length, on_error=on_error, force=force,
                               progress=progress)
    except (CorpusInputError, OSError) as err:
        fail("parse", err)
    typer.echo(summary.line())
