"""Text for word-level language modelling: reading, the vocabulary, and the
continuous streams that truncated back-propagation through time walks.

The format is that of Mikolov's Penn Treebank files (``ptb.train.txt``...): one
sentence per line, words separated by spaces, rare words already replaced by
``<unk>``. Every line ends with ``<eos>``, which is predicted like a word, so
that perplexities compare with the literature. The vocabulary is the training
file's words in order of first appearance; a word of another file that is not in
it becomes ``<unk>`` where the vocabulary has one, and is an error (naming file,
line and word) where it has not. Files are UTF-8 (a byte-order mark is
skipped); another encoding is an error naming the file and line.
"""
from pathlib import Path
from typing import Dict, Iterator, List, Sequence, Tuple

import torch
from torch import Tensor

EOS = "<eos>"
UNK = "<unk>"
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte-order mark at the start is skipped


class TextFormatError(ValueError):
    """A language-modelling text that cannot be read: names the file and line."""


def read_lines(path: Path) -> Iterator[Tuple[int, List[str]]]:
    """(line number, words + <eos>) for each non-empty line of ``path``."""
    path = Path(path)
    if not path.is_file():
        raise TextFormatError(f"{path}: no such file.")
    with path.open("rb") as file:
        for number, raw in enumerate(file, 1):
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM):]
            try:
                line = raw.decode("utf8")
            except UnicodeDecodeError as err:
                raise TextFormatError(
                    f"{path}:{number}: not UTF-8 (byte 0x{raw[err.start]:02x} at column "
                    f"{err.start + 1}); language-model texts are UTF-8 (re-encode the file, "
                    f"e.g. iconv -f latin1 -t utf8).") from None
            if "\x00" in line:
                raise TextFormatError(f"{path}:{number}: a NUL byte; is this a text file?")
            words = line.split()
            if words:
                if EOS in words:
                    raise TextFormatError(f"{path}:{number}: {EOS!r} inside a line; it is "
                                          f"added at each line's end.")
                yield number, words + [EOS]


class Vocab:
    """Words and their ids, in order of first appearance in the training text."""

    def __init__(self, words: Sequence[str]):
        self.words: List[str] = list(words)
        self.index: Dict[str, int] = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            raise ValueError("A vocabulary lists each word once.")

    def __len__(self) -> int:
        return len(self.words)

    @classmethod
    def from_file(cls, path: Path) -> "Vocab":
        seen: Dict[str, None] = {}
        for _, words in read_lines(path):
            seen.update(dict.fromkeys(words))
        if not seen:
            raise TextFormatError(f"{path}: no words.")
        return cls(list(seen))

    def encode_file(self, path: Path) -> Tensor:
        """The file's words (with <eos> at each line's end) as one stream of ids."""
        unk = self.index.get(UNK)
        ids: List[int] = []
        for number, words in read_lines(path):
            for word in words:
                i = self.index.get(word, unk)
                if i is None:
                    raise TextFormatError(
                        f"{path}:{number}: {word!r} is not in the vocabulary, which has no "
                        f"{UNK!r} to stand for it.")
                ids.append(i)
        if not ids:
            raise TextFormatError(f"{path}: no words.")
        return torch.tensor(ids, dtype=torch.int64)


def batchify(stream: Tensor, batch_size: int) -> Tensor:
    """Cut the stream into ``batch_size`` equal rows, (batch_size, n), row b
    continuing where row b - 1 ends; the few words left over are dropped. A
    segment is a slice of columns, so each row's state carries to the next one."""
    n = stream.numel() // batch_size
    if n < 2:
        raise ValueError(f"A text of {stream.numel()} words is too short for {batch_size} "
                         f"rows of at least 2 words.")
    return stream[: n * batch_size].view(batch_size, n)


def segments(data: Tensor, length: int) -> Iterator[Tuple[int, Tensor, Tensor]]:
    """(start column, inputs, next-word targets) for each segment of ``length``
    columns of ``data`` (the last one may be shorter)."""
    for start in range(0, data.shape[1] - 1, length):
        steps = min(length, data.shape[1] - 1 - start)
        yield start, data[:, start : start + steps], data[:, start + 1 : start + 1 + steps]


def write_jsonl(path: Path, output: Path, unk: str = "unk") -> int:
    """The file's lines as raw text for ``spacy pretrain`` (JSONL, one
    ``{"text": ...}`` per non-empty line), ``<unk>`` written as ``unk`` (spaCy's
    tokenizer would split the brackets off); a CoNLL-U file (``.conllu``) gives
    each sentence's text, its words with their own spacing. Returns the number
    of lines."""
    import json

    from ..files import write_atomically

    if Path(path).suffix == ".conllu":
        from ..treebanks.conllu_reader import read_conllu

        texts = [doc.text.strip() for doc in read_conllu(path)]
    else:
        texts = [" ".join(unk if w == UNK else w for w in words[:-1])
                 for _, words in read_lines(path)]
    lines = [json.dumps({"text": text}) + "\n" for text in texts]
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(output, "".join(lines).encode("utf8"))
    return len(lines)
