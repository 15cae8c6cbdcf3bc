"""The raw text of a gold CoNLL-U file, document by document, as the CoNLL 2018
shared task gave it to systems: what a user's pipeline meets.

A document starts at `# newdoc` (the whole file is one document where there
is none); a paragraph at `# newpar`. A sentence's text is its tokens as
written (a multiword token by its own form, `SpaceAfter=No` kept), sentences of
one paragraph are joined by a space (none after a token with `SpaceAfter=No`)
and paragraphs by a blank line. The tokens' text, not `# text`, is what is
rebuilt, so that the characters are exactly those the evaluation script aligns.
"""
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Union

from .conllu_reader import CorpusFormatError, _blocks

PARAGRAPH_BREAK = "\n\n"


@dataclass
class RawDocument:
    """One document's id (from `# newdoc id`, if any), its text, and how many
    gold sentences and paragraphs it holds."""

    doc_id: Optional[str]
    paragraphs: List[List[str]] = field(default_factory=list)  # sentence texts, with spacing

    @property
    def text(self) -> str:
        return PARAGRAPH_BREAK.join("".join(p).rstrip() for p in self.paragraphs)

    @property
    def sentences(self) -> int:
        return sum(len(p) for p in self.paragraphs)


def raw_documents(path: Union[str, Path]) -> List[RawDocument]:
    """The documents of a CoNLL-U file as raw text (see the module docstring)."""
    path = Path(path)
    documents: List[RawDocument] = []
    for block in _blocks(path):
        comments = {}  # "newdoc" -> its id or "", "newpar" -> ...
        for line in block.lines:
            if line.startswith("#"):
                key, _, value = line[1:].partition("=")
                key = key.split()
                if key and key[0] in ("newdoc", "newpar"):
                    comments[key[0]] = value.strip()
        if "newdoc" in comments or not documents:
            documents.append(RawDocument(comments.get("newdoc") or None))
        document = documents[-1]
        if "newpar" in comments or not document.paragraphs:
            document.paragraphs.append([])
        document.paragraphs[-1].append(_sentence_text(path, block))
    if not documents:
        raise CorpusFormatError(f"{path}: no sentences (an empty CoNLL-U file).")
    return documents


def _sentence_text(path: Path, block) -> str:
    """The sentence's tokens as written, each followed by its space (none
    where MISC says SpaceAfter=No), the last one's kept for the next sentence."""
    parts, covered = [], 0
    for line, number in zip(block.lines, block.numbers):
        if line.startswith("#"):
            continue
        columns = line.split("\t")
        if len(columns) != 10:
            raise CorpusFormatError(f"{path}, line {number}: expected 10 tab-separated columns, "
                                    f"got {len(columns)}.")
        ident = columns[0]
        if "." in ident:
            continue  # an empty node: no text
        if "-" in ident:
            first, _, last = ident.partition("-")
            covered = int(last)
        elif int(ident) <= covered:
            continue  # a word of the multiword token just written
        space = "" if "SpaceAfter=No" in columns[9].split("|") else " "
        parts.append(columns[1] + space)
    return "".join(parts)
