"""`spacy-elstm memory`: the ELSTM paper's memory analysis (Sec. 2, 3.1)."""
import json
import re
from pathlib import Path
from typing import Any, Callable, List

import typer

memory_app = typer.Typer(help="Memory responses of trained cells, and the 'A among Bs' "
                              "experiment of the ELSTM paper.", no_args_is_help=True)


def _ints(option: str, text: str) -> List[int]:
    return _numbers(option, text, int, "integers")


def _floats(option: str, text: str) -> List[float]:
    return _numbers(option, text, float, "numbers")


def _numbers(option: str, text: str, kind: Callable[[str], Any], described: str) -> List:
    """The values of a comma-separated option, each read by ``kind``."""
    try:
        values = [kind(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"{option} takes {described} separated by commas, got {text!r}.")
    if not values:
        raise ValueError(f"{option} is empty.")
    return values


_NUMBERS = re.compile(r"\[[-+0-9.eE,\s]*\]")  # a list of numbers only, over lines


def _write_json(path: Path, data, compact: bool = False) -> None:
    """``data`` indented; with ``compact``, each list of numbers on one line
    (for data with no strings that hold brackets)."""
    from ..files import write_atomically

    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=1)
    if compact:
        text = _NUMBERS.sub(lambda m: "[" + " ".join(m.group(0)[1:-1].split()) + "]", text)
    write_atomically(path, (text + "\n").encode("utf8"))


@memory_app.command("response")
def response_command(
    model: str = typer.Argument(..., help="A spaCy pipeline (a package name or a folder), or "
                                          "a detector that `memory among-bs` saved (.pt)."),
    text: str = typer.Argument(..., help="The input: a sentence for a pipeline, a string of "
                                         "A and B for a detector (e.g. BBBBBBBBAB)."),
    component: str = typer.Option("tok2vec", help="The pipeline component whose encoder to read."),
    layer: int = typer.Option(0, help="The encoder's layer, from 0 at the bottom."),
    direction: str = typer.Option("forward", help="forward or backward (a backward layer's "
                                                  "output is the one at the first token)."),
    jacobian: bool = typer.Option(True, help="Also compute |dh_T / dx_k| by autograd."),
    output: Path = typer.Option(Path("memory-response"), "--output",
                                help="Folder for response.json and response.png."),
) -> None:
    """The memory response of each position of TEXT to a layer's last output.

    Eqs. 26-27 of the ELSTM paper (and the GRU's and SRN's forms), the products
    of the gate values of a forward pass; the scaling factors s_k at each
    position; the Jacobian norms |dh_T / dx_k|. Writes response.json and
    response.png."""
    from .errors import fail, require_matplotlib

    require_matplotlib("memory response", "response.png")
    try:
        import torch

        from ..memory.response import analyse

        if model.endswith(".pt"):
            from ..memory.among_bs import encode, load_detector

            if (component, layer, direction) != ("tok2vec", 0, "forward"):
                raise ValueError("a detector has one forward layer: leave out --component, "
                                 "--layer and --direction.")
            detector = load_detector(Path(model))
            tokens = encode(text)
            with torch.no_grad():
                x = detector.embed(tokens)
            rnn, labels = detector.rnn, ["A" if int(t) == 0 else "B" for t in tokens]
            where = {"model": str(model)}
        else:
            from ..memory.pipeline import DIRECTIONS, choose, layer_input
            from ..parsing.pipelines import load_pipeline

            if direction not in DIRECTIONS:
                raise ValueError(f"--direction {direction!r}: choose 'forward' or 'backward'.")
            nlp = load_pipeline(model)
            thinc_model, rnn = choose(nlp, component, layer, direction)
            doc = nlp.make_doc(text)
            if len(doc) == 0:
                raise ValueError("the text has no tokens.")
            x = layer_input(thinc_model, rnn, doc)
            labels = [t.text for t in doc]
            where = {"pipeline": str(model), "component": component, "layer": layer}
        result = analyse(rnn, x, jacobian=jacobian)
        result.update(where, tokens=labels, text=text)
        _write_json(output / "response.json", result)
        from ..memory.plots import response_plot

        response_plot(result, output / "response.png", labels)
    except (ValueError, OSError) as err:
        fail("memory response", err)
    typer.echo(f"wrote {output / 'response.json'} and {output / 'response.png'}")


@memory_app.command("among-bs")
def among_bs_command(
    cells: str = typer.Option("lstm,gru,elstm,elstm2", help="Cells, separated by commas."),
    lengths: str = typer.Option("10,20,40,60,80,100", help="Sequence lengths T, by commas."),
    seeds: int = typer.Option(3, help="Seeds per cell and T (0, 1, ...)."),
    max_updates: int = typer.Option(3000, help="Updates (batches) at most per run."),
    patience: int = typer.Option(1500, help="Stop after this many updates without a relative "
                                           "improvement of --min-improvement in the loss."),
    min_improvement: float = typer.Option(0.01, help="Relative loss improvement that counts."),
    solved_loss: float = typer.Option(0.01, help="A run whose final training loss is below "
                                                 "this solved T."),
    stop_loss: float = typer.Option(None, help="Stop below this training loss (at most "
                                               "--solved-loss, which it defaults to): a lower "
                                               "one trains a solved model on to a margin."),
    learn_rate: float = typer.Option(0.05, help="The optimiser's learning rate."),
    optimizer: str = typer.Option("adam", help="adam, rmsprop or sgd (SGD with momentum 0.9)."),
    warm_start: bool = typer.Option(False, help="Start each T's model from the same cell's "
                                                "and seed's model of the previous T (the "
                                                "paper's raising of T), not afresh."),
    step: int = typer.Option(0, help="Also train every STEP-th T from the first length to the "
                                     "last (1: T raised one at a time, as in the paper); 0: "
                                     "only the listed lengths."),
    hidden: int = typer.Option(1, "--hidden", help="The cell's hidden width (units). The "
                               "paper's Table 2 ('Number of RNN cells 1') is read as one unit; "
                               "it may also mean one cell (layer) of a width the paper does not "
                               "give, so wider cells can be tried here."),
    loss_every: int = typer.Option(1, help="Keep the training loss of every N-th epoch in the "
                                           "JSON (and the last epoch's): a smaller file."),
    output: Path = typer.Option(Path("memory-among-bs"), "--output",
                                help="Folder for among-bs.json, the PNGs, runs.jsonl and models/."),
    progress: bool = typer.Option(True, help="Show a progress bar (updates)."),
) -> None:
    """The 'A among Bs' experiment of the ELSTM paper (Sec. 3.1, Table 2).

    For each T: T sequences with one A at positions 1..T and one of Bs only;
    one layer of --hidden units (default one), embeddings of size 2, batches
    of 5. Reports per cell and T whether the training loss reaches
    --solved-loss, over seeds, and the memory responses of Fig. 5 (T = 10
    with A at 9, T = 60 with A at 30).
    Writes among-bs.json, loss.png, response-T<T>.png, runs.jsonl and models/."""
    from .errors import fail, require_matplotlib

    require_matplotlib("memory among-bs", "loss.png")
    try:
        import torch

        from ..memory.among_bs import Settings, sweep
        from ..memory.plots import loss_plot, sample_plot

        torch.set_num_threads(1)
        for option, value in (("--hidden", hidden), ("--loss-every", loss_every)):
            if value < 1:
                raise ValueError(f"{option} must be an integer >= 1, got {value}.")
        settings = Settings(
            cells=tuple(c.strip() for c in cells.split(",") if c.strip()),
            lengths=tuple(_ints("--lengths", lengths)), seeds=seeds, max_updates=max_updates,
            patience=patience, min_improvement=min_improvement, solved_loss=solved_loss,
            stop_loss=stop_loss, learn_rate=learn_rate, optimizer=optimizer, warm_start=warm_start, step=step,
            hidden_width=hidden, loss_every=loss_every).check()

        def bar(total):
            from tqdm import tqdm

            pbar = tqdm(total=total, desc="among-bs", unit="update", disable=not progress,
                        dynamic_ncols=True)
            return pbar.update

        output.mkdir(parents=True, exist_ok=True)
        log = output / "runs.jsonl"  # each run as it ends, for a sweep cut short
        log.write_text("")

        def on_run(record):
            with log.open("a", encoding="utf8") as handle:
                handle.write(json.dumps({k: v for k, v in record.items() if k != "losses"}) + "\n")

        result = sweep(settings, bar, models=output / "models", on_run=on_run)
        _write_json(output / "among-bs.json", result, compact=True)
        written = [output / "among-bs.json", loss_plot(result["summary"], output / "loss.png")]
        for length, position in settings.samples:
            found = [r for r in result["responses"] if r["T"] == length and r["position"] == position]
            if found:
                written.append(sample_plot(found, output / f"response-T{length}.png"))
    except (ValueError, OSError) as err:
        fail("memory among-bs", err)
    for row in result["summary"]:
        if row["T"] not in settings.lengths:
            continue
        typer.echo(f"T={row['T']:>4} {row['cell']:>7}: solved {row['solved']}/{row['seeds']}, "
                   f"loss {row['loss_mean']:.4f} (min {row['loss_min']:.4f}, max "
                   f"{row['loss_max']:.4f}; constant guess {row['constant_loss']:.4f})")
    typer.echo("wrote " + ", ".join(str(p) for p in written))


def _words(text: str) -> List[str]:
    return [w.strip() for w in text.split(",") if w.strip()]


@memory_app.command("among-bs-grid")
def among_bs_grid_command(
    lengths: str = typer.Option("2,20,40", help="Lengths T to count solved seeds at, rising."),
    step: int = typer.Option(1, help="A warm start trains every STEP-th T between them."),
    seeds: int = typer.Option(5, help="Seeds per combination (0, 1, ...)."),
    optimizers: str = typer.Option("adam,sgd", help="Optimisers, by commas (adam, rmsprop, sgd)."),
    learn_rates: str = typer.Option("0.01,0.05", help="Learning rates, by commas."),
    starts: str = typer.Option("scratch,warm", help="scratch (each T afresh) and/or warm (each "
                                                    "T from the previous T's model)."),
    max_updates: int = typer.Option(3000, help="Updates (batches) at most per run."),
    patience: int = typer.Option(1500, help="Stop after this many updates without a relative "
                                           "improvement of --min-improvement in the loss."),
    min_improvement: float = typer.Option(0.01, help="Relative loss improvement that counts."),
    solved_loss: float = typer.Option(0.01, help="A final training loss below this solved T."),
    stop_loss: float = typer.Option(None, help="Stop below this training loss (default: "
                                               "--solved-loss)."),
    output: Path = typer.Option(Path("memory-among-bs-grid"), "--output",
                                help="Folder for among-bs-grid.json and runs.jsonl."),
    progress: bool = typer.Option(True, help="Show a progress bar (updates)."),
) -> None:
    """Choose the 'A among Bs' training settings on the LSTM alone.

    Runs the LSTM (one unit) under every optimiser x learning rate x start and
    counts the seeds that solved each of --lengths; picks the combination that
    solves the longest T in most seeds. Writes among-bs-grid.json and runs.jsonl."""
    from .errors import fail

    try:
        import torch

        from ..memory.among_bs import Settings
        from ..memory.grid import grid

        torch.set_num_threads(1)
        settings = Settings(
            cells=("lstm",), lengths=tuple(_ints("--lengths", lengths)), seeds=seeds,
            step=step, max_updates=max_updates, patience=patience,
            min_improvement=min_improvement, solved_loss=solved_loss, stop_loss=stop_loss,
            samples=()).check()
        chosen_optimizers = _words(optimizers)
        for name in chosen_optimizers or [""]:
            Settings(optimizer=name).check()
        rates = _floats("--learn-rates", learn_rates)

        def bar(total):
            from tqdm import tqdm

            return tqdm(total=total, desc="among-bs-grid", unit="update", disable=not progress,
                        dynamic_ncols=True).update

        output.mkdir(parents=True, exist_ok=True)
        log = output / "runs.jsonl"
        log.write_text("")

        def on_run(record):
            with log.open("a", encoding="utf8") as handle:
                handle.write(json.dumps({k: v for k, v in record.items() if k != "losses"}) + "\n")

        result = grid(settings, chosen_optimizers, rates, _words(starts), on_run=on_run,
                      progress=bar)
        _write_json(output / "among-bs-grid.json", result, compact=True)
    except (ValueError, OSError) as err:
        fail("memory among-bs-grid", err)
    for row in result["grid"]:
        solved = ", ".join(f"T={t}: {n}/{row['seeds']}" for t, n in row["solved"].items())
        typer.echo(f"{row['optimizer']:>7} lr {row['learn_rate']:<6g} {row['start']:>7}: {solved}")
    chosen = result["chosen"]
    typer.echo(f"chosen: {chosen['optimizer']} at {chosen['learn_rate']:g}, {chosen['start']}")
    typer.echo(f"wrote {output / 'among-bs-grid.json'}")
