"""Words that contain a space, as Vietnamese writes a word of several
syllables (`chủ tịch`, `Bùi Văn Luyến`: 22% of UD Vietnamese-VTB's words):
learned from a treebank's own words, as UDPipe 1 allows spaces in its tokens
when a training word holds one. A treebank without such words learns nothing,
and its tokens stay as they were.

The lexicon holds every training word with whitespace inside (runs of
whitespace read as one space) and two counts: how often the training data
writes it as one word (`joined`), and how often the same text is written as
two or more whole words (`apart`: `ủy ban` as `ủy` + `ban`; not inside a longer
word). A word is kept where it is written together more often than apart.
Besides, a run of two or more capitalised syllables (`Lạng Sơn`, a name the
lexicon lacks) is one word where the training data writes such runs as one
whole word more often than not.

The tokenizer joins its tokens left to right, the longest word first: tokens
whose text, whitespace between them read as one space, is a kept word (or a
run of capitalised ones, whitespace between each two) become one token;
across a line break too (`chủ\ntịch`, where a line was wrapped inside the
word), never across a blank line, which ends a paragraph. A token so made
holds its whitespace: the Doc's text stays the input's.

`case` says how a text is looked up: "lower" (the lexicon and the text
lower-cased: `Chúng tôi` at a sentence's start is `chúng tôi`; the best on
VTB dev), "first_lower" (as written, else with its first letter lower-cased)
or "as_written".
"""
from collections import Counter
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc

from .paragraphs import ends_paragraph

CASES = ("as_written", "first_lower", "lower")


def word_key(text: str) -> str:
    """A word's text as the lexicon holds it: runs of whitespace as one space."""
    return " ".join(text.split())


class SpacedWords:
    """The lexicon of a treebank's words that contain a space: word -> (joined,
    apart) counts of the words kept (`learn`)."""

    def __init__(self, words: Optional[Dict[str, Sequence[int]]] = None, case: str = "lower",
                 capitalised_runs: Sequence[int] = (0, 0)):
        if case not in CASES:
            raise ValueError(f"SpacedWords: case must be one of {', '.join(CASES)}, "
                             f"got {case!r}.")
        self.case = case
        self.words = {key: (int(joined), int(apart)) for key, (joined, apart)
                      in (words or {}).items()}
        # every start of a word, so that a lookup stops as soon as no word can match
        self.prefixes = {key[:i] for key in self.words for i in range(1, len(key) + 1)}
        # how often the training data writes a run of capitalised syllables as one word, and not
        self.capitalised_runs = (int(capitalised_runs[0]), int(capitalised_runs[1]))
        self.joins_runs = self.capitalised_runs[0] > self.capitalised_runs[1]

    def __len__(self) -> int:
        return len(self.words)

    @classmethod
    def learn(cls, docs: Iterable[Doc], *, case: str = "lower", keep_all: bool = False,
              runs: bool = True) -> "SpacedWords":
        """The docs' words with a space, each kept where the docs write it as
        one word more often than as several (all of them if `keep_all`), and
        (if `runs`) how often they write a run of capitalised syllables as one
        word and not."""
        docs = list(docs)
        fold = str.lower if case == "lower" else str
        joined: Counter = Counter()
        for doc in docs:
            for token in doc:
                if len(token.text.split()) > 1:
                    joined[fold(word_key(token.text))] += 1
        if not joined:
            return cls(case=case)
        starts = {key[:i] for key in joined for i in range(1, len(key) + 1)}
        apart: Counter = Counter()
        for doc in docs:
            words = [t for t in doc if not t.text.isspace()]
            for i in range(len(words)):
                text = fold(words[i].text)
                for j in range(i + 1, len(words)):
                    gap = " " if words[j].idx > words[j - 1].idx + len(words[j - 1]) else ""
                    text += gap + fold(words[j].text)
                    if text not in starts:
                        break
                    if text in joined:
                        apart[text] += 1
        kept = {key: (n, apart[key]) for key, n in joined.items()
                if keep_all or n > apart[key]}
        return cls(kept, case=case, capitalised_runs=_run_counts(docs) if runs else (0, 0))

    def forms(self, text: str) -> Tuple[str, ...]:
        """The forms of a text (whitespace read as one space) to look up."""
        if self.case == "lower":
            return (text.lower(),)
        if self.case == "first_lower" and text[:1] != text[:1].lower():
            return (text, text[:1].lower() + text[1:])
        return (text,)

    def spans(self, doc: Doc) -> List[Tuple[int, int]]:
        """The (start, end) token ranges to join, left to right, longest first."""
        found: List[Tuple[int, int]] = []
        if not self.words and not self.joins_runs:
            return found
        i, n, text = 0, len(doc), doc.text
        while i < n:
            end = None if doc[i].text.isspace() else self._longest(doc, text, i)
            if end is None:
                i += 1
            else:
                found.append((i, end))
                i = end
        return found

    def _longest(self, doc: Doc, doc_text: str, start: int):
        """The end of the longest kept word that starts at token `start`, or None."""
        text, last_end, longest = doc[start].text, doc[start].idx + len(doc[start]), None
        for k in range(start + 1, len(doc)):
            token = doc[k]
            if token.text.isspace():
                continue
            gap = doc_text[last_end:token.idx]
            if ends_paragraph(gap):
                break
            text += (" " if gap else "") + token.text
            last_end = token.idx + len(token)
            forms = self.forms(text)
            if not any(form in self.prefixes for form in forms):
                break
            if any(form in self.words for form in forms):
                longest = k + 1
        run = self._run_end(doc, doc_text, start) if self.joins_runs else None
        return run if run is not None and (longest is None or run > longest) else longest

    def _run_end(self, doc: Doc, doc_text: str, start: int):
        """The end of the run of two or more capitalised tokens, whitespace
        between each two, that starts at token `start`, or None."""
        if not is_capitalised(doc[start].text):
            return None
        end, last_end = None, doc[start].idx + len(doc[start])
        for k in range(start + 1, len(doc)):
            token = doc[k]
            if token.text.isspace():
                continue
            gap = doc_text[last_end:token.idx]
            if not gap or ends_paragraph(gap) or not is_capitalised(token.text):
                break
            end, last_end = k + 1, token.idx + len(token)
        return end

    def join(self, doc: Doc) -> Doc:
        """The doc with each kept word's tokens merged into one."""
        spans = self.spans(doc)
        if spans:
            with doc.retokenize() as retokenizer:
                for start, end in spans:
                    retokenizer.merge(doc[start:end])
        return doc

    def to_dict(self) -> Dict[str, object]:
        return {"case": self.case, "capitalised_runs": list(self.capitalised_runs),
                "words": {key: list(counts) for key, counts in sorted(self.words.items())}}

    @classmethod
    def from_dict(cls, data: Dict[str, object]) -> "SpacedWords":
        return cls(data.get("words", {}), case=data.get("case", "lower"),
                   capitalised_runs=data.get("capitalised_runs", (0, 0)))


def is_capitalised(text: str) -> bool:
    return text[:1].isupper()


def _run_counts(docs: Sequence[Doc]) -> Tuple[int, int]:
    """How often the docs write a run of two or more capitalised syllables (the
    whitespace-separated pieces of their words, whitespace between each two)
    as one whole word, and how often not."""
    joined = apart = 0
    for doc in docs:
        syllables = _syllables(doc)
        size = Counter(word for _, word, _ in syllables)  # each word's syllables
        run: List[int] = []  # the words of the run's syllables so far
        for piece, word, attached in syllables + [("", -1, False)]:
            if is_capitalised(piece) and run and not attached:
                run.append(word)
                continue
            if len(run) > 1:
                whole = run[0] == run[-1] and size[run[0]] == len(run)
                joined, apart = joined + whole, apart + (not whole)
            run = [word] if is_capitalised(piece) else []
    return joined, apart


def _syllables(doc: Doc) -> List[Tuple[str, int, bool]]:
    """Each syllable of the doc's words: its text, its word's index among the
    words, and whether it follows the one before without whitespace."""
    words = [t for t in doc if not t.text.isspace()]
    found = []
    for k, word in enumerate(words):
        attached = k > 0 and word.idx == words[k - 1].idx + len(words[k - 1])
        found += [(piece, k, attached and n == 0) for n, piece in enumerate(word.text.split())]
    return found
