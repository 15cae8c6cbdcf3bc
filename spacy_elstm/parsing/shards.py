"""The last step of `spacy-elstm parse`'s route (plan → read → run → write):
a chunk's parsed docs serialized as its output shard (a DocBin, CoNLL-U by the
one writer of `treebanks/conllu_writer.py`, or JSONL) and written whole, and
the run's `errors.jsonl`.
"""
import json
from pathlib import Path
from typing import Any, Dict, List, Union

from spacy.tokens import Doc, DocBin

from ..files import write_atomically
from ..treebanks.conllu_writer import doc_to_conllu
from .manifest import ERRORS_FILE

def write_shard(shard: Path, docs: List[Doc], out_format: str) -> None:
    write_atomically(shard, _serialize(docs, out_format, shard.stem))


def _serialize(docs: List[Doc], out_format: str, shard: str = "doc") -> bytes:
    if out_format == "spacy":
        return DocBin(docs=docs, store_user_data=True).to_bytes()
    if out_format == "jsonl":
        return "".join(json.dumps(doc_to_json(doc), ensure_ascii=False) + "\n"
                       for doc in docs).encode("utf8")
    return "".join(doc_to_conllu(doc, doc_id=_doc_id(doc, shard, k))[0]
                   for k, doc in enumerate(docs)).encode("utf8")


def _doc_id(doc: Doc, shard: str, k: int) -> str:
    """`# newdoc id`: the record's "id" field, else (none, or blank) the shard's
    name and the doc's place in it, so sent_ids are unique; a piece of a text
    cut by --max-length adds `-piece<n>` (the pieces of one JSONL record share
    its id)."""
    value = doc.user_data.get("id")
    name = str(value) if value is not None and str(value).strip() else f"{shard}-{k + 1}"
    piece = doc.user_data.get("piece")
    return f"{name}-piece{piece}" if piece else name


def doc_to_json(doc: Doc) -> Dict[str, Any]:
    """The doc's extra input fields, then its text, tokens, tags, heads
    (absolute token indices) and relations, and its sentences as token spans."""
    record = {str(k): v for k, v in doc.user_data.items() if isinstance(k, str)}
    record.update({
        "text": doc.text,
        "tokens": [t.text for t in doc],
        "tags": [t.tag_ for t in doc],
        "heads": [t.head.i for t in doc],
        "deps": [t.dep_ for t in doc],
        "sents": [[s.start, s.end] for s in doc.sents] if doc.has_annotation("SENT_START") else [],
    })
    return record


def write_errors(output_dir: Union[str, Path], errors: List[Dict[str, Any]]) -> str:
    """`errors.jsonl` lists this run's bad input (a clean run removes an old
    one); its path, or "" when there is none."""
    errors_path = Path(output_dir) / ERRORS_FILE
    if errors:
        write_atomically(errors_path, "".join(json.dumps(e, ensure_ascii=False) + "\n"
                                              for e in errors).encode("utf8"))
        return str(errors_path)
    errors_path.unlink(missing_ok=True)
    return ""
