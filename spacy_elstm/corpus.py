"""Read UD CoNLL-U files into spaCy Docs with gold tokenisation and annotation."""
from pathlib import Path
from typing import Iterator, List, Union

import conllu
from spacy.tokens import Doc
from spacy.vocab import Vocab


class CorpusFormatError(ValueError):
    """A treebank file that cannot be read; the message names file and sentence."""


def read_conllu(path: Union[str, Path], vocab: Vocab) -> List[Doc]:
    """All sentences of a CoNLL-U file as Docs: words from FORM, tag_ from XPOS,
    pos_ from UPOS, morph from FEATS, heads and deps from HEAD and DEPREL.
    Multiword-token lines and empty nodes are skipped (syntactic words are the
    tokens). Raises CorpusFormatError naming the file and the sentence."""
    return list(iter_conllu(path, vocab))


def iter_conllu(path: Union[str, Path], vocab: Vocab) -> Iterator[Doc]:
    path = Path(path)
    if not path.is_file():
        raise CorpusFormatError(f"{path}: no such CoNLL-U file.")
    with path.open(encoding="utf8") as file:
        sentences = conllu.parse_incr(file)
        number = 0
        while True:
            number += 1
            try:
                sentence = next(sentences)
            except StopIteration:
                return
            except Exception as err:  # conllu raises several types for bad lines
                raise CorpusFormatError(f"{path}, sentence {number}: {err}") from None
            yield _to_doc(sentence, vocab, f"{path}, sentence {number}")


def _to_doc(sentence: conllu.TokenList, vocab: Vocab, where: str) -> Doc:
    tokens = [t for t in sentence if isinstance(t["id"], int)]
    if not tokens:
        raise CorpusFormatError(f"{where}: a sentence without words.")
    ids = [t["id"] for t in tokens]
    if ids != list(range(1, len(tokens) + 1)):
        raise CorpusFormatError(f"{where}: word ids must run 1..{len(tokens)}, got {ids}.")
    words, spaces, heads, deps, morphs = [], [], [], [], []
    for t in tokens:
        if not t["form"]:
            raise CorpusFormatError(f"{where}, word {t['id']}: empty FORM.")
        head = t["head"]
        if not isinstance(head, int) or not 0 <= head <= len(tokens):
            raise CorpusFormatError(
                f"{where}, word {t['id']}: HEAD must be an integer in 0..{len(tokens)}, got {head!r}."
            )
        words.append(t["form"])
        misc = t["misc"] or {}
        spaces.append(misc.get("SpaceAfter") != "No")
        heads.append(t["id"] - 1 if head == 0 else head - 1)
        deprel = t["deprel"] or "dep"
        deps.append("ROOT" if deprel == "root" else deprel)
        feats = t["feats"] or {}
        morphs.append("|".join(f"{k}={v}" for k, v in feats.items()))
    return Doc(
        vocab,
        words=words,
        spaces=spaces,
        tags=[t["xpos"] or "" for t in tokens],
        pos=[t["upos"] if t["upos"] not in (None, "_") else "X" for t in tokens],
        morphs=morphs,
        heads=heads,
        deps=deps,
    )
