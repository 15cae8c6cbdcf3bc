"""`spacy-elstm lm`: word-level language models on the recurrent cells."""
from pathlib import Path

import typer

from .gpu import check_gpu_or_fail

lm_app = typer.Typer(help="Train and evaluate word-level language models (Penn Treebank LM).",
                     no_args_is_help=True)


def _device(command: str, gpu_id: int) -> str:
    """The torch device of ``--gpu-id``, checked before any work (the language
    models run in PyTorch alone: no CuPy needed)."""
    check_gpu_or_fail(command, gpu_id, cupy=False)
    return "cpu" if gpu_id < 0 else f"cuda:{gpu_id}"


@lm_app.command("train", context_settings={"allow_extra_args": True,
                                           "ignore_unknown_options": True})
def train_command(
    ctx: typer.Context,
    config: Path = typer.Argument(..., help="An LM config, e.g. configs/lm/small.cfg."),
    output_dir: Path = typer.Argument(..., help="Folder for checkpoint, best model and metrics."),
    resume: bool = typer.Option(False, "--resume", help="Go on with the run in OUTPUT_DIR."),
    gpu_id: int = typer.Option(-1, help="GPU id, or -1 for the CPU."),
    progress: bool = typer.Option(True, help="Show a progress bar with the running perplexity."),
) -> None:
    """Train a language model with truncated back-propagation through time, then
    report validation and test perplexity. Override settings as spaCy does:
    --training.epochs 2 --model.cell elstm."""
    device = _device("lm train", gpu_id)
    from spacy.cli._util import parse_config_overrides
    from thinc.api import Config

    from ..lm.training import Settings, train
    from ..lm.data import TextFormatError
    from .errors import fail

    try:
        overrides = parse_config_overrides(ctx.args)
        settings = Settings.from_config(Config().from_disk(config, overrides=overrides))
        train(settings, output_dir, resume=resume, device=device, progress=progress,
              log=typer.echo)
    except (ValueError, TextFormatError, OSError) as err:
        fail("lm train", err)
    typer.echo(f"wrote {output_dir / 'metrics.json'}")


@lm_app.command("evaluate")
def evaluate_command(
    model: Path = typer.Argument(..., help="A saved model, e.g. OUTPUT_DIR/model-best.pt."),
    text: Path = typer.Argument(..., help="A text file, one sentence per line."),
    batch_size: int = typer.Option(10, min=1, help="Rows the text is cut into."),
    bptt: int = typer.Option(20, min=1, help="Words per segment."),
    gpu_id: int = typer.Option(-1, help="GPU id, or -1 for the CPU."),
) -> None:
    """Print the perplexity of a saved model on a text (every word and <eos> counted)."""
    device = _device("lm evaluate", gpu_id)
    from ..lm.training import evaluate
    from ..lm.data import TextFormatError
    from .errors import fail

    try:
        ppl = evaluate(model, text, batch_size=batch_size, bptt=bptt, device=device)
    except (ValueError, TextFormatError, OSError) as err:
        fail("lm evaluate", err)
    typer.echo(f"{text}: perplexity {ppl:.2f}")


@lm_app.command("jsonl")
def jsonl_command(
    text: Path = typer.Argument(..., help="A text file, one sentence per line (e.g. ptb.train.txt), "
                                          "or a CoNLL-U file (.conllu: each sentence's text)."),
    output: Path = typer.Argument(..., help="Write the JSONL for `spacy pretrain` here."),
) -> None:
    """Write a text as raw text for `spacy pretrain --paths.raw_text` (one
    {"text": ...} per line, <unk> as unk), or a treebank's sentences' text."""
    from ..lm.data import TextFormatError, write_jsonl
    from ..treebanks.conllu_reader import CorpusFormatError
    from .errors import fail

    try:
        count = write_jsonl(text, output)
    except (TextFormatError, CorpusFormatError, OSError) as err:
        fail("lm jsonl", err)
    typer.echo(f"wrote {output} ({count:,} lines)")
