"""Penn Treebank files: bracketed trees (`.mrg`) and Malt-TAB dependencies (`.dp`).

A strict reader of its own (no nltk): every error names the file, the line and
the reason. From a tree it keeps the words and their PTB tags as the treebank
spells them (`-LRB-`, `-RRB-`, ``` `` ```, `''` ...), drops the empty elements
(`-NONE-` leaves: traces, null complementisers, ...) and every constituent left
empty by that, and strips function tags and indices from the labels
(`NP-SBJ-1` -> `NP` with the function tag `SBJ`, kept for the dependency labels
of `headrules.py`). Spacing between the words is reconstructed by the rules of
`spaces_after`, so that `doc.text` reads naturally.

Files are picked by their number: `wsj_0001.mrg` is file 1 of section 00,
`wsj_2301.mrg` file 2301 of section 23, wherever they lie under the folder given
(the LDC release puts them in `parsed/mrg/wsj/<section>/`, NLTK's sample in one
folder).
"""
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

FILE_NAME = re.compile(r"^wsj_(\d{4})\.(mrg|dp)$")
EMPTY = "-NONE-"


class TreebankFormatError(ValueError):
    """A treebank file that cannot be read; the message names file and line."""


@dataclass
class Tree:
    """A constituent, or a leaf (a word with its tag) where `word` is set.
    `label` is the category with function tags and indices stripped."""

    label: str
    children: List["Tree"] = field(default_factory=list)
    word: Optional[str] = None
    functions: FrozenSet[str] = frozenset()
    line: int = 0

    @property
    def is_leaf(self) -> bool:
        return self.word is not None

    def leaves(self) -> List["Tree"]:
        if self.is_leaf:
            return [self]
        return [leaf for child in self.children for leaf in child.leaves()]


@dataclass
class Sentence:
    """One sentence: where it comes from, its words and tags, and (from a
    `.mrg` file) its tree or (from a `.dp` file) its heads, 1-based, 0 = root."""

    path: Path
    line: int
    index: int  # 1-based, within its file
    words: List[str]
    tags: List[str]
    tree: Optional[Tree] = None
    heads: Optional[List[int]] = None
    lines: Optional[List[int]] = None  # of each word, in a .dp file

    @property
    def sent_id(self) -> str:
        return f"{self.path.stem}-{self.index}"


def split_label(label: str) -> Tuple[str, FrozenSet[str]]:
    """`NP-SBJ-1` -> ("NP", {"SBJ"}); `NP=2` -> ("NP", {}); `PRT|ADVP` -> ("PRT", {});
    tags such as `-NONE-` and `-LRB-` unchanged."""
    if label.startswith("-"):  # a tag: -NONE-, -LRB-, -RRB-
        return label, frozenset()
    label = label.split("=")[0].split("|")[0]
    parts = label.split("-")
    functions = frozenset(p for p in parts[1:] if p and not p.isdigit())
    return parts[0], functions


# Reading brackets

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def _tokens(text: str) -> List[Tuple[str, int]]:
    tokens = []
    for number, line in enumerate(text.split("\n"), start=1):
        tokens += [(m.group(), number) for m in _TOKEN.finditer(line)]
    return tokens


def parse_trees(path: Path, text: str) -> List[Tuple[Tree, int]]:
    """The raw trees of a `.mrg` text (labels as written), each with the line it
    starts on. Raises TreebankFormatError on unbalanced brackets, a leaf
    without a word, text outside brackets and the like."""

    def fail(line: int, reason: str) -> TreebankFormatError:
        return TreebankFormatError(f"{path}, line {line}: {reason}")

    trees = []
    stack: List[Tuple[Tree, int]] = []  # open constituents, with the line of their "("
    tokens = _tokens(text)
    i = 0
    while i < len(tokens):
        token, line = tokens[i]
        if token == "(":
            label = ""
            if i + 1 < len(tokens) and tokens[i + 1][0] not in "()":
                label = tokens[i + 1][0]
                i += 1
            stack.append((Tree(label, line=line), line))
        elif token == ")":
            if not stack:
                raise fail(line, "unbalanced brackets: a ')' with no '(' open.")
            node, opened = stack.pop()
            if not node.is_leaf and not node.children:
                raise fail(opened, f"an empty constituent '({node.label})' (no word, no children).")
            if stack:
                parent = stack[-1][0]
                if parent.is_leaf:
                    raise fail(line, f"'{parent.label} {parent.word}' is a leaf and cannot "
                                     "hold a constituent too.")
                parent.children.append(node)
            else:
                trees.append((node, opened))
        else:
            if not stack:
                raise fail(line, f"text outside brackets: {token!r}.")
            node = stack[-1][0]
            if node.children:
                raise fail(line, f"a word ({token!r}) beside constituents in '({node.label} ...'.")
            if node.is_leaf:
                raise fail(line, f"two words in one leaf: '({node.label} {node.word} {token}'.")
            if not node.label:
                raise fail(line, f"a word ({token!r}) without a tag.")
            node.word = token
        i += 1
    if stack:
        _, opened = stack[-1]
        raise fail(opened, f"unbalanced brackets: the '(' opened here is never closed "
                           f"({len(stack)} open at the end of the file).")
    return trees


def clean(tree: Tree) -> Optional[Tree]:
    """The tree without empty elements and without the constituents they leave
    empty; labels split into category and function tags. None if nothing is left."""
    if tree.is_leaf:
        if tree.label == EMPTY:
            return None
        return Tree(tree.label, word=tree.word, line=tree.line)
    children = [c for c in (clean(child) for child in tree.children) if c is not None]
    if not children:
        return None
    label, functions = split_label(tree.label)
    return Tree(label, children, functions=functions, line=tree.line)


def read_trees(path: Path) -> List[Sentence]:
    """The sentences of a `.mrg` file, cleaned (see `clean`)."""
    sentences = []
    for index, (raw, line) in enumerate(parse_trees(path, _text(path)), start=1):
        # The treebank wraps each sentence in a bracket with no label: ( (S ...) ).
        if raw.label in ("", "ROOT", "TOP") and not raw.is_leaf:
            if len(raw.children) != 1:
                raise TreebankFormatError(
                    f"{path}, line {line}: the outer bracket holds {len(raw.children)} "
                    "constituents; a sentence is one tree.")
            raw = raw.children[0]
        tree = clean(raw)
        if tree is None:
            raise TreebankFormatError(f"{path}, line {line}: a sentence with no words "
                                      "once the empty elements are dropped.")
        if tree.is_leaf:  # a one-word sentence without a phrase above it
            tree = Tree("X", [tree], line=line)
        leaves = tree.leaves()
        sentences.append(Sentence(path, line, index, [leaf.word for leaf in leaves],
                                  [leaf.label for leaf in leaves], tree=tree))
    if not sentences:
        raise TreebankFormatError(f"{path}: no trees.")
    return sentences


def read_dependencies(path: Path) -> List[Sentence]:
    """The sentences of a Malt-TAB `.dp` file: FORM, POS, HEAD per line (HEAD
    1-based, 0 = root), a blank line between sentences. Each sentence must be a
    tree: heads in range, one root, no cycle."""
    sentences: List[Sentence] = []
    block: List[Tuple[int, List[str]]] = []
    lines = _text(path).split("\n")
    for number, line in enumerate(lines + [""], start=1):
        line = line.rstrip("\r")
        if line.strip():
            columns = line.split("\t")
            if len(columns) != 3:
                raise TreebankFormatError(f"{path}, line {number}: expected 3 tab-separated "
                                          f"columns (FORM, POS, HEAD), got {len(columns)}.")
            block.append((number, columns))
        elif block:
            sentences.append(_dependency_sentence(path, block, len(sentences) + 1))
            block = []
    if not sentences:
        raise TreebankFormatError(f"{path}: no sentences.")
    return sentences


def _dependency_sentence(path: Path, block: List[Tuple[int, List[str]]], index: int) -> Sentence:
    n = len(block)
    words, tags, heads, numbers = [], [], [], []
    for number, (form, tag, head) in block:
        if not form or not tag:
            raise TreebankFormatError(f"{path}, line {number}: empty FORM or POS.")
        if not head.isdigit() or not 0 <= int(head) <= n:
            raise TreebankFormatError(f"{path}, line {number}: HEAD must be an integer in "
                                      f"0..{n}, got {head!r}.")
        if int(head) == len(words) + 1:
            raise TreebankFormatError(f"{path}, line {number}: word {int(head)} is its own head.")
        words.append(form)
        tags.append(tag)
        heads.append(int(head))
        numbers.append(number)
    roots = [i for i, head in enumerate(heads, start=1) if head == 0]
    if len(roots) != 1:
        where = numbers[roots[1] - 1] if roots else numbers[0]
        raise TreebankFormatError(f"{path}, line {where}: {len(roots)} words have HEAD 0 "
                                  f"({', '.join(map(str, roots)) or 'none'}); a sentence has "
                                  "exactly one root.")
    cycle = find_cycle(heads)
    if cycle:
        raise TreebankFormatError(f"{path}, line {numbers[cycle[0] - 1]}: the heads of words "
                                  f"{', '.join(map(str, cycle))} form a cycle (a tree has none).")
    return Sentence(path, numbers[0], index, words, tags, heads=heads, lines=numbers)


def find_cycle(heads: Sequence[int]) -> List[int]:
    """The words (1-based, ascending) of a cycle in `heads` (1-based, 0 =
    root), or [] if every word reaches the root."""
    state: Dict[int, int] = {}  # 1: on the path being followed, 2: reaches the root
    for start in range(1, len(heads) + 1):
        path = []
        word = start
        while word != 0 and word not in state:
            state[word] = 1
            path.append(word)
            word = heads[word - 1]
        if word != 0 and state[word] == 1:
            return sorted(path[path.index(word):])
        for w in path:
            state[w] = 2
    return []


def _text(path: Path) -> str:
    if not path.is_file():
        raise TreebankFormatError(f"{path}: no such file.")
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise TreebankFormatError(f"{path}, line {line}: not UTF-8 (byte "
                                  f"0x{data[err.start]:02x}).") from None


# Spacing

# No space before these words (closing punctuation, clitics) ...
NO_SPACE_BEFORE = {",", ".", ":", ";", "?", "!", "%", "''", "'", "-RRB-", "-RCB-", "-RSB-",
                   "n't", "'s", "'S", "'re", "'ve", "'ll", "'d", "'m", "'RE", "'VE", "'LL",
                   "'D", "'M", "N'T", "..."}
# ... and none after these (opening brackets and quotes, currency).
NO_SPACE_AFTER = {"``", "`", "-LRB-", "-LCB-", "-LSB-", "$", "#", "US$", "C$", "A$", "HK$"}


def spaces_after(words: Sequence[str], tags: Sequence[str]) -> List[bool]:
    """Whether each word is followed by a space: none before closing
    punctuation, clitics (`n't`, `'s`, the possessive) and closing brackets and
    quotes, none after opening brackets and quotes and currency signs, and one
    after the last word (so that sentences joined into a Doc stay apart)."""
    spaces = []
    for i in range(len(words)):
        if i + 1 == len(words):
            spaces.append(True)
            continue
        nxt, nxt_tag = words[i + 1], tags[i + 1]
        glued = (nxt in NO_SPACE_BEFORE or nxt_tag == "POS" or words[i] in NO_SPACE_AFTER
                 or (words[i] == "ca" and nxt == "n't") or (nxt == "na" and words[i] in ("gon", "wan")))
        # "--" is a dash with spaces round it; ":" tags it as it tags ";".
        spaces.append(not glued or nxt == "--")
    return spaces


# Picking files

@dataclass
class Split:
    """A named part of the treebank: files (or sections) by number, inclusive ranges."""

    name: str
    unit: str  # "file" or "section"
    ranges: List[Tuple[int, int]]

    def holds(self, number: int) -> bool:
        key = number if self.unit == "file" else number // 100
        return any(a <= key <= b for a, b in self.ranges)

    def describe(self) -> str:
        shown = "{:02d}" if self.unit == "section" else "{}"
        return ", ".join(f"{self.unit}s {shown.format(a)}-{shown.format(b)}" if a != b
                         else f"{self.unit} {shown.format(a)}" for a, b in self.ranges)


def parse_split(spec: str, unit: str = "file") -> Split:
    """`train=1-159` or `test=22-24,23` -> Split; raises ValueError naming the problem."""
    if unit not in ("file", "section"):
        raise ValueError(f"unit must be 'file' or 'section', got {unit!r}.")
    name, sep, ranges = spec.partition("=")
    if not sep or not re.fullmatch(r"[\w.-]+", name):
        raise ValueError(f"a split is NAME=FIRST-LAST[,FIRST-LAST...], e.g. train=1-159; got {spec!r}.")
    parsed = []
    for part in ranges.split(","):
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part.strip())
        if not match:
            raise ValueError(f"split {name!r}: {part!r} is not a number or a range FIRST-LAST.")
        a, b = int(match[1]), int(match[2] or match[1])
        if a > b:
            raise ValueError(f"split {name!r}: the range {part!r} runs backwards.")
        parsed.append((a, b))
    return Split(name, unit, parsed)


def find_files(folder: Path, suffix: str) -> Dict[int, Path]:
    """`wsj_NNNN.<suffix>` files anywhere under `folder`, by number."""
    if not folder.is_dir():
        raise TreebankFormatError(f"{folder}: no such folder.")
    files: Dict[int, Path] = {}
    for path in sorted(folder.rglob(f"wsj_*.{suffix}")):
        match = FILE_NAME.match(path.name)
        if match:
            number = int(match[1])
            if number in files:
                raise TreebankFormatError(f"{path}: file {number} is there twice "
                                          f"(also {files[number]}).")
            files[number] = path
    return files


def select(files: Dict[int, Path], split: Split, folder: Path, suffix: str) -> List[Path]:
    """The files of `split`, in order. Every section a split names must have
    files, and every file range must have at least one: otherwise the folder is
    not the treebank (or not all of it) and the error says what is missing."""
    chosen = [files[n] for n in sorted(files) if split.holds(n)]
    if split.unit == "section":
        present = {n // 100 for n in files}
        missing = [s for a, b in split.ranges for s in range(a, b + 1) if s not in present]
        if missing:
            raise TreebankFormatError(
                f"{folder}: no wsj_*.{suffix} files of section(s) "
                f"{', '.join(f'{s:02d}' for s in missing)} (split {split.name!r}: "
                f"{split.describe()}). The full WSJ part of the Penn Treebank (LDC99T42, "
                "parsed/mrg/wsj/00-24) is licensed by the LDC and is not downloaded: copy it there.")
    elif not chosen:
        raise TreebankFormatError(f"{folder}: no wsj_*.{suffix} files in split {split.name!r} "
                                  f"({split.describe()}).")
    return chosen


def read_split(folder: Path, split: Split, suffix: str) -> List[Sentence]:
    """Every sentence of a split's files, read by `read_trees` or `read_dependencies`."""
    reader = read_trees if suffix == "mrg" else read_dependencies
    paths = select(find_files(folder, suffix), split, folder, suffix)
    return [sentence for path in paths for sentence in reader(path)]
