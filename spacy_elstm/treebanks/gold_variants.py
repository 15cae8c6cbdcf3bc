"""A gold CoNLL-U file rewritten as raw text reaches a pipeline in users' hands,
so that the official script scores the pipeline end to end on it
(`score --raw --text-variant`):

- "as-written": the file as it is.
- "crlf": the same gold; each line break of the raw text written as Windows
  writes it, "\\r\\n".
- "lowercase": every FORM (and `# text`) in lower case, as chat and search
  queries come; the lemmas stay as the treebank has them.
- "unpunctuated": every word tagged PUNCT removed, as speech transcripts come
  (a word inside a multiword token stays). A space stands where it stood, so
  that no two words run together; the words left hang as `unpunctuated.py`
  says; a sentence of punctuation alone goes, its `# newdoc`/`# newpar` passed
  to the next one; `# text`, the enhanced graph (DEPS, empty nodes) go too.
- "lowercase-unpunctuated": both, as speech recognisers without a punctuation
  model write.
"""
from pathlib import Path
from typing import List, Optional, Union

from ..text.input_modes import check_choice
from .conllu_reader import Block, CorpusFormatError, _blocks
from .gold_text import RawDocument, block_rows, comment_keyword, raw_documents
from .unpunctuated import rehung_heads

VARIANTS = ("as-written", "crlf", "lowercase", "unpunctuated", "lowercase-unpunctuated")


def check_variant(variant: str) -> None:
    check_choice("text variant", variant, VARIANTS)


def variant_gold(path: Union[str, Path], variant: str, folder: Union[str, Path]) -> Path:
    """The gold file of `variant`: `path` itself, or its rewriting written into
    `folder` (a file of the same name)."""
    check_variant(variant)
    path = Path(path)
    if variant in ("as-written", "crlf"):
        return path
    blocks, passed = [], []  # passed: `# newdoc`/`# newpar` of sentences that went
    for block in _blocks(path):
        lines = _unpunctuated(path, block) if "unpunctuated" in variant else block.lines
        if lines is not None and "lowercase" in variant:
            lines = _lowercased(lines)
        if lines is None:
            passed += [line for line in block.lines if comment_keyword(line) in ("newdoc", "newpar")]
            continue
        keys = {comment_keyword(line) for line in lines}
        blocks.append([line for line in passed if comment_keyword(line) not in keys] + lines)
        passed = []
    if not blocks:
        raise CorpusFormatError(f"{path}: no sentence is left in its {variant} form.")
    out = Path(folder) / path.name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join("\n".join(lines) + "\n\n" for lines in blocks), encoding="utf8")
    return out


def variant_documents(gold: Union[str, Path], form: str, variant: str,
                      language: str = "en") -> List[RawDocument]:
    """The raw documents of a variant's gold file (from `variant_gold`) in text
    `form`, of the treebank's `language` (a UD language code; `gold_text.py`)."""
    check_variant(variant)
    documents = raw_documents(gold, form, language)
    if variant == "crlf":
        return [RawDocument(d.doc_id, d.text.replace("\n", "\r\n"), d.sentences)
                for d in documents]
    return documents


def _lowercased(lines: List[str]) -> List[str]:
    out = []
    for line in lines:
        if comment_keyword(line) == "text":
            key, _, value = line.partition("=")
            line = f"{key}={value.lower()}"
        elif not line.startswith("#"):
            columns = line.split("\t")
            columns[1] = columns[1].lower()
            line = "\t".join(columns)
        out.append(line)
    return out


def _unpunctuated(path: Path, block: Block) -> Optional[List[str]]:
    """The sentence without its punctuation words, renumbered; None if none is left."""
    comments = [line for line in block.lines if line.startswith("#") and comment_keyword(line) != "text"]
    rows = list(block_rows(path, block))
    covered = set()
    for columns in rows:
        first, dash, last = columns[0].partition("-")
        if dash:
            covered.update(range(int(first), int(last) + 1))
    words = {int(c[0]): c for c in rows if "-" not in c[0]}
    removed = {i for i, c in words.items() if c[3] == "PUNCT" and i not in covered}
    kept = [i for i in words if i not in removed]
    if not kept:
        return None
    # CoNLL-U numbers words from 1 and its root's head is 0: one less is the rule's numbering
    rehung = rehung_heads([int(words[i][6]) - 1 for i in sorted(words)], [i - 1 for i in removed])
    new_heads = {i + 1: head + 1 for i, head in rehung.items()}
    number = {old: new for new, old in enumerate(kept, start=1)}
    out, spaced = [], None  # spaced: the last token row kept, whose space a removal restores
    for columns in rows:
        if "-" in columns[0]:
            first, _, last = columns[0].partition("-")
            columns = columns[:]
            columns[0] = f"{number[int(first)]}-{number[int(last)]}"
            out.append(columns)
            spaced = columns
            continue
        i = int(columns[0])
        if i in removed:
            if spaced is not None:
                spaced[9] = _with_space(spaced[9])
            continue
        columns = columns[:]
        columns[0], columns[6] = str(number[i]), str(number.get(new_heads[i], 0))
        if new_heads[i] == 0:
            columns[7] = "root"
        columns[8] = "_"
        out.append(columns)
        if i not in covered:
            spaced = columns
    return comments + ["\t".join(c) for c in out]


def _with_space(misc: str) -> str:
    kept = [item for item in misc.split("|") if item not in ("SpaceAfter=No", "_")]
    return "|".join(kept) or "_"

