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

A multiword token whose words do not spell it (Wolof `moo` = `mu` + `a`,
French `du` = `de` + `le`) keeps the Doc's text the token's own: its Doc tokens
are pieces of the token (`surface_pieces`: `mo` + `o`), and the treebank's forms
of the words sit in `doc.user_data[FORMS_KEY]` (word index -> form), which
CoNLL-U output writes as the words. The converter makes training Docs so, and
the rules learn which forms the pieces of such a token stand for (`forms`), so
the tagger and parser read the same pieces in training and in use.
"""
import re
from collections import Counter
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import SPACY
from spacy.tokens import Doc

from .punctuation import is_punctuation

KEY = "multiword_tokens"
FORMS_KEY = "multiword_forms"  # [word index, form] of each word whose form is not its text
TYPOGRAPHIC_APOSTROPHE = re.compile(r"\u2019(?=\w)|(?<=\w)\u2019")
LONGEST = 3  # the most words in one learned multiword token


def multiword_spans(doc: Doc) -> List[Tuple[int, int]]:
    """The doc's multiword tokens as (first, last) word indices, in order."""
    return [(int(a), int(b)) for a, b in doc.user_data.get(KEY, ())]


def set_multiword_spans(doc: Doc, spans: Iterable[Sequence[int]]) -> None:
    doc.user_data[KEY] = [[int(a), int(b)] for a, b in spans]


def word_forms(doc: Doc) -> Dict[int, str]:
    """The doc's words whose treebank form is not their text: index -> form."""
    return {int(i): str(f) for i, f in doc.user_data.get(FORMS_KEY, ())}


def set_word_forms(doc: Doc, forms: Dict[int, str]) -> None:
    """Set the doc's word forms; a doc that has none and is given none gets no
    entry, so the Docs of a treebank whose words spell their tokens (EWT) stay
    as they were."""
    if forms or FORMS_KEY in doc.user_data:
        doc.user_data[FORMS_KEY] = [[int(i), str(f)] for i, f in sorted(forms.items())]


def joined_docs(docs: Sequence[Doc], ensure_whitespace: bool) -> Doc:
    """Docs as one (Doc.from_docs), their multiword tokens and word forms kept,
    which from_docs drops (each doc's own are removed first)."""
    spans: List[Tuple[int, int]] = []
    forms: Dict[int, str] = {}
    offset = 0
    for doc in docs:
        spans += [(a + offset, b + offset) for a, b in multiword_spans(doc)]
        forms.update((i + offset, f) for i, f in word_forms(doc).items())
        doc.user_data.pop(KEY, None)
        doc.user_data.pop(FORMS_KEY, None)
        offset += len(doc)
    joined = Doc.from_docs(list(docs), ensure_whitespace=ensure_whitespace)
    set_multiword_spans(joined, spans)
    set_word_forms(joined, forms)
    return joined


def surface_pieces(token: str, forms: Sequence[str]) -> Optional[List[str]]:
    """The pieces of a multiword token's text that stand for its words: the
    words themselves where they spell it, else the cut into as many non-empty
    pieces as words that matches most characters (each piece against its
    word from the start and from the end, case aside), then whose lengths are
    nearest the words', then the latest; None where the token has fewer
    characters than words."""
    if "".join(forms) == token:
        return list(forms)
    n, size = len(forms), len(token)
    if size < n:
        return None
    folded, words = token.lower(), [f.lower() for f in forms]

    def cost(piece: str, word: str) -> Tuple[int, int]:
        both = min(len(piece), len(word))
        front = next((k for k in range(both) if piece[k] != word[k]), both)
        back = next((k for k in range(both - front) if piece[-1 - k] != word[-1 - k]),
                    both - front)
        return -(front + back), abs(len(piece) - len(word))

    # best[(k, end)]: the least cost of cutting token[:end] into k pieces, and its cuts
    best = {(0, 0): ((0, 0), ())}
    for k in range(1, n + 1):
        for end in range(k, size - (n - k) + 1):
            options = []
            for start in range(k - 1, end):
                if (k - 1, start) in best:
                    (matched, apart), cuts = best[(k - 1, start)]
                    m, a = cost(folded[start:end], words[k - 1])
                    options.append(((matched + m, apart + a), cuts + (end,)))
            if options:  # the latest cuts of equal cost: a clitic at the end is short
                best[(k, end)] = min(options, key=lambda o: (o[0], [-c for c in o[1]]))
    cuts = (0,) + best[(n, size)][1]
    return [token[a:b] for a, b in zip(cuts, cuts[1:])]


def _attached(doc: Doc, first: int, last: int) -> bool:
    """Words first..last are written without a space between them."""
    return all(not doc[i].whitespace_ for i in range(first, last))


class MultiwordRules:
    """Which attached words form one token, learned from a treebank's Docs
    (each with its multiword tokens in user_data[KEY])."""

    def __init__(self, sequences: Iterable[Sequence[str]] = (), endings: Iterable[str] = (),
                 forms: Iterable[Tuple[Sequence[str], Sequence[str]]] = ()):
        # (as `form` writes them: rules saved before it may have a typographic apostrophe)
        self.sequences = {tuple(form(w) for w in s) for s in sequences}
        self.firsts = {s[0] for s in self.sequences}  # a sequence starts only at one of these
        self.endings = {form(e) for e in endings}
        # the pieces of a token whose words do not spell it -> the words' forms (lower case)
        self.forms = {tuple(pieces): tuple(words) for pieces, words in forms}

    @classmethod
    def learn(cls, docs: Iterable[Doc], min_count: int = 2) -> "MultiwordRules":
        """The rules of the docs' multiword tokens: a sequence or an ending
        counts once the docs write it as one token at least min_count times."""
        joined, apart = Counter(), Counter()  # word sequences written as one token or not
        ending_joined, ending_apart = Counter(), Counter()
        written: Dict[Tuple[str, ...], Counter] = {}  # pieces -> how often each words' forms
        for doc in docs:
            spans = multiword_spans(doc)
            inside = {i for a, b in spans for i in range(a, b + 1)}
            treebank_forms = word_forms(doc)
            for a, b in spans:
                joined[_forms(doc, a, b)] += 1
                if any(i in treebank_forms for i in range(a, b + 1)):
                    written.setdefault(_forms(doc, a, b), Counter())[tuple(
                        treebank_forms.get(i, doc[i].text).lower() for i in range(a, b + 1))] += 1
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
        sequences = {s for s, n in joined.items() if n >= min_count and n > apart[s]}
        endings = [e for e, n in ending_joined.items() if n >= min_count and n > ending_apart[e]]
        forms = [(pieces, found.most_common(1)[0][0]) for pieces, found in written.items()
                 if pieces in sequences]
        return cls(sequences, endings, forms)

    def word_forms(self, doc: Doc, spans: Sequence[Tuple[int, int]]) -> Dict[int, str]:
        """The forms of the words of the doc's multiword tokens whose pieces
        stand for other words (`forms`), each cased as its piece is."""
        found = {}
        for a, b in spans:
            words = self.forms.get(_forms(doc, a, b))
            if words is None:
                continue
            for i, word in zip(range(a, b + 1), words):
                cased_word = cased(word, doc[i].text)
                if cased_word != doc[i].text:
                    found[i] = cased_word
        return found

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
                "endings": sorted(self.endings),
                "forms": sorted([list(p), list(w)] for p, w in self.forms.items())}

    @classmethod
    def from_dict(cls, data: Dict[str, List]) -> "MultiwordRules":
        # (rules saved before the forms have none)
        return cls(data.get("sequences", ()), data.get("endings", ()), data.get("forms", ()))


def cased(word: str, piece: str) -> str:
    """A lower-case word cased as the piece of text it stands for: all upper
    case, a capital first, or as it is."""
    if len(piece) > 1 and piece.isupper():
        return word.upper()
    if piece[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _forms(doc: Doc, first: int, last: int) -> Tuple[str, ...]:
    return tuple(form(doc[i].text) for i in range(first, last + 1))


def form(word: str) -> str:
    """A word as the rules compare it: lower-cased, a typographic apostrophe
    (U+2019) beside a letter or digit read as the plain one (`’s`, `n’t`; alone,
    `’` closes a quotation as often as `'` does, and stays as it is)."""
    return TYPOGRAPHIC_APOSTROPHE.sub("'", word.lower())

