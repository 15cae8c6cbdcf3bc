"""`spacy-elstm parse`: a pipeline over a corpus, into whole, resumable shards
(docs/parsing.md). The work is in spacy_elstm/parsing/, imported when
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
    n_process: int = typer.Option(1, min=1, help="Processes for nlp.pipe; with --backend "
                                  "ray, the workers (Ray actors, one CPU each)."),
    backend: str = typer.Option("local", help="local (nlp.pipe on this machine) or ray "
                                "(Ray Data actors; needs the package's cluster extra)."),
    address: Optional[str] = typer.Option(None, help="With --backend ray: the cluster to join "
                                          "(auto: the one `ray start` began here; default: "
                                          "start a local one with --n-process CPUs)."),
    gpu_id: int = typer.Option(-1, help="GPU to use; -1 for the CPU."),
    max_length: int = typer.Option(
        100_000, min=0,
        help="Longest doc in characters (0: no limit). A longer text (text unit or JSONL "
             "text) is cut into pieces of at most this length, each a doc: at the last line "
             "break within it, else the last whitespace, never inside a word (at line breaks "
             "only with --presegmented or --pretokenized). A longer word is an error."),
    text_unit: str = typer.Option(
        "paragraph", "--text-unit",
        help="What one doc of a .txt file is: paragraph (a run of non-blank lines; blank "
             "lines separate docs), line (each non-blank line) or file (the whole file; "
             "with --max-length 0 the file is read whole). Text input only."),
    presegmented: bool = typer.Option(
        False, "--presegmented",
        help="One sentence a line: each line of a doc is one sentence, never split "
             "again; the pipeline's tokenizer still runs. Text and JSONL input."),
    pretokenized: bool = typer.Option(
        False, "--pretokenized",
        help="Words separated by spaces, one sentence a line: the Doc is built from the "
             "words, without the pipeline's tokenizer (implies --presegmented). Text and "
             "JSONL input."),
    on_error: str = typer.Option("skip", help="skip (listed in OUTPUT_DIR/errors.jsonl) or fail."),
    force: bool = typer.Option(False, "--force", help="Redo shards that exist."),
    progress: bool = typer.Option(True, help="Show a progress bar on stderr."),
) -> None:
    """Parse a corpus with a pipeline into shards in OUTPUT_DIR: one shard per
    --shard-size docs of each input file, written whole; shards that exist are
    skipped (--force redoes them), so a killed run can be restarted. A .txt
    file is one doc a paragraph (--text-unit); its text is raw unless
    --presegmented or --pretokenized says it is split already. A text longer
    than --max-length is cut into pieces, each a doc. With
    --backend ray, each shard is a task for Ray actors that load the pipeline
    once each (docs/parsing.md)."""
    check_gpu_or_fail("parse", gpu_id)
    import spacy

    from ..parsing.local import parse_corpus
    from ..parsing.plan import check_options, input_files
    from ..parsing.records import CorpusInputError
    from ..parsing.run import BackendError, InputFailure
    from ..parsing.manifest import OutputDirError, PlanChangedError, check_output_dir
    from ..parsing.pipelines import PipelineLoadError, load_pipeline
    from ..text.input_modes import mode_of

    input_mode = mode_of(presegmented, pretokenized)
    try:  # before any work: the options, the output folder, the input files
        check_options(out_format=out_format, in_format=input_format, on_error=on_error,
                      shard_size=shard_size, backend=backend, text_unit=text_unit,
                      input_mode=input_mode)
        if backend == "ray":
            _check_ray_options(model, gpu_id)
        elif address is not None:
            raise CorpusInputError("--address goes with --backend ray.")
        input_files(input_path, output_dir)
        check_output_dir(output_dir)
    except (CorpusInputError, BackendError, OutputDirError) as err:
        fail("parse", err)
    if gpu_id >= 0:
        spacy.require_gpu(gpu_id)
    try:
        options = dict(out_format=out_format, in_format=input_format, shard_size=shard_size,
                       batch_size=batch_size, n_process=n_process, max_length=max_length,
                       text_unit=text_unit, input_mode=input_mode, on_error=on_error,
                       force=force, progress=progress)
        if backend == "ray":  # its workers load the pipeline
            from ..parsing.ray_backend import parse_with_ray

            summary = parse_with_ray(model, input_path, output_dir, address=address, **options)
        else:
            summary = parse_corpus(load_pipeline(model), input_path, output_dir, **options)
    except InputFailure as err:  # what was written before it, then the bad input
        _report(err.summary, max_length)
        fail("parse", err)
    except (CorpusInputError, BackendError, PipelineLoadError, OutputDirError, PlanChangedError,
            OSError) as err:
        fail("parse", err)
    _report(summary, max_length)
    if summary.all_failed:
        fail("parse", ValueError(f"every doc failed: nothing parsed (see {summary.errors_file})."))


def _report(summary, max_length: int) -> None:
    """The summary line, after one line on stderr if texts were cut into pieces."""
    if summary.cut:
        units = "text unit was" if summary.cut == 1 else "text units were"
        typer.echo(f"{summary.cut} {units} longer than --max-length {max_length} and cut into "
                   "pieces at line breaks or whitespace (each piece a doc).", err=True)
    typer.echo(summary.line())


def _check_ray_options(model: str, gpu_id: int) -> None:
    """Ray installed, a pipeline the workers can load, and the CPU."""
    import spacy

    from ..parsing.records import CorpusInputError
    from ..parsing.ray_backend import import_ray

    import_ray()
    if gpu_id >= 0:
        raise CorpusInputError(f"--gpu-id {gpu_id}: --backend ray runs on CPUs; use "
                               "--backend local for a GPU.")
    if not Path(model).exists() and not spacy.util.is_package(model):
        raise CorpusInputError(f"{model}: no such pipeline folder or package (each Ray worker "
                               "loads it by this name).")
