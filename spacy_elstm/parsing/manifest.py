"""The output folder of `spacy-elstm parse` and its run manifest.

`OUTPUT_DIR/manifest.json` records the plan a run's shards come from: each
input file (its path below the input root, size and SHA-256), the pipeline
(its folder and a hash of its files: meta, config and weights) and the options
that decide what goes in a shard (shard size, output format, input format,
--max-length, the text unit and the input mode). A rerun with the same plan
resumes; a different plan stops with one line saying what changed, and
`--force` removes the old shards and starts over, so one folder never holds
shards of two plans."""
import glob
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from ..files import write_atomically

MANIFEST_FILE = "manifest.json"
ERRORS_FILE = "errors.jsonl"
MANIFEST_VERSION = 2  # 2: a text longer than --max-length is cut into pieces, not failed
SHARD_NAME = re.compile(r"^.+-[0-9a-f]{8}-\d{5}\.(spacy|conllu|jsonl)$")
OPTIONS = {"shard_size": "--shard-size", "out_format": "--format",
           "in_format": "--input-format", "max_length": "--max-length",
           "text_unit": "--text-unit",
           "input_mode": "the input mode (--presegmented, --pretokenized)"}
# what a manifest written before an option existed ran with: one doc a line, raw text
EARLIER_OPTIONS = {"text_unit": "line", "input_mode": "raw"}
BLOCK = 1 << 20


class PlanChangedError(ValueError):
    """OUTPUT_DIR holds shards of another plan; the message says what changed."""


class OutputDirError(ValueError):
    """OUTPUT_DIR cannot receive shards; the message is one line."""


def input_root(source: Union[str, Path]) -> Path:
    """The folder input paths are named from: a folder itself, a file's
    folder, or a glob's folder before its first wildcard. Shard names and the
    manifest use paths below it, so they do not depend on the working folder."""
    path = Path(source)
    if path.is_dir():
        return path
    if path.is_file():
        return path.parent
    parts = []
    for part in path.parts:
        if glob.has_magic(part):
            break
        parts.append(part)
    return Path(*parts) if parts else Path(".")


def relative_name(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def file_hash(path: Path) -> str:
    """SHA-256 of a file, read a block at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def folder_hash(folder: Path) -> str:
    """SHA-256 over a folder's files (their paths and bytes), Python caches left out."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if "__pycache__" in path.parts or path.suffix == ".pyc":
            continue
        digest.update(path.relative_to(folder).as_posix().encode("utf8") + b"\0")
        digest.update(file_hash(path).encode("ascii"))
    return digest.hexdigest()


def model_identity(nlp_or_model: Any) -> Dict[str, str]:
    """{"path", "hash"} of a pipeline given by name, folder or loaded object
    (one built in memory, with no folder: the hash of its bytes)."""
    from .pipelines import pipeline_folder

    if isinstance(nlp_or_model, (str, Path)):
        folder: Optional[Path] = pipeline_folder(nlp_or_model)
    else:
        folder = Path(nlp_or_model.path) if getattr(nlp_or_model, "path", None) else None
    if folder is not None and folder.is_dir():
        return {"path": str(folder.resolve()), "hash": folder_hash(folder)}
    return {"path": "(in memory)", "hash": hashlib.sha256(nlp_or_model.to_bytes()).hexdigest()}


def build_manifest(files: List[Path], root: Path, model: Dict[str, str],
                   options: Dict[str, Any]) -> Dict[str, Any]:
    return {"version": MANIFEST_VERSION,
            "inputs": [{"path": relative_name(p, root), "size": p.stat().st_size,
                        "sha256": file_hash(p)} for p in files],
            "model": model,
            "options": {key: options[key] for key in OPTIONS}}


def changes(old: Dict[str, Any], new: Dict[str, Any]) -> List[str]:
    """What differs between two plans, in words (empty: the same plan)."""
    if old.get("version") != new["version"]:
        return [f"manifest version {old.get('version')} (another version of spacy-elstm)"]
    found = []
    for key, option in OPTIONS.items():
        if old["options"].get(key) != new["options"][key]:
            found.append(f"{option} was {old['options'].get(key)}, now {new['options'][key]}")
    before = {i["path"]: i for i in old["inputs"]}
    after = {i["path"]: i for i in new["inputs"]}
    for name in sorted(set(before) - set(after)):
        found.append(f"input {name} is gone")
    for name in sorted(set(after) - set(before)):
        found.append(f"input {name} is new")
    for name in sorted(set(before) & set(after)):
        if before[name]["sha256"] != after[name]["sha256"]:
            found.append(f"input {name} changed ({before[name]['size']} bytes, now "
                         f"{after[name]['size']})")
    if old["model"]["hash"] != new["model"]["hash"]:
        found.append(f"the pipeline changed (was {old['model']['path']}, now "
                     f"{new['model']['path']}, with other files)")
    return found


def _changed(old: Dict[str, Any], new: Dict[str, Any]) -> str:
    try:
        return "; ".join(changes(old, new)) or "the same plan written differently"
    except (KeyError, TypeError, AttributeError):
        return f"an unreadable {MANIFEST_FILE}"


def check_output_dir(output_dir: Union[str, Path]) -> Path:
    """Make OUTPUT_DIR if needed and check that files can be written in it,
    before any work; OutputDirError otherwise."""
    folder = Path(output_dir)
    if folder.exists() and not folder.is_dir():
        raise OutputDirError(f"OUTPUT_DIR {folder} is a file: give a folder (new or one "
                             "this command wrote).")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomically(folder / ".write-test", b"")
        (folder / ".write-test").unlink()
    except OSError as err:
        raise OutputDirError(f"OUTPUT_DIR {folder} cannot be written: "
                             f"{err.strerror or err}.") from None
    return folder


def old_shards(folder: Path) -> List[Path]:
    return [p for p in folder.iterdir() if p.is_file() and (
        SHARD_NAME.match(p.name) or p.name == ERRORS_FILE
        or (p.name.startswith(".") and p.name.endswith(".tmp")))]


def start_or_resume(output_dir: Union[str, Path], manifest: Dict[str, Any], force: bool) -> None:
    """Resume when OUTPUT_DIR's manifest is this plan; with `force`, or in a
    folder with no shards, start over (old shards removed) and write the
    manifest; otherwise PlanChangedError naming what changed."""
    folder = Path(output_dir)
    path = folder / MANIFEST_FILE
    old: Optional[Dict[str, Any]] = None
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf8"))
        except (ValueError, UnicodeDecodeError):
            old = {"version": "unreadable"}
        if isinstance(old, dict) and isinstance(old.get("options"), dict):
            old["options"] = {**EARLIER_OPTIONS, **old["options"]}
    shards = old_shards(folder)
    if old == manifest:
        return
    if not force and (old is not None or shards):
        what = _changed(old, manifest) if old is not None else \
            f"{len(shards)} shards and no {MANIFEST_FILE}"
        raise PlanChangedError(
            f"OUTPUT_DIR {folder} holds the shards of another plan ({what}): rerun with the "
            "same input, pipeline and options to resume, add --force to remove those shards "
            "and start over, or give another OUTPUT_DIR.")
    for shard in shards:
        shard.unlink()
    write_atomically(path, (json.dumps(manifest, indent=1) + "\n").encode("utf8"))


def is_inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
        return True
    except ValueError:
        return False
