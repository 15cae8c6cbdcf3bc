"""`spacy-elstm benchmark layers|pipelines|configs|paper|lm|parse`: tables on stdout, JSON on disk."""
import json
import os
import platform
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import typer

from .gpu import check_gpu_or_fail

benchmark_app = typer.Typer(help="Speed and memory against references measured in the same run.",
                            no_args_is_help=True)


def _environment(device: str) -> Dict[str, Any]:
    import torch

    from ..pytorch.kernels import extension
    from ..benchmarks.timing import cpu_model

    built = extension.get()
    env = {"torch": torch.__version__, "threads": torch.get_num_threads(),
           "machine": platform.machine(), "processor": platform.processor(),
           "cpu": cpu_model(), "python": platform.python_version(),
           "kernel_build": None if built is None else built.__name__.rsplit("_", 1)[-1]}
    if device.startswith("cuda"):
        env["gpu"] = torch.cuda.get_device_name(torch.device(device))
    return env


def _allocator(keep: bool) -> str:
    """Applies --keep-freed-memory and says which allocator policy the run used."""
    if not keep:
        return "default"
    from ..benchmarks.timing import keep_freed_memory

    if not keep_freed_memory():
        raise typer.BadParameter("--keep-freed-memory needs glibc (Linux).")
    return "freed memory kept (glibc mallopt)"


KEEP_HELP = ("Keep freed memory in the process (glibc mallopt) so no timed pass pays page "
             "faults for buffers its predecessor freed; applies to every candidate alike.")


def check_output(output: Optional[Path]) -> None:
    """Refuse an --output that cannot be written, before the run rather than
    after it: a folder, or a path whose parent cannot be made or written."""
    if output is None:
        return
    if output.is_dir():
        raise typer.BadParameter(f"{output} is a folder; give a file path such as "
                                 f"{output / 'bench.json'}.", param_hint="--output")
    for parent in output.parents:
        if parent.exists():
            if not parent.is_dir():
                raise typer.BadParameter(f"{output} cannot be written: {parent} is a file, "
                                         "not a folder.", param_hint="--output")
            break
    existed = output.exists()
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        with output.open("a"):
            pass
    except OSError as err:
        raise typer.BadParameter(f"{output} cannot be written: {err.strerror or err}.",
                                 param_hint="--output") from None
    if not existed:
        output.unlink()


def _write(output: Optional[Path], payload: Dict[str, Any]) -> None:
    if output is not None:
        from ..files import write_atomically

        write_atomically(output, json.dumps(payload, indent=2).encode())
        typer.echo(f"wrote {output}")


def _mib(value: Optional[int]) -> str:
    return "-" if value is None else f"{value / 2**20:.1f}"


def _table(header: List[str], rows: List[List[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    lines = ["  ".join(str(c).rjust(w) for c, w in zip(r, widths)) for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def parse_shape(text: str) -> Tuple[int, int, int]:
    """"32x25x128" -> (32, 25, 128); a BadParameter naming the value otherwise."""
    parts = text.lower().split("x")
    if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise typer.BadParameter(f"{text!r} is not BATCHxLENGTHxWIDTH with three positive "
                                 "integers, e.g. 32x25x128.", param_hint="--shape")
    batch, length, width = map(int, parts)
    return batch, length, width


@benchmark_app.command("layers")
def layers(
    output: Optional[Path] = typer.Option(None, help="Write the results as JSON here."),
    device: List[str] = typer.Option([], help="cpu and/or cuda:0; default: cpu, plus cuda:0 when present."),
    repeats: int = typer.Option(9, min=1, help="Timed rounds; every candidate runs once per round and its median is kept."),
    name: List[str] = typer.Option([], help="Only these candidates, e.g. elstm/recurrent; default: all."),
    shape: List[str] = typer.Option([], help="Only these shapes, as BATCHxLENGTHxWIDTH (e.g. 32x25x128), every candidate at each; default: the standard and long shapes of each device."),
    memory: bool = typer.Option(True, help="Also measure peak memory (a fresh process per row on CPU)."),
    threads: Optional[int] = typer.Option(None, help="torch.set_num_threads; default: torch's choice."),
    keep_freed_memory: bool = typer.Option(False, help=KEEP_HELP),
) -> None:
    """Forward+backward tokens/second of every cell and gate mode, with ratios
    against torch.nn.LSTM and torch.nn.GRU of the same sizes."""
    import torch

    from ..benchmarks.layers import run_layer_benchmark

    check_output(output)
    shapes = [parse_shape(s) for s in shape]
    if threads:
        torch.set_num_threads(threads)
    allocator = _allocator(keep_freed_memory)
    devices = device or (["cpu"] + (["cuda:0"] if torch.cuda.is_available() else []))
    rows: List[Dict[str, Any]] = []
    for dev in devices:
        typer.echo(f"layer benchmark on {dev}:", err=True)
        given = {"shapes": shapes, "long_shapes": []} if shapes else {}
        rows += run_layer_benchmark(device=dev, repeats=repeats, names=name, memory=memory,
                                    progress=lambda msg: typer.echo(msg, err=True), **given)
    table = [[r["device"], f"{r['batch']}x{r['length']}x{r['width']}", r["name"],
              f"{r['tokens_per_second']:,.0f}", f"{r['vs_LSTM']:.2f}", f"{r['vs_GRU']:.2f}",
              _mib(r["peak_memory_bytes"])] for r in rows]
    typer.echo(_table(["device", "BxTxW", "layer", "tokens/s", "x LSTM", "x GRU", "peak MiB"],
                      table))
    _write(output, {"benchmark": "layers", "environment": _environment(devices[-1]),
                    "repeats": repeats, "allocator": allocator, "rows": rows})


@benchmark_app.command("pipelines")
def pipelines(
    data: Path = typer.Argument(..., exists=True, dir_okay=False,
                                help="A CoNLL-U file, e.g. UD English-EWT dev."),
    output: Optional[Path] = typer.Option(None, help="Write the results as JSON here."),
    name: List[str] = typer.Option([], help="Only these encoders; default: all."),
    width: int = typer.Option(128, min=2, help="The tok2vec width of every pipeline."),
    train_words: int = typer.Option(5000, min=1, help="Words per timed training pass."),
    max_words: Optional[int] = typer.Option(None, help="Words per timed inference pass (default: the whole file)."),
    repeats: int = typer.Option(5, min=1, help="Timed rounds; every pipeline runs once per round and its median is kept."),
    memory: bool = typer.Option(True, help="Also measure peak RSS (a fresh process per row)."),
    gpu_id: int = typer.Option(-1, help="GPU to run on; -1 for CPU."),
    keep_freed_memory: bool = typer.Option(False, help=KEEP_HELP),
) -> None:
    """Training and inference words/second of tagger+parser pipelines that
    differ only in their encoder, with ratios against spaCy's CNN and BiLSTM."""
    check_gpu_or_fail("benchmark pipelines", gpu_id, cupy=True)
    import spacy

    from ..benchmarks.pipelines import run_pipeline_benchmark
    from ..treebanks.conllu_reader import CorpusFormatError, read_conllu

    check_output(output)
    try:
        read_conllu(data)  # a bad file is refused before the pipelines are built
    except CorpusFormatError as err:
        raise typer.BadParameter(str(err), param_hint="DATA") from None
    allocator = _allocator(keep_freed_memory)
    if gpu_id >= 0:
        spacy.require_gpu(gpu_id)
        memory = False  # RSS says nothing about GPU memory
    rows = run_pipeline_benchmark(path=data, names=name, width=width, max_words=max_words,
                                  train_words=train_words, repeats=repeats, memory=memory,
                                  progress=lambda msg: typer.echo(msg, err=True))
    table = [[r["name"], r["mode"], f"{r['words']:,}", f"{r['words_per_second']:,.0f}",
              f"{r.get('vs_spacy-cnn', float('nan')):.2f}",
              f"{r.get('vs_spacy-bilstm', float('nan')):.2f}", _mib(r["peak_memory_bytes"])]
             for r in rows]
    typer.echo(_table(["encoder", "mode", "words", "words/s", "x CNN", "x spaCy BiLSTM",
                       "peak MiB"], table))
    _write(output, {"benchmark": "pipelines", "data": data.name, "width": width,
                    "environment": _environment("cuda:0" if gpu_id >= 0 else "cpu"),
                    "allocator": allocator, "rows": rows})


def pipeline_name(path: Path) -> str:
    """How the configs benchmark names a config (its file's stem) or a trained
    pipeline (its folder's name, its parent's for model-best and model-last)."""
    if path.is_dir() and path.name in ("model-best", "model-last"):
        return path.resolve().parent.name
    return path.stem if not path.is_dir() else path.name


@benchmark_app.command("configs")
def configs(
    data: Path = typer.Argument(..., exists=True, dir_okay=False,
                                help="A CoNLL-U file, e.g. UD English-EWT dev."),
    config: List[Path] = typer.Argument(..., exists=True,
                                        help="Training configs, each named after its file, or "
                                             "trained pipelines' folders, each named after "
                                             "its folder (after its parent for model-best and "
                                             "model-last)."),
    output: Optional[Path] = typer.Option(None, help="Write the results as JSON here."),
    reference: Optional[str] = typer.Option(None, help="The config name the ratios are against; default: the first."),
    train_words: int = typer.Option(5000, min=1, help="Words per timed training pass."),
    max_words: Optional[int] = typer.Option(None, help="Words per timed inference pass (default: the whole file)."),
    repeats: int = typer.Option(5, min=1, help="Timed rounds; every pipeline runs once per round and its median is kept."),
    memory: bool = typer.Option(False, help="Also measure peak RSS (a fresh process per row)."),
    threads: Optional[int] = typer.Option(None, help="torch.set_num_threads; default: torch's choice."),
    gpu_id: int = typer.Option(-1, help="GPU to run on; -1 for CPU."),
) -> None:
    """Training and inference words/second of whole pipelines given as training
    configs (untrained: the same shapes as the trained ones) or as trained
    pipelines (for decoders whose work depends on the scores, such as the
    biaffine parser's tree search), in the same run, with ratios against one of
    them."""
    check_gpu_or_fail("benchmark configs", gpu_id, cupy=True)
    import spacy
    import torch

    from ..benchmarks.pipelines import run_pipeline_benchmark
    from ..treebanks.conllu_reader import CorpusFormatError, read_conllu

    check_output(output)
    named = {}
    for path in config:
        if path.is_dir() and not (path / "config.cfg").is_file():
            raise typer.BadParameter(f"{path} is a folder without a config.cfg: give a training "
                                     "config or a trained pipeline's folder.", param_hint="CONFIG")
        name = pipeline_name(path)
        if name in named:
            raise typer.BadParameter(f"two configs are named {name!r} ({named[name]} "
                                     f"and {path}); rename one.", param_hint="CONFIG")
        named[name] = str(path)
    reference = reference or pipeline_name(config[0])
    if reference not in named:
        raise typer.BadParameter(f"{reference!r} is not one of the configs {list(named)}.",
                                 param_hint="--reference")
    try:
        read_conllu(data)
    except CorpusFormatError as err:
        raise typer.BadParameter(str(err), param_hint="DATA") from None
    if threads:
        torch.set_num_threads(threads)
    if gpu_id >= 0:
        spacy.require_gpu(gpu_id)
        memory = False
    rows = run_pipeline_benchmark(path=data, configs=named, max_words=max_words,
                                  train_words=train_words, repeats=repeats, memory=memory,
                                  reference=[reference],
                                  progress=lambda msg: typer.echo(msg, err=True))
    table = [[r["name"], r["mode"], f"{r['words']:,}", f"{r['words_per_second']:,.0f}",
              f"{r[f'vs_{reference}']:.2f}", _mib(r["peak_memory_bytes"])] for r in rows]
    typer.echo(_table(["config", "mode", "words", "words/s", f"x {reference}", "peak MiB"], table))
    _write(output, {"benchmark": "configs", "data": data.name, "reference": reference,
                    "configs": named,
                    "environment": _environment("cuda:0" if gpu_id >= 0 else "cpu"),
                    "rows": rows})


@benchmark_app.command("paper")
def paper(
    data: Path = typer.Argument(..., exists=True, dir_okay=False,
                                help="A CoNLL-U file with lemmas, e.g. UD English-EWT dev."),
    output: Optional[Path] = typer.Option(None, help="Write the results as JSON here."),
    model: List[str] = typer.Option([], help="Models of configs/paper/ (pos_brnn, the reference, is always timed); default: pos_rnn, pos_dbrnn, pos_seq2seq, pos_seq2seq_att."),
    cell: List[str] = typer.Option([], help="Cells; default: elstm."),
    configs: Path = typer.Option(Path("configs/paper"), exists=True, file_okay=False, help="The paper configs' folder."),
    max_words: int = typer.Option(2000, min=1, help="Words per timed pass (whole sentences from the start of DATA)."),
    repeats: int = typer.Option(3, min=1, help="Timed rounds; every run goes once per round and its median is kept."),
    train: Optional[Path] = typer.Option(None, exists=True, dir_okay=False, help="The training CoNLL-U file, to turn words/s into the hours of an 11-epoch paper training."),
    gpu_id: int = typer.Option(-1, help="GPU to run on; -1 for CPU."),
    threads: Optional[int] = typer.Option(None, help="torch.set_num_threads; default: torch's choice."),
) -> None:
    """Training and inference words/second of the paper-settings macro-models
    (configs/paper/), with ratios against the BRNN tagger measured in the same run."""
    check_gpu_or_fail("benchmark paper", gpu_id, cupy=True)
    import spacy
    import torch

    from ..benchmarks.paper import run_paper_benchmark
    from ..treebanks.conllu_reader import CorpusFormatError, read_conllu

    check_output(output)
    try:
        read_conllu(data)
        epoch_words = None if train is None else sum(len(d) for d in read_conllu(train))
    except CorpusFormatError as err:
        raise typer.BadParameter(str(err), param_hint="DATA or --train") from None
    if threads:
        torch.set_num_threads(threads)
    if gpu_id >= 0:
        spacy.require_gpu(gpu_id)
    models = model or ["pos_rnn", "pos_dbrnn", "pos_seq2seq", "pos_seq2seq_att"]
    try:
        rows = run_paper_benchmark(path=data, configs=configs, models=models,
                                   cells=cell or ["elstm"], max_words=max_words,
                                   repeats=repeats, epoch_words=epoch_words,
                                   device=f"cuda:{gpu_id}" if gpu_id >= 0 else "cpu",
                                   progress=lambda msg: typer.echo(msg, err=True))
    except ValueError as err:
        raise typer.BadParameter(str(err), param_hint="--model or --cell") from None
    table = [[r["model"], r["cell"], r["mode"], f"{r['words']:,}",
              f"{r['words_per_second']:,.0f}", f"{r['vs_pos_brnn']:.2f}",
              "-" if "paper_training_hours" not in r else f"{r['paper_training_hours']:.2f}"]
             for r in rows]
    typer.echo(_table(["model", "cell", "mode", "words", "words/s", "x pos_brnn",
                       "hours for 11 epochs"], table))
    _write(output, {"benchmark": "paper", "data": data.name, "epoch_words": epoch_words,
                    "environment": _environment("cuda:0" if gpu_id >= 0 else "cpu"),
                    "rows": rows})


@benchmark_app.command("lm")
def lm(
    output: Optional[Path] = typer.Option(None, help="Write the results as JSON here."),
    cell: List[str] = typer.Option([], help="Only these cells; default: lstm, gru, elstm, elstm2, srn."),
    repeats: int = typer.Option(5, min=1, help="Timed rounds; every model runs once per round and its median is kept."),
    updates: int = typer.Option(10, min=1, help="Training updates per timed pass."),
    gpu_id: int = typer.Option(-1, help="GPU to run on; -1 for CPU."),
    threads: Optional[int] = typer.Option(None, help="torch.set_num_threads; default: torch's choice."),
) -> None:
    """Training words/second of the small PTB language model on each cell, with
    the ratio against the same model on torch.nn.LSTM in the same run."""
    check_gpu_or_fail("benchmark lm", gpu_id, cupy=False)
    import torch

    from ..benchmarks.lm import CELLS as DEFAULT_CELLS
    from ..benchmarks.lm import REFERENCE, run_lm_benchmark
    from ..pytorch.cells import CELLS

    check_output(output)
    unknown = [c for c in cell if c not in CELLS]
    if unknown:
        raise typer.BadParameter(f"Unknown cell {unknown[0]!r}: choose one of "
                                 f"{', '.join(map(repr, CELLS))}.", param_hint="--cell")
    if threads:
        torch.set_num_threads(threads)
    device = "cpu" if gpu_id < 0 else f"cuda:{gpu_id}"
    rows = run_lm_benchmark(cells=cell or DEFAULT_CELLS, device=device, repeats=repeats,
                            updates=updates, progress=lambda msg: typer.echo(msg, err=True))
    typer.echo(_table(["model", "device", "words/s", f"x {REFERENCE}"],
                      [[r["name"], r["device"], f"{r['words_per_second']:,.0f}",
                        f"{r[f'vs_{REFERENCE}']:.2f}"] for r in rows]))
    _write(output, {"benchmark": "lm", "environment": _environment(device), "repeats": repeats,
                    "rows": rows})


@benchmark_app.command("parse")
def parse(
    model: str = typer.Argument(..., help="A pipeline: a package name or a folder."),
    input_path: Path = typer.Argument(..., metavar="INPUT", exists=True, dir_okay=False,
                                      help="A .txt or .jsonl file, or a .conllu file whose "
                                      "sentences' text is parsed (one a line)."),
    output: Optional[Path] = typer.Option(Path("metrics/bench-parse.json"),
                                          help="Write the results as JSON here."),
    n_process: int = typer.Option(2, min=2, help="Processes of the local run and Ray workers."),
    shard_size: int = typer.Option(1000, min=1, help="Docs per shard (one task each for Ray)."),
    batch_size: int = typer.Option(64, min=1, help="Docs per nlp.pipe batch."),
) -> None:
    """Words/second of `spacy-elstm parse` on INPUT with one process, --n-process
    N and the Ray backend with N workers, in one run (each in a fresh process,
    one torch thread per worker), with the Ray backend's overhead against local
    multiprocessing and each worker's peak RSS."""
    import tempfile

    from ..benchmarks.parse import run_parse_benchmark, text_of_conllu
    from ..parsing.plan import input_format
    from ..parsing.records import CorpusInputError
    from ..parsing.run import BackendError
    from ..parsing.ray_backend import import_ray
    from ..treebanks.conllu_reader import CorpusFormatError

    check_output(output)
    load_before = os.getloadavg()
    try:
        import_ray()
        fmt = input_format(input_path)
    except (BackendError, CorpusInputError) as err:
        raise typer.BadParameter(str(err), param_hint="INPUT or the cluster extra") from None
    with tempfile.TemporaryDirectory(prefix="bench-parse-input-") as folder:
        source = input_path
        if fmt == "conllu":
            try:
                source = text_of_conllu(input_path, Path(folder) / f"{input_path.stem}.txt")
            except CorpusFormatError as err:
                raise typer.BadParameter(str(err), param_hint="INPUT") from None
        result = run_parse_benchmark(model, source, n_process=n_process, shard_size=shard_size,
                                     batch_size=batch_size,
                                     progress=lambda msg: typer.echo(msg, err=True))
    rows = result["rows"]
    typer.echo(_table(["setting", "words", "words/s", "x 1 process", "parse s", "start s",
                       "peak MiB per worker"],
                      [[r["name"], f"{r['words']:,}", f"{r['words_per_second']:,.0f}",
                        f"{r['words_per_second'] / rows[0]['words_per_second']:.2f}",
                        f"{r['seconds']:.1f}",
                        f"{r.get('cluster_start_seconds', r.get('load_seconds', 0)):.1f}",
                        ", ".join(_mib(b) for b in r["worker_peak_rss_bytes"])] for r in rows]))
    ratios = result["ratios"]
    typer.echo(f"--n-process {n_process} / 1 process: {ratios['n_process_vs_one']:.2f} "
               f"(target >= 1.6); Ray / --n-process {n_process}: "
               f"{ratios['ray_vs_n_process']:.2f} (target >= 0.8); the machine's ceiling, "
               f"{n_process} busy loops at once: "
               f"{result['machine_parallel_speedup']['speedup']:.2f}x one")
    _write(output, {"benchmark": "parse", "model": _shown(model),
                    "data": input_path.name, "input_format": fmt, "n_process": n_process,
                    "shard_size": shard_size, "batch_size": batch_size,
                    "environment": {**_environment("cpu"), "cpus": os.cpu_count(),
                                    "load_average_before": load_before,
                                    "load_average_after": os.getloadavg()},
                    **result})


def _shown(model: str) -> str:
    """A pipeline as the metrics file names it: its path below the current
    folder, else its last three parts (no machine's own folders)."""
    path = Path(model)
    if not path.exists():
        return model  # a package name
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return "/".join(path.resolve().parts[-3:])
