"""Writing files whole or not at all."""
import json
import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, then rename it to `path`,
    so an interrupted or failed write leaves the old file (or none), never half
    a new one. The file keeps the old one's permissions (a new one gets the
    usual ones, not mkstemp's owner-only mode)."""
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.chmod(temp, path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~_umask())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data) -> None:
    """`data` as indented JSON, written whole into `path` (its folder made)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, (json.dumps(data, indent=2) + "\n").encode("utf8"))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
