"""The project's one CoNLL-U reader: UD treebank files into spaCy Docs, exactly
as `spacy convert --converter conllu` makes them (syntactic words as tokens,
XPOS as tag), but strict: every file is checked
before anything is written, and every error names the file and the line. FEATS
is kept exactly or refused (a feature without a value, 'A=B=C', '=Def', a
feature twice): spaCy's MorphAnalysis holds Feature=Value pairs only.

Two departures from spaCy's converter. A multiword token whose words do not
spell it (Wolof `moo` = `mu` + `a`) has pieces of its own text as its Doc
words (`mo` + `o`), so that the Doc's text is the sentence's, and the words'
forms in user_data (`text/multiword.py`), which CoNLL-U output writes. And a
word without XPOS (`_`) has the tag `_`, where spaCy's converter gives it its
UPOS: many treebanks have no XPOS (French-GSD, Russian-SynTagRus), and a tagger
that learned their UPOS as XPOS would write it where the treebank writes `_`
(the official script's XPOS and AllTags then 0).

Lines are split into sentence blocks here (so line numbers are known); the
`conllu` package parses the fields of each block.
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, Tuple, Union

import conllu
from conllu.exceptions import ParseException
from conllu.serializer import serialize_field
from spacy.attrs import SPACY
from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab

from ..files import write_atomically
from ..text.multiword import joined_docs, set_multiword_spans, set_word_forms, surface_pieces

COLUMNS = 10


class CorpusFormatError(ValueError):
    """A treebank file that cannot be read; the message names file and line."""


@dataclass
class Block:
    """One sentence: its comment and word lines, and the 1-based line number of each."""

    lines: List[str]
    numbers: List[int]


def read_conllu(path: Union[str, Path], vocab: Optional[Vocab] = None) -> List[Doc]:
    """All sentences of a CoNLL-U file, one Doc each, with words, spaces, tags,
    pos, morph, lemmas, heads and deps as spaCy's CoNLL-U converter sets them.
    Multiword-token lines and empty nodes are skipped (the syntactic words are
    the tokens). The whole file is checked first: raises CorpusFormatError
    naming the file and the line."""
    path = Path(path)
    vocab = vocab if vocab is not None else Vocab()
    docs = [_to_doc(path, block, vocab) for block in _blocks(path)]
    if not docs:
        raise CorpusFormatError(f"{path}: no sentences (an empty CoNLL-U file).")
    return docs


def conllu_to_docs(path: Union[str, Path], n_sents: int = 10,
                   vocab: Optional[Vocab] = None) -> List[Doc]:
    """The sentences of a CoNLL-U file, `n_sents` to a Doc (sentence starts set),
    as `spacy convert --converter conllu --n-sents N` groups them, each Doc with
    its multiword tokens (`multiword.py`) in its user_data; but a sentence whose
    last token has SpaceAfter=No runs on into the next without a space, as the
    treebank's text does, unless the next starts a paragraph."""
    if n_sents < 1:
        raise ValueError(f"n_sents must be a positive integer, got {n_sents!r}.")
    sentences = read_conllu(path, vocab)
    paragraph_starts = [_starts_paragraph(block) for block in _blocks(Path(path))]
    for k, sentence in enumerate(sentences[:-1]):
        # a sentence runs on into the next with no space where the treebank says
        # so (SpaceAfter=No on its last token, as Classical Chinese writes every
        # sentence of a paragraph); before a new paragraph there is always one
        if not sentence[-1].whitespace_ and paragraph_starts[k + 1]:
            spacy_attr = sentence.to_array([SPACY])
            spacy_attr[-1] = 1
            sentence.from_array([SPACY], spacy_attr)
    docs = []
    for i in range(0, len(sentences), n_sents):
        docs.append(joined_docs(sentences[i:i + n_sents], ensure_whitespace=False))
    return docs


def _starts_paragraph(block: Block) -> bool:
    """Whether a sentence block starts a paragraph or a document (`# newpar`,
    `# newdoc`), or NewPar=Yes on its first word."""
    for line in block.lines:
        if not line.startswith("#"):
            return "NewPar=Yes" in line.split("\t")[-1].split("|")
        if comment_keyword(line) in ("newpar", "newdoc"):
            return True
    return False


def comment_keyword(line: str) -> str:
    """A comment line's first word, lower-cased (`newdoc`, `newpar`, `text`, ...);
    "" for a line that is not a comment or a comment without words."""
    if not line.startswith("#"):
        return ""
    words = line[1:].partition("=")[0].split()
    return words[0].lower() if words else ""


def convert(path: Union[str, Path], output_dir: Union[str, Path], n_sents: int = 10) -> Path:
    """Write ``output_dir/<stem>.spacy`` (a DocBin, like `spacy convert`) and
    return its path. The file is written to a temporary name in the same folder
    and then renamed, so a failure leaves no partial file."""
    return convert_files([path], output_dir, n_sents)[0]


def convert_files(paths: Sequence[Union[str, Path]], output_dir: Union[str, Path],
                  n_sents: int = 10) -> List[Path]:
    """`convert` each file, every one read and checked before any is written."""
    docs = {Path(path): conllu_to_docs(path, n_sents) for path in paths}
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    outputs = []
    for path, path_docs in docs.items():
        output = output_dir / f"{path.stem}.spacy"
        write_atomically(output, DocBin(docs=path_docs, store_user_data=True).to_bytes())
        outputs.append(output)
    return outputs


def _text(path: Path) -> str:
    if not path.is_file():
        raise CorpusFormatError(f"{path}: no such CoNLL-U file.")
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise CorpusFormatError(
            f"{path}, line {line}: not UTF-8 (byte 0x{data[err.start]:02x} at column {column}; "
            "CoNLL-U files are UTF-8)."
        ) from None


def _blocks(path: Path) -> Iterator[Block]:
    """Sentence blocks: runs of non-blank lines, with their line numbers."""
    return _text_blocks(_text(path))


def _text_blocks(text: str, first: int = 1) -> Iterator[Block]:
    """The sentence blocks of `text`, whose first line is line `first` of its file."""
    block = Block([], [])
    for number, line in enumerate(text.split("\n"), start=first):
        line = line.rstrip("\r")
        if line.strip():
            block.lines.append(line)
            block.numbers.append(number)
        elif block.lines:
            yield block
            block = Block([], [])
    if block.lines:
        yield block


def _to_doc(path: Path, block: Block, vocab: Vocab) -> Doc:
    tokens, numbers = _parse(path, block)

    def fail(number: int, reason: str) -> CorpusFormatError:
        return CorpusFormatError(f"{path}, line {number}: {reason}")

    words = [(t, n) for t, n in zip(tokens, numbers) if isinstance(t["id"], int)]
    if not words:
        raise fail(block.numbers[0], "a sentence without words.")
    n = len(words)
    for i, (t, number) in enumerate(words):
        if t["id"] != i + 1:
            raise fail(number, f"word ids must run 1..{n} in order: expected {i + 1}, got {t['id']}.")
    for t, number in words:
        head = t["head"]
        if not isinstance(head, int) or not 0 <= head <= n:
            shown = "_" if head is None else head
            raise fail(number, f"HEAD must be an integer in 0..{n}, got {shown!r}.")
        if head == t["id"]:
            raise fail(number, f"word {head} is its own head.")
        if not t["form"]:
            raise fail(number, "empty FORM.")
        if t["deprel"] in ("", "_", None):
            raise fail(number, "DEPREL is missing ('_').")
    heads = {t["id"]: t["head"] for t, _ in words}
    line_of = {t["id"]: number for t, number in words}
    cycle = _cycle(heads)
    if cycle:
        raise fail(line_of[cycle[0]],
                   f"cycle through words {', '.join(map(str, cycle))} (a tree has no cycles).")
    roots = [i for i, head in heads.items() if head == 0]
    if len(roots) != 1:
        where = line_of[roots[1]] if roots else block.numbers[0]
        raise fail(where, f"{len(roots)} words have HEAD 0 ({', '.join(map(str, roots)) or 'none'}); "
                          "a sentence has exactly one root.")
    return _spacy_doc(path, tokens, numbers, vocab, n)


def _parse(path: Path, block: Block) -> Tuple[List[conllu.models.Token], List[int]]:
    """The word, multiword-token and empty-node lines of a block, parsed by
    `conllu`, each with its line number. Comments must come before them."""
    seen_word = False
    word_lines, numbers = [], []
    for line, number in zip(block.lines, block.numbers):
        if line.startswith("#"):
            if seen_word:
                raise CorpusFormatError(f"{path}, line {number}: a comment after the words "
                                        "of a sentence (a blank line missing before it?).")
            continue
        seen_word = True
        columns = line.count("\t") + 1
        if columns != COLUMNS:
            raise CorpusFormatError(f"{path}, line {number}: expected {COLUMNS} tab-separated "
                                    f"columns, got {columns}.")
        _check_feats(path, line.split("\t")[5], number)
        word_lines.append(line)
        numbers.append(number)
    if not word_lines:
        raise CorpusFormatError(f"{path}, line {block.numbers[0]}: comments without a sentence.")
    try:
        (tokens,) = conllu.parse("\n".join(word_lines) + "\n\n")
    except ParseException:
        for line, number in zip(word_lines, numbers):  # find the line conllu refused
            try:
                conllu.parse(line + "\n\n")
            except ParseException as err:
                raise CorpusFormatError(f"{path}, line {number}: {err}") from None
        raise
    return list(tokens), numbers


def _check_feats(path: Path, feats: str, number: int) -> None:
    """FEATS is '_' or Feature=Value pairs joined by '|', each feature once.
    Checked on the raw column: `conllu` would read 'Definite' as a feature with
    an empty value (which spaCy's MorphAnalysis refuses), cut 'A=B=C' to 'A=B',
    drop '=Def' and keep only the last of a repeated feature, so the doc would
    silently differ from the file."""
    if feats == "_":
        return
    seen = set()
    for pair in feats.split("|"):
        name, eq, value = pair.partition("=")
        if not name or not eq or not value or "=" in value:
            raise CorpusFormatError(
                f"{path}, line {number}: FEATS must be '_' or Feature=Value pairs joined by "
                f"'|' (e.g. Case=Nom|Number=Sing), got {pair!r} in {feats!r}.")
        if name in seen:
            raise CorpusFormatError(f"{path}, line {number}: FEATS names {name!r} twice in "
                                    f"{feats!r} (list its values once, comma-separated).")
        seen.add(name)


def _lemma(form: str, lemma: Optional[str]) -> str:
    """The word's lemma; "" (not annotated, which spaCy's lemmatizer neither
    learns from nor scores) where the treebank leaves it out: "_" on a word that
    is not itself "_" (a quarter of Uyghur-UDT's training words)."""
    if lemma is None or (lemma == "_" and form != "_"):
        return ""
    return lemma


def _cycle(heads: dict) -> List[int]:
    """The words of a cycle in the head map (word id -> head id, 0 = root),
    in ascending order, or [] if every word reaches the root."""
    state = {}  # 1: on the current path, 2: reaches the root
    for start in heads:
        path = []
        word = start
        while word != 0 and word not in state:
            state[word] = 1
            path.append(word)
            word = heads[word]
        if word != 0 and state[word] == 1:
            return sorted(path[path.index(word):])
        for w in path:
            state[w] = 2
    return []


def _spacy_doc(path: Path, tokens: List[conllu.models.Token], numbers: List[int],
               vocab: Vocab, n: int) -> Doc:
    """What `spacy.training.converters.conllu_to_docs` makes of one sentence
    with merge_subtokens=False."""
    words, spaces, tags, pos, morphs, lemmas, heads, deps = ([] for _ in range(8))
    span_end, span_space = 0, True  # the multiword token being read, if any
    multiword, surfaces = [], []  # each multiword token's words and its own form
    for t, number in zip(tokens, numbers):
        if isinstance(t["id"], tuple):
            start, sep, end = t["id"]
            if sep == ".":
                continue  # an empty node
            if start != len(words) + 1 or end <= start or end > n:
                raise CorpusFormatError(f"{path}, line {number}: multiword token {start}-{end} "
                                        f"must start at the next word ({len(words) + 1}) and "
                                        f"end after it, within 1..{n}.")
            span_end, span_space = end, (t["misc"] or {}).get("SpaceAfter") != "No"
            multiword.append((start - 1, end - 1))
            surfaces.append(t["form"])
            continue
        words.append(t["form"])
        if t["id"] <= span_end:
            spaces.append(span_space if t["id"] == span_end else False)
        else:
            spaces.append((t["misc"] or {}).get("SpaceAfter") != "No")
        upos = t["upos"] if t["upos"] not in (None, "") else "_"
        tags.append(t["xpos"] if t["xpos"] not in (None, "") else "_")
        pos.append("" if upos == "_" else upos)
        morphs.append(serialize_field(t["feats"]) if t["feats"] else "")
        lemmas.append(_lemma(t["form"], t["lemma"]))
        heads.append(t["id"] - 1 if t["head"] == 0 else t["head"] - 1)
        deps.append("ROOT" if t["deprel"] == "root" else t["deprel"])
    forms = {}  # a token whose words do not spell it: its pieces are the Doc's words
    for (a, b), surface in zip(multiword, surfaces):
        pieces = surface_pieces(surface, words[a:b + 1])
        if pieces is not None and pieces != words[a:b + 1]:
            forms.update((i, words[i]) for i in range(a, b + 1) if words[i] != pieces[i - a])
            words[a:b + 1] = pieces
    doc = Doc(vocab, words=words, spaces=spaces, tags=tags, pos=pos, morphs=morphs,
              lemmas=lemmas, heads=heads, deps=deps)
    set_multiword_spans(doc, multiword)
    set_word_forms(doc, forms)
    return doc
