"""The three splits of a UD treebank whose folder does not hold them as three
files: a split in parts (Czech-PDT's `cs_pdt-ud-train-ca.conllu`, `-ct`, `-ma`,
`-va`; German-HDT's `train-a-1` ...), read as one in name order, and a treebank
without a dev split (UD ships its small treebanks so: Kurmanji-MG, Buryat-BDT),
whose dev is held out from the end of its training split: the last tenth of its
sentences, cut where a document starts where one starts near there (else a
paragraph, else any sentence), so that no document is in both.

What is derived is written once, as `<stem>-ud-{train,dev,test}.conllu` side
by side, into a folder of the cache (`SPACY_ELSTM_CACHE`, else
`$XDG_CACHE_HOME/spacy-elstm` or `~/.cache/spacy-elstm`) named for the treebank
and its files' names, sizes and times; the treebank's own folder is only read."""
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from .conllu_reader import _text_blocks, comment_keyword
from .ud_names import split_file_name

SPLITS = ("train", "dev", "test")
HELD_OUT_SHARE = 0.1  # of the training split's sentences, where there is no dev split
BOUNDARIES = ("newdoc", "newpar")  # where a held-out dev may start, the first found near
RULE = "v2"  # in the cache's key: a change of the rule derives the splits again
NOTES = "derived.json"  # beside the derived files: how they were made

Sentence = List[str]  # a sentence's lines, its comments first, without line ends


class SplitsError(ValueError):
    """Splits that cannot be made: too few training sentences to hold out a dev split."""


def cache_root() -> Path:
    """Where derived files are written."""
    if os.environ.get("SPACY_ELSTM_CACHE"):
        return Path(os.environ["SPACY_ELSTM_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "spacy-elstm"


def three_splits(name: str, stem: str, found: Dict[str, List[Path]]
                 ) -> Tuple[Dict[str, Path], Tuple[str, ...]]:
    """One CoNLL-U file per split, and what was done to make them: the folder's
    own files where it has one of each; else the derived files (written the
    first time) and a note for each split in parts and for a dev held out
    from train, kept beside them in NOTES."""
    if all(len(found.get(split, ())) == 1 for split in SPLITS):
        return {split: found[split][0] for split in SPLITS}, ()
    folder = cache_root() / "ud-splits" / f"{name}-{_key(found)}"
    files = {split: folder / split_file_name(stem, split) for split in SPLITS}
    if not folder.is_dir():
        parts = {split: [s for path in found[split] for s in read_sentences(path)]
                 for split in found}
        notes = [f"{name}: its {split} split is in {len(paths)} files "
                 f"({', '.join(p.name for p in paths)}), read as one in that order"
                 for split, paths in found.items() if len(paths) > 1]
        if "dev" not in found:
            train = parts["train"]
            start = held_out_start(train, name)
            notes.append(f"{name}: no dev split: dev is the last {len(train) - start} of its "
                         f"training split's {len(train)} sentences (from where "
                         f"{_boundary_name(train[start], start)} starts), train the first "
                         f"{start}")
            parts["train"], parts["dev"] = train[:start], train[start:]
        texts = {files[split].name: "".join("\n".join(s) + "\n\n" for s in parts[split])
                 for split in SPLITS}
        _write_folder(folder, {**texts, NOTES: json.dumps(notes, ensure_ascii=False)})
    notes = json.loads((folder / NOTES).read_text(encoding="utf-8"))
    return files, (*notes, f"{name}: its three splits as the pipeline reads them: {folder}")


def read_sentences(path: Path) -> List[Sentence]:
    """The sentences of a CoNLL-U file, each its lines up to the blank line
    that ends it (a byte that is not UTF-8 kept as it is, for convert to report)."""
    text = path.read_bytes().decode("utf-8-sig", errors="surrogateescape")
    return [block.lines for block in _text_blocks(text)]


def held_out_start(sentences: Sequence[Sentence], name: str = "the treebank") -> int:
    """The index of the first sentence of a dev split held out from the end of
    `sentences`: HELD_OUT_SHARE of them (at least one, and one left to train on),
    moved to the nearest start of a document, else of a paragraph, within half
    to twice that many."""
    count = len(sentences)
    if count < 2:
        raise SplitsError(f"{name}: no dev split, and {count} training sentence(s): "
                                  "too few to hold one out for dev and train on the rest.")
    wanted = min(count - 1, max(1, round(count * HELD_OUT_SHARE)))
    for marker in BOUNDARIES:
        near = [i for i in range(1, count) if wanted / 2 <= count - i <= 2 * wanted
                and _starts(sentences[i], marker)]
        if near:
            return min(near, key=lambda i: (abs(count - i - wanted), i))
    return count - wanted


def _starts(sentence: Sentence, marker: str) -> bool:
    """Whether the sentence starts a document (`newdoc`) or a paragraph (`newpar`)."""
    return any(comment_keyword(line) == marker for line in sentence)


def _boundary_name(sentence: Sentence, index: int) -> str:
    for marker, what in zip(BOUNDARIES, ("a document", "a paragraph")):
        if _starts(sentence, marker):
            return what
    return f"sentence {index + 1}"


def _key(found: Dict[str, List[Path]]) -> str:
    """A name for the files as they are: their names, sizes and modification times."""
    digest = hashlib.sha1(RULE.encode())
    for split in sorted(found):
        for path in found[split]:
            stat = path.stat()
            digest.update(f"{split}\t{path.name}\t{stat.st_size}\t{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:12]


def _write_folder(folder: Path, texts: Dict[str, str]) -> None:
    """Each text written as a file into a new folder beside `folder`, then the
    folder renamed to it, so that a reader never sees half of them (a process
    that got there first wins). A byte that was not UTF-8 is written back as it was."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    draft = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        for file_name, text in texts.items():
            (draft / file_name).write_bytes(text.encode("utf-8", errors="surrogateescape"))
        try:
            draft.rename(folder)
        except OSError:
            if not folder.is_dir():
                raise
    finally:
        if draft.exists():
            shutil.rmtree(draft)
