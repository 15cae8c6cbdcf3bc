"""Multiword tokens: where one orthographic token of a treebank holds several
syntactic words, as UD English-EWT writes `don't` (`do` + `n't`), `I'm` or
`gonna`. The pipeline's tokens are words; CoNLL-U writes each such group as a
range line (`3-4  don't`) above its words, and the CoNLL 2018 script counts the
group as one token.

A Doc carries its multiword tokens in `doc.user_data[KEY]`: a list of
[first, last] word indices (inclusive, 0-based). The project's converter
(`treebanks/conllu_reader.py`) sets them from the treebank; a trained tokenizer
(`treebank_tokenizer.py`) sets them on the Docs it makes, by the rules that
`MultiwordRules.learn` takes from the training treebank:

- a sequence of two or three words written without space between them is one
  token if the training data writes that sequence (lowercased) more often as a
  multiword token than as separate tokens (and at least twice), and
- a word written without space after another word is the end of a two-word
  token if the training data writes that word (lowercased) as the end of a
  multiword token more often than not (`'s`, `n't`, `'m`...), which covers
  `Arafat's` though the training data has no Arafat.

Words are compared lower-cased and with a typographic apostrophe (’) inside a
word read as the plain one ('), so `I’m` is one token as `I'm` is, though the
training data writes it so once.
"""
import re
from collections import Counter
from typing import Dict, Iterable, List, Sequence, Tuple

import numpy
from spacy.attrs import SPACY
from spacy.tokens import Doc

from .punctuation import is_punctuation

KEY = "multiword_tokens"
TYPOGRAPHIC_APOSTROPHE = re.compile(r"\u2019(?=\w)|(?<=\w)\u2019")
LONGEST = 3  # the most words in one learned multiword token


def multiword_spans(doc: Doc) -> List[Tuple[int, int]]:
    """The doc's multiword tokens as (first, last) word indices, in order."""
    return [(int(a), int(b)) for a, b in doc.user_data.get(KEY, ())]


def set_multiword_spans(doc: Doc, spans: Iterable[Sequence[int]]) -> None:
    doc.user_data[KEY] = [[int(a), int(b)] for a, b in spans]


def _attached(doc: Doc, first: int, last: int) -> bool:
    """Words first..last are written without a space between them."""
    return all(not doc[i].whitespace_ for i in range(first, last))


class MultiwordRules:
    """Which attached words form one token, learned from a treebank's Docs
    (each with its multiword tokens in user_data[KEY])."""

    def __init__(self, sequences: Iterable[Sequence[str]] = (), endings: Iterable[str] = ()):
        # (as `form` writes them: rules saved before it may have a typographic apostrophe)
        self.sequences = {tuple(form(w) for w in s) for s in sequences}
        self.firsts = {s[0] for s in self.sequences}  # a sequence starts only at one of these
        self.endings = {form(e) for e in endings}

    @classmethod
    def learn(cls, docs: Iterable[Doc], min_count: int = 2) -> "MultiwordRules":
        """The rules of the docs' multiword tokens: a sequence or an ending
        counts once the docs write it as one token at least min_count times."""
        joined, apart = Counter(), Counter()  # word sequences written as one token or not
        ending_joined, ending_apart = Counter(), Counter()
        for doc in docs:
            spans = multiword_spans(doc)
            inside = {i for a, b in spans for i in range(a, b + 1)}
            for a, b in spans:
                joined[_forms(doc, a, b)] += 1
                if b == a + 1:
                    ending_joined[form(doc[b].text)] += 1
            for a in range(len(doc) - 1):
                if a in inside or a + 1 in inside:
                    continue
                for b in range(a + 1, min(a + LONGEST, len(doc))):
                    if b in inside or not _attached(doc, a, b):
                        break
                    apart[_forms(doc, a, b)] += 1
                    if b == a + 1 and not is_punctuation(doc[a].text):
                        ending_apart[form(doc[b].text)] += 1
        sequences = [s for s, n in joined.items() if n >= min_count and n > apart[s]]
        endings = [e for e, n in ending_joined.items() if n >= min_count and n > ending_apart[e]]
        return cls(sequences, endings)

    def spans(self, doc: Doc) -> List[Tuple[int, int]]:
        """The multiword tokens of a doc's words, left to right, longest first
        (only words written without a space after them are looked at)."""
        n = len(doc)
        attached = doc.to_array(SPACY) == 0  # no space between it and the next
        texts: Dict[int, str] = {}

        def word(k: int) -> str:
            if k not in texts:
                texts[k] = doc[k].text
            return texts[k]

        found, free = [], 0  # `free`: the first word no multiword token has taken
        for i in numpy.flatnonzero(attached[:n - 1]).tolist():
            if i < free:
                continue
            match = None
            if form(word(i)) in self.firsts:
                last = i
                while last + 1 < min(i + LONGEST, n) and attached[last]:
                    last += 1
                for b in range(last, i, -1):
                    if tuple(form(word(k)) for k in range(i, b + 1)) in self.sequences:
                        match = b
                        break
            if (match is None and not is_punctuation(word(i)) and not word(i).isspace()
                    and form(word(i + 1)) in self.endings):
                match = i + 1
            if match is not None:
                found.append((i, match))
                free = match + 1
        return found

    def to_dict(self) -> Dict[str, List]:
        return {"sequences": sorted(list(s) for s in self.sequences),
                "endings": sorted(self.endings)}

    @classmethod
    def from_dict(cls, data: Dict[str, List]) -> "MultiwordRules":
        return cls(data.get("sequences", ()), data.get("endings", ()))


def _forms(doc: Doc, first: int, last: int) -> Tuple[str, ...]:
    return tuple(form(doc[i].text) for i in range(first, last + 1))


def form(word: str) -> str:
    """A word as the rules compare it: lower-cased, a typographic apostrophe
    (U+2019) beside a letter or digit read as the plain one (`’s`, `n’t`; alone,
    `’` closes a quotation as often as `'` does, and stays as it is)."""
    return TYPOGRAPHIC_APOSTROPHE.sub("'", word.lower())

