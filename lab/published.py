"""Published scores of other parsers on our UD treebanks, quoted from their sources.

`published_scores.json` holds, for each treebank folder (`UD_Vietnamese-VTB`, ...), the
raw-text scores that Stanza, UDPipe 1 and UDPipe 2 publish, each with the UD release it was
measured on and where it was read. They are quoted, never measured here: the report prints
them beside our own, with their UD versions.
"""
import json
from pathlib import Path
from typing import Any, Dict, Union

DEFAULT = Path(__file__).with_name("published_scores.json")

# The CoNLL 2018 script's metrics, as the sources name them
METRICS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas",
           "UAS", "LAS", "CLAS", "MLAS", "BLEX")
ENTRY_KEYS = ("system", "version", "ud_version", "source", "setting", "scores")


def published_scores(path: Union[str, Path] = DEFAULT) -> Dict[str, Any]:
    """The file's contents: `about`, `notes` and `treebanks` (folder name -> list of
    entries, each with system, version, ud_version, source, setting and scores).
    Raises ValueError naming the file and the key of the first malformed entry."""
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("treebanks"), dict):
        raise ValueError(f"{path}: expected an object with a 'treebanks' object")
    if not isinstance(data.get("notes", []), list):
        raise ValueError(f"{path}: 'notes' should be a list of strings")
    for treebank, entries in data["treebanks"].items():
        if not isinstance(entries, list) or not entries:
            raise ValueError(f"{path}: treebanks.{treebank} should be a non-empty list of entries")
        for i, entry in enumerate(entries):
            _check_entry(entry, f"{path}: treebanks.{treebank}[{i}]")
    return data


def _check_entry(entry: Any, where: str) -> None:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected an object")
    missing = [key for key in ENTRY_KEYS if key not in entry]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(missing)}")
    for key in ("system", "version", "ud_version", "setting"):
        if not isinstance(entry[key], str) or not entry[key]:
            raise ValueError(f"{where}.{key}: expected a non-empty string")
    source = entry["source"]
    if not isinstance(source, dict) or not (
            "url" in source or all(k in source for k in ("repository", "path", "commit"))):
        raise ValueError(f"{where}.source: expected repository, path and commit, or a url")
    scores = entry["scores"]
    if not isinstance(scores, dict) or not scores:
        raise ValueError(f"{where}.scores: expected a non-empty object")
    for metric, value in scores.items():
        if metric not in METRICS:
            raise ValueError(f"{where}.scores.{metric}: unknown metric "
                             f"(known: {', '.join(METRICS)})")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100:
            raise ValueError(f"{where}.scores.{metric}: expected a number from 0 to 100, "
                             f"got {value!r}")
