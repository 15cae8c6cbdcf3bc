"""Multiword tokens never seen in training, found by their ending, as UDPipe 1
learns suffix rules: Wolof writes `mu` + `a` as `moo` and any verb + `a` as the
verb with its last vowel long (`nangu` + `a`: `nangoo`), `fa` + `di` as `fay`;
Turkish writes `yakasında` + `ki` as `yakasındaki`.

From each training multiword token (its text lower-cased, its words' forms):
the longest start the token shares with its first word is the stem, and the
rest of the token is the ending; the rule says what the ending stands for: the
rest of the first word and the words after it (`nangoo`: stem `nang`, ending
`oo` -> `u` + [`a`]). A rule is looked up by the ending with up to EXTRA more
characters of the stem before it (`goo`, `ngoo`), the longest that a token
ends with first. The tokens the training data writes once stand for those it
never has: a key is kept where at least MIN_COUNT of them are written by its
rule, and more than half of those with its ending (a Wolof word ending in `y`
is not all `di`; Greek `στο` = `σ` + `το` is frequent, and no rare word ending
in `το` is two words).

Only tokens of letters that the training data never has are split: a token it
has keeps the analysis the tokenizer's rules and lexicon give it. The pieces of
such a token become the Doc's words (`multiword.surface_pieces`), with the
words' forms beside where they differ, as the converter makes training Docs.
"""
import bisect
import itertools
from collections import Counter, defaultdict
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc

from .multiword import cased, multiword_spans, surface_pieces, word_forms

EXTRA = 2  # the stem's characters a key may hold before the ending
MIN_COUNT = 2
# (characters of the token the ending takes, the rest of the first word, the next words)
Rule = Tuple[int, str, Tuple[str, ...]]


def _rule(token: str, words: Sequence[str]) -> Optional[Tuple[int, Rule]]:
    """The stem's length and the rule of a token (lower case) and its words
    (lower case), or None where they share no start or the token is its first word."""
    first = words[0]
    stem = next((k for k in range(min(len(token), len(first))) if token[k] != first[k]),
                min(len(token), len(first)))
    if stem == 0 or stem == len(token):
        return None
    return stem, (len(token) - stem, first[stem:], tuple(words[1:]))


def _tokens(doc: Doc) -> Iterable[Tuple[str, Optional[Tuple[str, ...]]]]:
    """Each token's text (lower case) and, for a multiword token, its words' forms."""
    spans = {a: b for a, b in multiword_spans(doc)}
    forms = word_forms(doc)
    i = 0
    while i < len(doc):
        if i in spans:
            b = spans[i]
            yield (doc.text[doc[i].idx:doc[b].idx + len(doc[b])].lower(),
                   tuple(forms.get(k, doc[k].text).lower() for k in range(i, b + 1)))
            i = b + 1
        else:
            yield doc[i].text.lower(), None
            i += 1


class SuffixRules:
    """Endings -> the rule of the multiword tokens written with them, and the
    training tokens with a kept ending (which are left as they are)."""

    def __init__(self, rules: Optional[Dict[str, Sequence]] = None, seen: Iterable[str] = ()):
        self.rules: Dict[str, Rule] = {key: (int(strip), str(rest), tuple(words))
                                       for key, (strip, rest, words) in (rules or {}).items()}
        self.seen = set(seen)
        self.longest = max((len(key) for key in self.rules), default=0)

    def __len__(self) -> int:
        return len(self.rules)

    @classmethod
    def learn(cls, docs: Iterable[Doc]) -> "SuffixRules":
        by_key: Dict[str, Counter] = defaultdict(Counter)
        every = [t for doc in docs for t in _tokens(doc) if t[0].isalpha() or t[1]]
        frequency = Counter(token for token, _ in every)
        # the tokens written once stand for those training never had
        tokens = [t for t in every if frequency[t[0]] == 1]
        for token, words in tokens:
            if words is None:
                continue
            found = _rule(token, words)
            if found is None:
                continue
            stem, rule = found
            for extra in range(0, min(EXTRA, stem - 1) + 1):
                by_key[token[stem - extra:]][rule] += 1
        ending: Counter = Counter()  # tokens with each key's ending
        longest = max(map(len, by_key), default=0)
        for token, _ in tokens:
            for size in range(1, min(len(token) - 1, longest) + 1):
                if token[-size:] in by_key:
                    ending[token[-size:]] += 1
        kept = {}
        for key, rules in by_key.items():
            rule, count = rules.most_common(1)[0]
            if count >= MIN_COUNT and 2 * count > ending[key]:
                kept[key] = rule
        seen = {token for token, _ in every if any(token.endswith(key) for key in kept)}
        return cls({key: list(rule) for key, rule in kept.items()}, seen)

    def words(self, token: str) -> Optional[List[str]]:
        """The words of a token of letters the training data lacks, by the
        rule of the longest kept ending it has (lower case), or None."""
        lower = token.lower()
        if not self.rules or not lower.isalpha() or lower in self.seen:
            return None
        for size in range(min(self.longest, len(lower) - 1), 0, -1):
            rule = self.rules.get(lower[-size:])
            if rule is not None:
                strip, rest, following = rule
                if strip >= len(lower):
                    return None
                return [lower[:-strip] + rest, *following]
        return None

    def split(self, doc: Doc, taken: Sequence[Tuple[int, int]], forms: Dict[int, str]) -> Tuple[
            List[Tuple[int, int]], Dict[int, str]]:
        """Split the doc's unseen tokens by the rules, in place, but the words
        of the multiword tokens `taken` (first, last; their words' `forms`);
        returns every multiword token and form, those given moved with the split."""
        inside = {i for a, b in taken for i in range(a, b + 1)}
        found = []  # (token index, pieces, words)
        for token in doc:
            if token.i in inside:
                continue
            words = self.words(token.text)
            if words is None:
                continue
            pieces = surface_pieces(token.text, words)
            if pieces is not None and len(pieces) > 1:
                found.append((token.i, pieces, words))
        if not found:
            return list(taken), dict(forms)
        with doc.retokenize() as retokenizer:
            for i, pieces, _ in found:
                retokenizer.split(doc[i], pieces, heads=[(doc[i], k) for k in range(len(pieces))])
        splits = [i for i, _, _ in found]
        added = list(itertools.accumulate(len(pieces) - 1 for _, pieces, _ in found))

        def moved(index: int) -> int:  # a word's index after the split, where it was not split
            before = bisect.bisect_left(splits, index)
            return index + (added[before - 1] if before else 0)

        spans = [(moved(a), moved(b)) for a, b in taken]
        forms = {moved(i): form for i, form in forms.items()}
        for i, pieces, words in found:
            first = moved(i)
            spans.append((first, first + len(pieces) - 1))
            for k, (piece, word) in enumerate(zip(pieces, words)):
                word = cased(word, piece)
                if word != piece:
                    forms[first + k] = word
        return sorted(spans), forms

    def to_dict(self) -> Dict[str, object]:
        return {"rules": {key: list(rule) for key, rule in sorted(self.rules.items())},
                "seen": sorted(self.seen)}

    @classmethod
    def from_dict(cls, data: Dict[str, object]) -> "SuffixRules":
        return cls(data.get("rules", {}), data.get("seen", ()))

