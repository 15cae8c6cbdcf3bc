"""A training logger that keeps, beside spaCy's console table, a JSONL record
of every evaluation with the wall time and words seen, so that reports can say
how long a model trained."""
import json
from pathlib import Path
from typing import IO, Any, Callable, Dict, Optional, Tuple, Union

from spacy.training.loggers import console_logger_v3
from spacy.util import registry

LOGGER = "spacy-elstm.TrainingLog.v1"


@registry.loggers(LOGGER)
def training_log(
    output_file: Optional[Union[str, Path]] = None,
    progress_bar: Optional[str] = "eval",
) -> Callable:
    """spaCy's ConsoleLogger.v3 table, plus one JSON line per evaluation.

    output_file (Optional[Union[str, Path]]): Where to write the JSON lines (epoch, step,
        words, seconds, score, scores, losses); None writes none.
    progress_bar (Optional[str]): "eval", "train" or None, as for spacy.ConsoleLogger.v3.
    """
    console = console_logger_v3(progress_bar=progress_bar, console_output=True)

    def setup(nlp, stdout: IO = None, stderr: IO = None) -> Tuple[Callable, Callable]:
        import sys

        log_console, finalize_console = console(nlp, stdout or sys.stdout, stderr or sys.stderr)
        stream = None
        if output_file is not None:
            path = Path(output_file)
            path.parent.mkdir(parents=True, exist_ok=True)
            stream = path.open("w", encoding="utf8")

        def log_step(info: Optional[Dict[str, Any]]) -> None:
            log_console(info)
            if info is None or stream is None:
                return
            record = {
                "epoch": info["epoch"],
                "step": info["step"],
                "words": info["words"],
                "seconds": info["seconds"],
                "score": float(info["score"]),
                "scores": {k: v for k, v in info["other_scores"].items()
                           if isinstance(v, (int, float))},
                "losses": {k: float(v) for k, v in info["losses"].items()},
            }
            stream.write(json.dumps(record) + "\n")
            stream.flush()

        def finalize() -> None:
            finalize_console()
            if stream is not None:
                stream.close()

        return log_step, finalize

    return setup
