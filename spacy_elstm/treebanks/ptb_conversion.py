"""Penn Treebank splits to CoNLL-U and spaCy's binary format.

Trees (`.mrg`) give words, PTB tags (XPOS) and labelled dependencies by head
rules (`headrules.py`); the `.dp` files of NLTK's sample give words, tags and
unlabelled heads, written with the one placeholder relation `dep` (the root
`root`), for a parser whose UAS alone means something. Each split is written
as `<name>.conllu` (by the `conllu` package) and `<name>.spacy` (read back from
that file by the project's strict CoNLL-U reader, so the two always agree).
Every file of every split is read and converted before anything is written;
the outputs are then written into a scratch folder beside their place and
renamed into it only once all of them are complete, so a failure leaves the
folder as it was.
"""
import json
import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Callable, Dict, List, Sequence

from conllu.models import Metadata, Token, TokenList

from . import headrules
from .conllu_reader import convert as conllu_to_spacy
from ..files import write_atomically
from .ptb import Sentence, Split, TreebankFormatError, read_split, spaces_after

PLACEHOLDER = "dep"


def tree_tokens(sentence: Sentence) -> TokenList:
    """A sentence read from a `.mrg` file, with head-rule heads and labels."""
    deps = headrules.convert(sentence)
    return _tokens(sentence, deps.heads, ["root" if lab == "ROOT" else lab for lab in deps.labels])


def dependency_tokens(sentence: Sentence) -> TokenList:
    """A sentence read from a `.dp` file: its heads, every relation the placeholder."""
    return _tokens(sentence, sentence.heads,
                   ["root" if head == 0 else PLACEHOLDER for head in sentence.heads])


def _tokens(sentence: Sentence, heads: Sequence[int], labels: Sequence[str]) -> TokenList:
    spaces = spaces_after(sentence.words, sentence.tags)
    text = "".join(w + (" " if s else "") for w, s in zip(sentence.words, spaces)).rstrip()
    tokens = [Token({"id": i, "form": word, "lemma": "_", "upos": "_", "xpos": tag,
                     "feats": None, "head": head, "deprel": label, "deps": None,
                     "misc": None if space else {"SpaceAfter": "No"}})
              for i, (word, tag, head, label, space)
              in enumerate(zip(sentence.words, sentence.tags, heads, labels, spaces), start=1)]
    return TokenList(tokens, Metadata(sent_id=sentence.sent_id, text=text))


def convert_splits(folder: Path, splits: List[Split], suffix: str, output_dir: Path,
                   n_sents: int = 10) -> Dict[str, dict]:
    """Read every split of `folder` (`.mrg` trees or `.dp` dependencies), then
    write `<split>.conllu` and `<split>.spacy` into `output_dir` for each.
    Returns what was written, per split: files, sentences, words, labels."""
    make: Callable[[Sentence], TokenList] = tree_tokens if suffix == "mrg" else dependency_tokens
    converted = {}
    for split in splits:  # everything is read and converted before anything is written
        sentences = read_split(folder, split, suffix)
        converted[split.name] = (sentences, [make(s) for s in sentences])
    output_dir.mkdir(parents=True, exist_ok=True)
    summary = {}
    # Written into a scratch folder beside the outputs, read back by the strict
    # CoNLL-U reader, and only then renamed into place, all splits together.
    with tempfile.TemporaryDirectory(dir=output_dir, prefix=".ptb-") as scratch:
        for split in splits:
            sentences, token_lists = converted[split.name]
            path = Path(scratch) / f"{split.name}.conllu"
            path.write_text("".join(t.serialize() for t in token_lists), encoding="utf8")
            conllu_to_spacy(path, Path(scratch), n_sents)
            files = sorted({s.path.stem for s in sentences})
            labels = Counter(token["deprel"] for tokens in token_lists for token in tokens)
            summary[split.name] = {"selection": split.describe(), "files": len(files),
                                   "first_file": files[0], "last_file": files[-1],
                                   "sentences": len(sentences),
                                   "words": sum(len(s.words) for s in sentences),
                                   "labels": dict(sorted(labels.items()))}
        for split in splits:
            for suffix in (".conllu", ".spacy"):
                os.replace(Path(scratch) / f"{split.name}{suffix}", output_dir / f"{split.name}{suffix}")
    return summary


def agreement(trees: Path, dependencies: Path, splits: List[Split]) -> dict:
    """Unlabelled agreement of the head-rule heads with the `.dp` heads, per
    split and over all of them. The two must hold the same sentences with the
    same words and tags, file by file."""
    result = {"rules": "spacy_elstm.treebanks.headrules.HEAD_RULES", "splits": {}}
    total = headrules.Agreement()
    for split in splits:
        ours, theirs = read_split(trees, split, "mrg"), read_split(dependencies, split, "dp")
        part = headrules.Agreement()
        for tree, dep in zip(ours, theirs):
            if (tree.path.stem, tree.index, tree.words, tree.tags) != (
                    dep.path.stem, dep.index, dep.words, dep.tags):
                raise TreebankFormatError(f"{dep.path}, line {dep.line}: sentence {dep.index} differs from "
                                 f"sentence {tree.index} of {tree.path} (line {tree.line}) in its "
                                 "words or tags: the two folders do not hold the same treebank.")
            heads = headrules.convert(tree).heads
            part.add(tree.tags, heads, dep.heads)
            total.add(tree.tags, heads, dep.heads)
        if len(ours) != len(theirs):
            raise TreebankFormatError(f"split {split.name!r}: {len(ours)} trees but {len(theirs)} "
                             "dependency sentences.")
        result["splits"][split.name] = {"selection": split.describe(), **part.as_dict()}
    result["all"] = total.as_dict()
    return result


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, (json.dumps(data, indent=2) + "\n").encode("utf8"))
