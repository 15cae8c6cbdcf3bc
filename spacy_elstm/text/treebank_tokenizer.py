"""A tokenizer that splits raw text into the words of the treebank it was
initialised on: spaCy's rule tokenizer for the language, adapted to the
training data by `spacy train` (`[initialize.tokenizer]`), saved and loaded
with the pipeline.

What it learns from the training Docs (the treebank's words and the spaces
between them), each change kept only where it makes the tokenizer agree with
more of the training words (F1 over character spans, every whitespace-free
chunk of the training text tokenized as spaCy does, on its own):

1. runs of punctuation that the treebank writes as one word stay together, as
   prefix, suffix or whole chunk: of one character (`!!!`, `**`, `____`, `$$$`),
   or of a set of characters the treebank mixes in one word (`!?`, `?!!`, `..?`
   in EWT, every time);
2. a mark of punctuation that the treebank writes as a word of its own at a
   chunk's start or end, where the language's rules leave it on the word,
   is split off there in any word: Armenian's full stop `։`, which spaCy's
   rules for Armenian do not know, or `.` after a Latin word in Arabic or
   Persian text, whose rules split it only after their own letters;
3. the language's infix rules that split words the treebank keeps whole (EWT
   keeps `e-mail` and `01-Feb-02`) are dropped;
4. every chunk whose most frequent analysis in the training data the
   rules still miss becomes a special case (spaCy's tokenizer exceptions);
   so does a chunk's core, the chunk without the words of punctuation at its
   ends, where its most frequent analysis over every chunk that holds it is
   of several words and the training text never has it alone: Turkish
   `gibiydi.` (`gibi` + `ydi` + `.`) teaches `gibiydi,` and `gibiydi`, as
   spaCy's rules look a special case up again once punctuation is split off
   (kept where the training words' F1 does not drop);
5. the multiword tokens (`multiword.py`): the Docs it makes carry them, so
   CoNLL-U output writes `don't` as one token of two words; a token of letters
   training never had is split by the rules of the endings of its multiword
   tokens (`multiword_suffixes.py`: Wolof `nangoo` = `nangu` + `a`);
6. the words that contain a space (`spaced_words.py`), where the treebank has
   them (Vietnamese writes `chủ tịch`): the tokens of such a word become one
   token that holds the whitespace, so `doc.text` stays the input and
   CoNLL-U's FORM keeps the space. A treebank without them (EWT) learns none,
   and its tokens are the rules' own.
7. where the treebank writes its words together so that the rules (steps 1
   to 3) cannot follow it (Classical Chinese, Coptic's bound groups:
   `joined_words.py`), a character model decides every word and token inside
   whitespace-free text, and the rules' steps 4 and 5 are left out: a chunk
   seen in training keeps its analysis there, the model splits the rest.

A blank line ends a paragraph: the word after it starts a sentence (set on the
Doc, which spaCy's parser keeps).

The numbers (training-word F1 before and after each step) are in
`tokenizer.learned` and in the saved pipeline.
"""
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union

import srsly
from spacy.attrs import ORTH
from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import (compile_infix_regex, compile_prefix_regex, compile_suffix_regex,
                        ensure_path, get_lang_class, minibatch, registry)
from spacy.vocab import Vocab

from .joined_words import BELOW, CHUNK, JoinedWords
from .multiword import MultiwordRules, set_multiword_spans, set_word_forms
from .multiword_suffixes import SuffixRules
from .paragraphs import mark_paragraph_starts
from .punctuation import is_punctuation
from .spaced_words import SpacedWords
from .training_docs import treebank_docs

NAME = "spacy-elstm.TreebankTokenizer.v1"
Analysis = Tuple[Tuple[int, int], ...]  # word spans, as character offsets in a chunk


@registry.tokenizers(NAME)
def create_treebank_tokenizer() -> Callable[[Language], "TreebankTokenizer"]:
    """spaCy's rule tokenizer for the pipeline's language, to be adapted to the
    training treebank's words by `[initialize.tokenizer]` (`min_count`)."""

    def make(nlp: Language) -> "TreebankTokenizer":
        return TreebankTokenizer(nlp.vocab, default_rules(nlp))

    return make


def default_rules(nlp: Language) -> Tokenizer:
    """The language's own rule tokenizer, as `spacy.Tokenizer.v1` builds it."""
    return registry.tokenizers.get("spacy.Tokenizer.v1")()(nlp)


class TreebankTokenizer:
    """spaCy's rule tokenizer (`rules`) with what `initialize` learned from a
    treebank, and the multiword tokens it marks on every Doc."""

    def __init__(self, vocab: Vocab, rules: Tokenizer):
        self.vocab = vocab
        self.rules = rules
        self.multiword = MultiwordRules()
        self.suffixes = SuffixRules()
        self.spaced_words = SpacedWords()
        self.joined_words = JoinedWords()
        self.learned: Dict[str, object] = {}

    def __call__(self, text: str) -> Doc:
        if self.joined_words:
            return self._completed(text, self.joined_words.doc(self.vocab, text))
        return self._completed(text, None)

    def pipe(self, texts: Iterable[str], batch_size: int = 1000) -> Iterator[Doc]:
        """The Docs of the texts, in order; where a character model splits the
        words (step 7), it reads `batch_size` texts' windows together, as it
        reads one text's (the same labels, in fewer and larger steps)."""
        for batch in minibatch(texts, batch_size):
            joined = self.joined_words.docs(self.vocab, batch) if self.joined_words \
                else [None] * len(batch)
            for text, doc in zip(batch, joined):
                yield self._completed(text, doc)

    def _completed(self, text: str, joined: Optional[Doc]) -> Doc:
        """The text's Doc: the character model's words (`joined`), else the
        rules' with their multiword tokens; then the words with a space joined
        and a paragraph's first word made a sentence start."""
        if joined is not None:
            doc = self.spaced_words.join(joined)
        else:
            doc = self.spaced_words.join(self.rules(text))
            spans = self.multiword.spans(doc)
            # a token whose words do not spell it (Wolof `moo` = `mu` + `a`)
            forms = self.multiword.word_forms(doc, spans)
            if self.suffixes:  # a multiword token training never had, by its ending
                spans, forms = self.suffixes.split(doc, spans, forms)
            set_multiword_spans(doc, spans)
            set_word_forms(doc, forms)
        mark_paragraph_starts(doc, text)  # a blank line ends a paragraph, and so a sentence
        return doc

    def explain(self, text: str) -> List[Tuple[str, str]]:
        return self.rules.explain(text)

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None, min_count: int = 1,
                   treebank: Optional[Union[str, Path]] = None, seed: int = 0,
                   char_epochs: int = 12, min_epoch_sentences: int = 12000) -> None:
        """Adapt the rules to the training data's words (see the module's
        docstring).

        min_count (int): the fewest times a chunk's most frequent analysis must
            occur in the training data to become a special case.
        treebank (Optional[Path]): learn from this converted corpus (.spacy) in
            place of the training examples: whole Docs with their multiword
            tokens, which examples read with gold_preproc = true lack.
        seed (int): the character model's seed, where one is learned (step 6).
        char_epochs (int): its passes over the training text.
        min_epoch_sentences (int): a training text of fewer sentences is passed
            over this many sentences' worth each epoch (as elstm_senter's).
        """
        if min_count < 1:
            raise ValueError(f"[initialize.tokenizer] min_count must be an integer >= 1, "
                             f"got {min_count!r}.")
        references = treebank_docs(get_examples, treebank, self.vocab,
                                   f"[initialize.tokenizer] ({NAME})")
        if not references:
            raise ValueError(f"{NAME}: no training examples to learn the tokenization from.")
        chunks = _chunk_analyses(references)
        learned: Dict[str, object] = {"chunks": sum(sum(c.values()) for c in chunks.values())}
        current = learned["f1_spacy_rules"] = _f1(self.rules, chunks)
        prefixes, suffixes, infixes = _patterns(self.vocab.lang)
        base = self.rules  # each candidate: its special cases with other affix patterns
        kept_runs, self.rules, current = _greedy(
            self.rules, chunks, current, _punct_runs(chunks),
            lambda runs: _with_patterns(base, _runs(runs) + prefixes, _runs(runs) + suffixes,
                                        infixes))
        learned["punctuation_runs"] = kept_runs

        def with_marks(marks: List[Tuple[str, str]]) -> Tokenizer:
            return _with_patterns(base, _runs(kept_runs) + prefixes + _marks(marks, "prefix"),
                                  _runs(kept_runs) + suffixes + _marks(marks, "suffix"), infixes)
        kept_marks, self.rules, current = _greedy(
            self.rules, chunks, current, _split_marks(self.rules, chunks), with_marks)
        prefixes += _marks(kept_marks, "prefix")
        suffixes += _marks(kept_marks, "suffix")
        learned["punctuation_marks"] = {side: [mark for s, mark in kept_marks if s == side]
                                        for side in ("prefix", "suffix")}
        learned["infixes_dropped"], self.rules, current = _greedy(
            self.rules, chunks, current, list(infixes),
            lambda dropped: _with_patterns(base, _runs(kept_runs) + prefixes,
                                           _runs(kept_runs) + suffixes,
                                           [p for p in infixes if p not in dropped]))
        learned["f1_after_rules"] = current
        specials = capitalised = 0
        for chunk, analyses in sorted(chunks.items()):
            analysis, count = analyses.most_common(1)[0]
            if count >= min_count and _analysis(self.rules, chunk) != analysis:
                self.rules.add_special_case(chunk, [{ORTH: chunk[a:b]} for a, b in analysis])
                specials += 1
                # a chunk split in words is split so at a sentence's start too, where
                # the training data never wrote it with a capital (Wolof `Mooy`)
                capital = chunk[:1].upper() + chunk[1:]
                if len(analysis) > 1 and capital not in chunks and \
                        _analysis(self.rules, capital) != analysis:
                    self.rules.add_special_case(capital,
                                                [{ORTH: capital[a:b]} for a, b in analysis])
                    capitalised += 1
        learned["special_cases"] = specials
        learned["special_cases_capitalised"] = capitalised
        current = _f1(self.rules, chunks)
        candidate = _copied(self.rules)
        added = 0
        for core, analyses in sorted(_core_analyses(chunks).items()):
            analysis, count = analyses.most_common(1)[0]
            if count >= min_count and len(analysis) > 1 and core not in chunks and \
                    _analysis(candidate, core) != analysis:
                candidate.add_special_case(core, [{ORTH: core[a:b]} for a, b in analysis])
                added += 1
        score = _f1(candidate, chunks) if added else current
        if added and score >= current:
            self.rules, current = candidate, score
        else:
            added = 0
        learned["special_cases_inside_punctuation"] = added
        learned["f1_learned"] = current
        self.multiword = MultiwordRules.learn(references)
        learned["multiword_sequences"] = len(self.multiword.sequences)
        learned["multiword_endings"] = sorted(self.multiword.endings)
        learned["multiword_forms"] = len(self.multiword.forms)
        self.suffixes = SuffixRules.learn(references)
        learned["multiword_suffixes"] = len(self.suffixes)
        self.spaced_words = SpacedWords.learn(references)
        learned["words_with_spaces"] = len(self.spaced_words)
        learned["capitalised_runs"] = list(self.spaced_words.capitalised_runs)
        self.joined_words = JoinedWords()
        if learned["f1_after_rules"] < BELOW:
            self.joined_words = JoinedWords.learn(
                references, self.vocab, f"[initialize.tokenizer] ({NAME})", epochs=char_epochs,
                seed=seed, min_epoch_sentences=min_epoch_sentences)
            learned["joined_words"] = {"chunks": len(self.joined_words.chunks),
                                       **self.joined_words.segmenter.learned}
        self.learned = learned

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        return srsly.msgpack_dumps({"rules": self.rules.to_bytes(exclude=["vocab"]),
                                    "multiword": self.multiword.to_dict(),
                                    "multiword_suffixes": self.suffixes.to_dict(),
                                    "spaced_words": self.spaced_words.to_dict(),
                                    "joined_words": self.joined_words.to_dict(),
                                    "learned": self.learned})

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = tuple()) -> "TreebankTokenizer":
        msg = srsly.msgpack_loads(data)
        self.rules.from_bytes(msg["rules"], exclude=["vocab"])
        self.multiword = MultiwordRules.from_dict(msg["multiword"])
        # one saved before the suffix rules has none, and splits no unseen token
        self.suffixes = SuffixRules.from_dict(msg.get("multiword_suffixes", {}))
        # a tokenizer saved before it learned words with spaces has none
        self.spaced_words = SpacedWords.from_dict(msg.get("spaced_words", {}))
        # and one saved before it learned words written together has no model
        self.joined_words = JoinedWords.from_dict(msg.get("joined_words", {}), NAME)
        self.learned = msg.get("learned", {})
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        ensure_path(path).write_bytes(self.to_bytes(exclude=exclude))

    def from_disk(self, path: Union[str, Path], *,
                  exclude: Iterable[str] = tuple()) -> "TreebankTokenizer":
        return self.from_bytes(ensure_path(path).read_bytes(), exclude=exclude)


def _chunk_analyses(docs: Iterable[Doc]) -> Dict[str, Counter]:
    """Each whitespace-free chunk of the docs' text -> how often each analysis
    (its words' spans) occurs. A chunk that a word crosses is left out."""
    chunks: Dict[str, Counter] = defaultdict(Counter)
    for doc in docs:
        text = doc.text
        words = [(t.idx, t.idx + len(t.text)) for t in doc if not t.is_space]
        k = 0
        for match in CHUNK.finditer(text):
            start, end = match.span()
            spans = []
            while k < len(words) and words[k][0] < end:
                spans.append(words[k])
                k += 1
            if spans and spans[0][0] == start and spans[-1][1] == end and \
                    all(a >= start and b <= end for a, b in spans):
                chunks[match.group()][tuple((a - start, b - start) for a, b in spans)] += 1
    return chunks


def _core_analyses(chunks: Dict[str, Counter]) -> Dict[str, Counter]:
    """The analyses of each chunk's core: the chunk without the words of
    punctuation at its start and end (`gibiydi` of `gibiydi.` and `gibiydi,`),
    counted over every chunk that has it, as spaCy's rules look up a special
    case again once they have split such punctuation off."""
    cores: Dict[str, Counter] = defaultdict(Counter)
    for chunk, analyses in chunks.items():
        for analysis, count in analyses.items():
            first, last = 0, len(analysis)
            while first < last and is_punctuation(chunk[slice(*analysis[first])]):
                first += 1
            while last > first and is_punctuation(chunk[slice(*analysis[last - 1])]):
                last -= 1
            if first == last:
                continue
            start, end = analysis[first][0], analysis[last - 1][1]
            cores[chunk[start:end]][tuple((a - start, b - start)
                                          for a, b in analysis[first:last])] += count
    return cores


def _analysis(rules: Tokenizer, chunk: str) -> Analysis:
    return tuple((t.idx, t.idx + len(t.text)) for t in rules(chunk) if not t.is_space)


def _f1(rules: Tokenizer, chunks: Dict[str, Counter]) -> float:
    """F1 of the rules' words against the training words, by character spans."""
    matched = gold = predicted = 0
    for chunk, analyses in chunks.items():
        mine = set(_analysis(rules, chunk))
        for analysis, count in analyses.items():
            matched += count * len(mine.intersection(analysis))
            gold += count * len(analysis)
            predicted += count * len(mine)
    return round(2 * matched / (gold + predicted), 6) if gold + predicted else 0.0


def _punct_runs(chunks: Dict[str, Counter]) -> List[str]:
    """The runs of punctuation that the training data writes as one word of two
    or more characters, most frequent first, each named by its characters
    (sorted): a run of one character ("!": `!!!`), or of a set of them mixed
    ("!?": `!?`, `?!!`) that at least two words mix."""
    counts: Counter = Counter()
    for chunk, analyses in chunks.items():
        for analysis, count in analyses.items():
            for a, b in analysis:
                word = chunk[a:b]
                if len(word) > 1 and not any(c.isalnum() or c.isspace() for c in word):
                    counts["".join(sorted(set(word)))] += count
    return [run for run, count in counts.most_common() if len(run) == 1 or count >= 2]


def _greedy(rules: Tokenizer, chunks: Dict[str, Counter], current: float, choices: List,
            build: Callable[[List], Tokenizer]) -> Tuple[List, Tokenizer, float]:
    """Each choice tried in turn beside those kept before it, and kept where the
    rules `build(kept + [choice])` makes agree with more of the training words
    (F1 above `current`): the choices kept, their rules and their F1 (`rules`
    and `current` where none is kept)."""
    kept: List = []
    for choice in choices:
        candidate = build(kept + [choice])
        score = _f1(candidate, chunks)
        if score > current:
            kept, rules, current = kept + [choice], candidate, score
    return kept, rules, current


def _marks(marks: List[Tuple[str, str]], side: str) -> List[str]:
    """The affix patterns of the (side, mark) pairs on `side`."""
    return [re.escape(mark) for on, mark in marks if on == side]


def _split_marks(rules: Tokenizer, chunks: Dict[str, Counter]) -> List[Tuple[str, str]]:
    """The marks of punctuation (one character) that the training data writes
    as a word of their own at the start ("prefix") or end ("suffix") of a chunk
    of several words, where the rules leave them on the word, at least twice:
    (side, mark), most often missed first."""
    missed: Counter = Counter()
    for chunk, analyses in chunks.items():
        mine = set(_analysis(rules, chunk))
        for analysis, count in analyses.items():
            if len(analysis) < 2:
                continue
            for side, (a, b) in (("prefix", analysis[0]), ("suffix", analysis[-1])):
                if b - a == 1 and is_punctuation(chunk[a:b]) and (a, b) not in mine:
                    missed[side, chunk[a:b]] += count
    return [key for key, count in missed.most_common() if count >= 2]


def _runs(runs: List[str]) -> List[str]:
    """The patterns of the runs, mixed ones first: an alternation takes the
    first pattern that matches, and a mixed run holds the runs of its characters."""
    return [(re.escape(run) if len(run) == 1 else "[" + re.escape(run) + "]") + "{2,}"
            for run in sorted(runs, key=lambda run: -len(run))]


def _patterns(lang: str) -> Tuple[List[str], List[str], List[str]]:
    """The language's own prefix, suffix and infix patterns, one per entry."""
    defaults = get_lang_class(lang).Defaults
    return (list(defaults.prefixes or []), list(defaults.suffixes or []),
            list(defaults.infixes or []))


def _copied(rules: Tokenizer, **patterns) -> Tokenizer:
    """A copy of the rules: their special cases and affix patterns, with
    `patterns` (prefix_search, suffix_search, infix_finditer) in place of
    theirs. Built at once: spaCy checks every special case again each time a
    pattern is set, some seconds each for a class of 16,000 (Indonesian)."""
    settings = {"prefix_search": rules.prefix_search, "suffix_search": rules.suffix_search,
                "infix_finditer": rules.infix_finditer, **patterns}
    return Tokenizer(rules.vocab, rules=rules.rules, token_match=rules.token_match,
                     url_match=rules.url_match, faster_heuristics=rules.faster_heuristics,
                     **settings)


def _with_patterns(rules: Tokenizer, prefixes: List[str], suffixes: List[str],
                   infixes: List[str]) -> Tokenizer:
    """A copy of the rules (special cases included) with these affix patterns."""
    return _copied(rules,
                   prefix_search=compile_prefix_regex(prefixes).search if prefixes else None,
                   suffix_search=compile_suffix_regex(suffixes).search if suffixes else None,
                   infix_finditer=compile_infix_regex(infixes).finditer if infixes else None)
