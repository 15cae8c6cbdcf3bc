"""Loading a pipeline by package name or folder, with one-line errors.

spaCy reports a damaged pipeline (a weights file truncated by an interrupted
copy, or overwritten) with a long traceback that names no file. Here the
pipeline's files are read one by one in the format spaCy reads them with, so
the error names the broken file, the component it belongs to, and the fix:
copy the pipeline folder again."""
from pathlib import Path
from typing import Optional, Union

import srsly

MSGPACK_FILES = ("model", "moves", "key2row", "lookups.bin", "vectors", "cfg")


class PipelineLoadError(ValueError):
    """A pipeline that cannot be found or read; the message is one line."""


def pipeline_folder(model: Union[str, Path]) -> Path:
    """The folder a pipeline loads from: MODEL itself, or an installed
    package's data folder (where spacy.load of its name reads)."""
    import spacy

    if Path(model).is_dir():
        return Path(model)
    name = str(model)
    if not spacy.util.is_package(name):
        raise PipelineLoadError(f"{model}: no such pipeline folder or installed package.")
    package = spacy.util.get_package_path(name)
    meta = spacy.util.get_model_meta(package)
    data = package / f"{meta['lang']}_{meta['name']}-{meta['version']}"
    return data if data.is_dir() else package


def broken_file(folder: Path) -> Optional[str]:
    """The first file of the pipeline folder that cannot be read as spaCy
    reads it, as `<file>: <why>`, or None when every file reads."""
    from thinc.api import Config

    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder).as_posix()
        if "__pycache__" in path.parts or path.suffix in (".py", ".pyc"):
            continue
        try:
            if path.name == "config.cfg":
                Config().from_disk(path)
            elif path.suffix == ".json":
                srsly.read_json(path)
            elif path.name in MSGPACK_FILES and path.stat().st_size:
                _check_msgpack(path)
        except Exception as err:  # any reader's error means the file is damaged
            return f"{relative}: {_reason(err)}"
    return None


def _check_msgpack(path: Path) -> None:
    """A weights or settings file: msgpack (a JSON `cfg` is checked as JSON)."""
    data = path.read_bytes()
    if path.name == "cfg" and data.lstrip()[:1] == b"{":
        srsly.json_loads(data)
    elif path.name == "vectors" and data[:6] == b"\x93NUMPY":
        return
    else:
        srsly.msgpack_loads(data)


def _reason(err: Exception) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return f"{type(err).__name__}: {lines[-1] if lines else 'unreadable'}"


def damaged(model: Union[str, Path], folder: Path, problem: str) -> PipelineLoadError:
    """The one-line error for a pipeline whose file `problem` names."""
    relative = problem.split(":", 1)[0]
    part = relative.split("/", 1)[0] if "/" in relative else None
    owner = "" if part is None else " (the vocab)" if part == "vocab" else f" (component {part})"
    return PipelineLoadError(f"{model}: the pipeline is damaged: {folder / relative}{owner} "
                             f"cannot be read ({problem.split(': ', 1)[1]}); copy the pipeline "
                             "folder again.")


def check_pipeline(model: Union[str, Path]) -> Path:
    """The pipeline's folder, every file of it readable; PipelineLoadError
    otherwise (used where workers load the pipeline, before they start)."""
    folder = pipeline_folder(model)
    problem = broken_file(folder)
    if problem:
        raise damaged(model, folder, problem)
    return folder


def load_pipeline(model: Union[str, Path], **kwargs):
    """spacy.load(model), with a one-line PipelineLoadError naming the
    damaged file (and its component) where spaCy cannot read the pipeline."""
    import spacy

    folder = pipeline_folder(model)
    try:
        return spacy.load(model, **kwargs)
    except Exception as err:
        problem = broken_file(folder)
        if problem:
            raise damaged(model, folder, problem) from None
        raise PipelineLoadError(f"{model}: cannot load the pipeline ({_reason(err)}).") from None
