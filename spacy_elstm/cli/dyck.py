"""`spacy-elstm dyck`: language models on m-bounded Dyck-2, scored by LDPA and WCPA."""
from pathlib import Path
from typing import List, Optional

import typer

from .errors import fail


def dyck(
    output_dir: Path = typer.Argument(..., help="Write NAME.json and NAME-ldpa.png here."),
    m: List[int] = typer.Option([4, 6, 8], "--m", help="The bound m (repeat for several)."),
    cell: List[str] = typer.Option(["lstm", "elstm", "solstm"], "--cell",
                                   help="lstm, elstm or solstm (repeat for several)."),
    seed: List[int] = typer.Option([0], "--seed", help="Seeds of data and model (repeat)."),
    paper_size: bool = typer.Option(
        False, "--paper-size", help="The paper's sizes: 10,000 / 4,000 / 10,000 strings up to "
        "200 long, Adam at 1e-4, up to 100 epochs (hours on a CPU)."),
    train: Optional[int] = typer.Option(None, help="Training strings (default 1,000)."),
    dev: Optional[int] = typer.Option(None, help="Dev strings (default 400)."),
    test: Optional[int] = typer.Option(None, help="Test strings (default 1,000)."),
    max_length: Optional[int] = typer.Option(None, help="Longest string, in brackets (default 60)."),
    epochs: Optional[int] = typer.Option(None, help="Most epochs (default 10)."),
    learn_rate: Optional[float] = typer.Option(None, help="Adam's learning rate (default 0.01)."),
    solstm_cells: Optional[int] = typer.Option(None, help="S, the cells of the second-order LSTM (default 2)."),
    name: str = typer.Option("dyck", help="The output files' name: NAME.json, NAME-ldpa.png "
                             "(another seed's run can sit beside the first). A NAME.json of "
                             "the same settings is resumed: its models are kept, a model "
                             "stopped midway goes on from its last epoch "
                             "(NAME.checkpoints/)."),
    progress: bool = typer.Option(True, help="Show a progress bar."),
) -> None:
    """Train next-symbol language models on m-bounded Dyck-2 strings (seeded) with the
    LSTM, the ELSTM and the second-order LSTM, and score closing-bracket prediction
    per closing distance (LDPA) and at its worst (WCPA), as the second-order LSTM
    paper's Sec. 4 does. The default size runs on one CPU thread in minutes:
    1,000 / 400 / 1,000 strings up to 60 symbols, 10 epochs, Adam at 0.01."""
    from dataclasses import replace
    import json

    from ..dyck.experiment import OtherSettings, Settings, plot, run
    from ..files import write_atomically
    from .errors import require_matplotlib

    require_matplotlib("dyck", "NAME-ldpa.png")
    given = {k: v for k, v in dict(train=train, dev=dev, test=test, max_length=max_length,
                                    epochs=epochs, learn_rate=learn_rate,
                                    solstm_cells=solstm_cells).items() if v is not None}
    base = Settings.paper() if paper_size else Settings()
    try:
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"--name must be a plain file name, got {name!r}.")
        settings = replace(base, ms=tuple(m), cells=tuple(cell), seeds=tuple(seed),
                           **given).check()
        output_dir.mkdir(parents=True, exist_ok=True)
    except (ValueError, OSError) as err:
        fail("dyck", err)
    path, image = output_dir / f"{name}.json", output_dir / f"{name}-ldpa.png"
    previous = None
    if path.exists():
        try:
            previous = json.loads(path.read_text(encoding="utf8"))
            if not isinstance(previous, dict) or not isinstance(previous.get("runs"), list):
                raise ValueError("it holds no runs")
        except (ValueError, OSError) as err:
            fail("dyck", f"{path}: not the results of an earlier run ({err}); give another "
                         f"--name or remove it.")

    def save(results) -> None:
        write_atomically(path, (json.dumps(results, indent=1) + "\n").encode("utf8"))

    try:
        results = run(settings, progress=progress, done=save, previous=previous,
                      checkpoints=output_dir / f"{name}.checkpoints")
    except OtherSettings as err:
        fail("dyck", f"{path} {err}; give another --name, or remove it to start again.")
    except ValueError as err:  # a checkpoint of another model or other settings
        fail("dyck", err)
    plot(results, image)
    for r in results["runs"]:
        typer.echo(f"m={r['m']} {r['cell']:6} seed {r['seed']}: test ppl {r['test']['ppl']:.3f}, "
                   f"WCPA {r['test']['wcpa']:.3f}, accuracy {r['test']['accuracy']:.3f} "
                   f"({r['epochs']} epochs, {r['train_seconds']:.0f} s)")
    typer.echo(f"wrote {path} and {image}")
