"""The text the character model learns from, laid out as users' text arrives.

A treebank converted for spaCy holds its sentences ten to a Doc, joined by
spaces: a model trained on that text alone has never seen a line break, and
reads "First line.\\nSecond line." as one sentence. `varied_docs` lays the
same sentences out again, in order, as documents of paragraphs (one sentence in
about half of them, as in UD English-EWT), each document in one of the forms
users bring:

- "ud": UD's own text files (`treebanks/gold_text.py`): a paragraph's sentences
  run on, lines wrapped at 80 characters, a blank line between paragraphs;
- "joined": each paragraph on one line, a blank line between paragraphs;
- "lines": one sentence per line;

and, across all three, some documents with CRLF line ends, some in lower case,
(only where the treebank's script has case: lower case is no variant of
Arabic, Han or Devanagari text), and some paragraphs whose last sentence lost its final punctuation (as Stanza's
tokenizer is trained with paragraph ends faked and final characters dropped).
`unpunctuated_docs` lays them out in the same forms without any punctuation, as
speech transcripts come (a space where a mark stood; a sentence of marks alone
goes): the text `elstm_senter`'s second pair of models learns from.
The words, multiword tokens and sentences are the treebank's: only the
whitespace between words, their case and dropped punctuation marks change.
"""
import random
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc

from .multiword import multiword_spans, set_multiword_spans
from .punctuation import is_punctuation

LAYOUTS = (("ud", 0.5), ("joined", 0.2), ("lines", 0.3))
CRLF, LOWER_CASE, NO_FINAL_PUNCTUATION = 0.1, 0.05, 0.2  # how often
# how often a document of the text without punctuation is in lower case
UNPUNCTUATED_LOWER_CASE = LOWER_CASE
SINGLE_SENTENCE_PARAGRAPH = 0.5
LONGEST_PARAGRAPH = 10  # sentences
SENTENCES_PER_DOCUMENT = 10
LINE_WIDTH = 80
# a script has case where at least this share of the treebank's letters do
CASED_LETTERS = 0.5


@dataclass
class Sentence:
    words: List[str]
    attached: List[bool]  # no space after the word
    multiword: List[Tuple[int, int]]  # first, last word (in the sentence)


def sentences_of(docs: Sequence[Doc]) -> List[Sentence]:
    """The gold sentences of the treebank's Docs, in order, with their spacing
    and multiword tokens."""
    out = []
    for doc in docs:
        spans = multiword_spans(doc)
        for sent in doc.sents:
            words = [t for t in sent if not t.text.isspace()]
            if not words:
                continue
            index = {t.i: k for k, t in enumerate(words)}
            out.append(Sentence([t.text for t in words], [not t.whitespace_ for t in words],
                                [(index[a], index[b]) for a, b in spans
                                 if a in index and b in index]))
    return out


def has_case(sentences: Sequence[Sentence]) -> bool:
    """Whether the sentences' script has case: most of their letters have an
    upper and a lower form (Latin, Greek, Cyrillic, Coptic, Armenian do; Arabic,
    Han, Devanagari, Hebrew do not)."""
    letters = [c for sentence in sentences for word in sentence.words for c in word
               if c.isalpha()]
    cased = sum(c.lower() != c.upper() for c in letters)
    return bool(letters) and cased >= CASED_LETTERS * len(letters)


def varied_docs(docs: Sequence[Doc], seed: int, epoch: int = 1,
                unpunctuated: bool = False) -> List[Doc]:
    """The treebank's sentences as documents of the forms in the module's
    docstring, chosen at random (`seed`; an epoch after the first lays them
    out anew); with `unpunctuated`, every one without its punctuation."""
    rng = random.Random(seed if epoch == 1 else f"{seed}/{epoch}")
    return _laid_out(docs, rng, varied=True, unpunctuated=unpunctuated)


def unpunctuated_docs(docs: Sequence[Doc], seed: int, epoch: int = 1) -> List[Doc]:
    return varied_docs(docs, seed, epoch, unpunctuated=True)


class Layouts:
    """Each epoch's training Docs (from 1), as `training_layouts` lays them
    out with its seed; `for_seed` lays the same Docs out with another (the
    text a model of another seed learns beside the first: `learning.seeds_of_others`)."""

    def __init__(self, docs: Sequence[Doc], training_text: str, seed: int, fresh_layouts: bool):
        self.docs, self.training_text, self.fresh_layouts = docs, training_text, fresh_layouts
        if training_text == "treebank":
            same = list(docs)
            self._of_epoch: Callable[[int], List[Doc]] = lambda epoch: same
            return
        bare = training_text == "unpunctuated"
        first = varied_docs(docs, seed, unpunctuated=bare)
        if not fresh_layouts:
            self._of_epoch = lambda epoch: first
        else:
            self._of_epoch = lambda epoch: (first if epoch == 1
                                            else varied_docs(docs, seed, epoch, bare))

    def __call__(self, epoch: int) -> List[Doc]:
        return self._of_epoch(epoch)

    def for_seed(self, seed: int) -> "Layouts":
        return Layouts(self.docs, self.training_text, seed, self.fresh_layouts)


def training_layouts(docs: Sequence[Doc], training_text: str, seed: int,
                     fresh_layouts: bool) -> Layouts:
    """Each epoch's training Docs (from 1): the treebank's as they are
    ("treebank"), or laid out as users' text arrives ("varied"; "unpunctuated":
    so and without punctuation), once for all epochs or, with `fresh_layouts`,
    anew each epoch (as Stanza's tokenizer fakes paragraph ends afresh each time
    it reads them)."""
    return Layouts(docs, training_text, seed, fresh_layouts)


def for_seed(references, seed: int):
    """The training Docs a model of `seed` learns beside the first: `references`
    laid out with that seed where they are `Layouts`, else the same."""
    return references.for_seed(seed) if isinstance(references, Layouts) else references


def ud_form_docs(docs: Sequence[Doc], seed: int) -> List[Doc]:
    """The treebank's sentences as documents in UD's text form alone (random
    paragraphs, `seed`; no CRLF, case or punctuation changed): held-out text
    as the senter is judged on it."""
    return _laid_out(docs, random.Random(seed), varied=False)


def _laid_out(docs: Sequence[Doc], rng: random.Random, varied: bool,
              unpunctuated: bool = False) -> List[Doc]:
    sentences = sentences_of(docs)
    cased = has_case(sentences)
    vocab = docs[0].vocab if docs else None
    out, k = [], 0
    while k < len(sentences):
        group = sentences[k:k + SENTENCES_PER_DOCUMENT]
        k += len(group)
        paragraphs, i = [], 0
        while i < len(group):
            size = 1 if rng.random() < SINGLE_SENTENCE_PARAGRAPH else rng.randint(
                2, LONGEST_PARAGRAPH)
            paragraphs.append([_copy(s) for s in group[i:i + size]])
            i += size
        if not varied:
            out.append(_render(vocab, paragraphs, "ud", crlf=False, lower=False))
            continue
        for paragraph in paragraphs:
            if rng.random() < NO_FINAL_PUNCTUATION:
                _drop_final_punctuation(paragraph[-1])
        layout = rng.choices([name for name, _ in LAYOUTS], [w for _, w in LAYOUTS])[0]
        crlf = rng.random() < CRLF
        lower = (rng.random() < (UNPUNCTUATED_LOWER_CASE if unpunctuated else LOWER_CASE)
                 and cased)
        if unpunctuated:
            paragraphs = [p for p in ([s for s in map(_without_punctuation, paragraph) if s]
                                      for paragraph in paragraphs) if p]
        if paragraphs:
            out.append(_render(vocab, paragraphs, layout, crlf=crlf, lower=lower))
    return out


def _copy(sentence: Sentence) -> Sentence:
    return Sentence(list(sentence.words), list(sentence.attached), list(sentence.multiword))


def _drop_final_punctuation(sentence: Sentence) -> None:
    last = len(sentence.words) - 1
    if (last > 0 and is_punctuation(sentence.words[last])
            and not any(a <= last <= b for a, b in sentence.multiword)):
        sentence.attached[last - 1] = sentence.attached[last]
        del sentence.words[last], sentence.attached[last]


def _without_punctuation(sentence: Sentence) -> Optional[Sentence]:
    """The sentence without its punctuation words (those inside a multiword
    token stay), a space after the word before each; None if none is left."""
    inside = {k for a, b in sentence.multiword for k in range(a, b + 1)}
    words: List[str] = []
    attached: List[bool] = []
    index = {}
    for k, word in enumerate(sentence.words):
        if k not in inside and is_punctuation(word):
            if attached:
                attached[-1] = False
            continue
        index[k] = len(words)
        words.append(word)
        attached.append(sentence.attached[k])
    if not words:
        return None
    return Sentence(words, attached, [(index[a], index[b]) for a, b in sentence.multiword])


def _render(vocab, paragraphs: List[List[Sentence]], layout: str, *, crlf: bool,
            lower: bool) -> Doc:
    """The Doc of the paragraphs' words with the layout's whitespace between
    them: a single space is the word's own, other whitespace a token of its own."""
    words: List[str] = []
    spaces: List[bool] = []
    starts: List[bool] = []
    multiword: List[Tuple[int, int]] = []
    line = 0  # characters on the current line
    newline = "\r\n" if crlf else "\n"
    for p, paragraph in enumerate(paragraphs):
        for s, sentence in enumerate(paragraph):
            offset = len(words)
            multiword += [(a + offset, b + offset) for a, b in sentence.multiword]
            for w, word in enumerate(sentence.words):
                text = word.lower() if lower else word
                if layout == "ud" and line and line + 1 + len(text) > LINE_WIDTH and spaces[-1]:
                    spaces[-1] = False  # the space before the word becomes a line break
                    _whitespace(words, spaces, starts, newline)
                    _shift_multiword(multiword, len(words) - 1)
                    line = 0
                words.append(text)
                spaces.append(False)
                starts.append(w == 0)
                line += len(text)
                last_of_sentence = w == len(sentence.words) - 1
                if not last_of_sentence:
                    if not sentence.attached[w]:
                        spaces[-1] = True
                        line += 1
                    continue
                last_of_paragraph = s == len(paragraph) - 1
                if last_of_paragraph and p == len(paragraphs) - 1:
                    break
                if last_of_paragraph:
                    between = (" " if layout == "ud" else "") + newline * 2
                elif layout == "lines":
                    between = newline
                else:
                    between = "" if sentence.attached[w] else " "
                if between.startswith(" "):
                    spaces[-1] = True
                    line += 1
                    between = between[1:]
                if between:
                    _whitespace(words, spaces, starts, between)
                    line = 0
    doc = Doc(vocab, words=words, spaces=spaces, sent_starts=starts)
    set_multiword_spans(doc, multiword)
    return doc


def _whitespace(words: List[str], spaces: List[bool], starts: List[bool], text: str) -> None:
    words.append(text)
    spaces.append(False)
    starts.append(False)


def _shift_multiword(multiword: List[Tuple[int, int]], at: int) -> None:
    """A whitespace token inserted at `at` moves the multiword tokens after it
    (none is split: a multiword token's words are written without space)."""
    multiword[:] = [(a + (a >= at), b + (b >= at)) for a, b in multiword]
