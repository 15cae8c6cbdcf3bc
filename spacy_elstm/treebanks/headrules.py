"""Labelled dependencies from Penn Treebank trees by head rules.

Heads: a head-percolation table in the form Yamada & Matsumoto (2003) gave
Collins' (1999, appendix A) for their dependency conversion of the WSJ, the
form behind Penn2Malt and the dependency versions of the WSJ made with it. We
wrote it from the published descriptions and settled four details on NLTK's
sample, against its `.dp` files: a noun phrase takes its rightmost noun
(`NN`, `NNS`, `NNP`, `NNPS`) or possessive `POS` before anything else; `QP`
and `SBAR` are searched from the right; and punctuation heads a phrase only if
nothing else is in it (a `PRN` of brackets is headed by what they enclose).
With these the rules reproduce the heads of all 94,084 words of the sample's
`.dp` files (`spacy-elstm ptb agreement`); being settled on that sample, the
figure is a check of the conversion, not an independent measurement. Function
words head their phrases: the preposition its `PP`, the complementiser or
wh-word its `SBAR`, the first auxiliary its verb chain.

For each category the table gives stages tried in turn. `left`/`right`: for
each category of the list in turn, the first child of that category from the
left/right; `leftdis`/`rightdis`: the first child from the left/right whose
category is any of the list. If no stage finds one, the head is the first
child that is not punctuation from the side of the first stage. A word's head
is the head word of the smallest constituent whose head child does not contain
it. Empty elements are gone before this (`ptb.clean`): traces and null
elements take no part.

Labels: a small scheme of our own, from the categories and function tags,
decided by the first rule that applies (dependent = the constituent or word
that attaches, parent = the constituent where it attaches, head = the parent's
head child):

| label | when |
|---|---|
| `ROOT` | the sentence's head word |
| `punct` | the dependent is a punctuation tag (`, . : `` '' -LRB- -RRB- #`) |
| `nsubj` | the dependent has the function tag `SBJ` |
| `prd` | function tag `PRD` (predicative complement) |
| `tmod` | function tag `TMP` |
| `advmod` | function tags `ADV`, `LOC`, `DIR`, `MNR`, `PRP`, `EXT`; or (below `det`) an `RB*`, `ADVP` or `WHADVP` |
| `cc` | a `CC` or `CONJP` |
| `conj` | of the head child's category, in a parent that holds a `CC` or `CONJP` |
| `possessive` | a `POS` that is not the head (rare: `POS` heads its phrase) |
| `neg` | the words `not`, `n't`, `never` |
| `poss` | a `PRP$` or `WP$`, or an `NP` ending in `POS`, inside a noun phrase |
| `det` | a `DT`, `PDT` or `WDT` |
| `possessor` | attached to a `POS` (`the firm` of `the firm 's`) |
| `vc` | a `VP` attached to the verb heading its parent `VP` (the verb chain) |
| `aux` | a verb or `TO` attached to a `VP` heading its parent `VP` |
| `prt` | an `RP` or `PRT` |
| `sub` | a clause attached to the complementiser or wh-phrase heading its `SBAR` |
| `pobj` | attached to the preposition heading a `PP` or `WHPP` |
| `prep` | a `PP` or `WHPP` |
| `amod` | a `JJ*`, `ADJP`, `WHADJP`, `VBN`, `VBG` inside a noun phrase |
| `nummod` | a `CD` or `QP` inside a noun phrase |
| `compound` | an `NN*`, `NX`, `FW`, `SYM` inside a noun phrase |
| `rcmod` | an `SBAR`, `RRC`, `VP` or `S` inside a noun phrase |
| `appos` | an `NP` inside a noun phrase that also holds a comma |
| `dobj` | an `NP` inside a `VP` (no function tag) |
| `ccomp` | an `S`, `SQ`, `SBAR`, `SBARQ`, `SINV` inside a `VP`, `S`, `SINV` or `SQ` |
| `advcl` | an `SBAR` elsewhere |
| `dep` | anything else |

"Inside a noun phrase" means a parent `NP`, `NX`, `NAC`, `WHNP` or `QP`.
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from .ptb import Sentence, Tree

# Each category: stages tried in turn, each (how, categories). "left": for
# each category in turn, the first child of it from the left; "right": the same
# from the right; "leftdis"/"rightdis": the first child from the left/right
# whose category is any of them. Where no stage finds one, the first child from
# the side of the first stage.
Rule = Tuple[Tuple[str, Tuple[str, ...]], ...]
HEAD_RULES: Dict[str, Rule] = {
    "ADJP": (("right", ("NNS", "QP", "NN", "$", "ADVP", "JJ", "VBN", "VBG", "ADJP", "JJR",
                        "NP", "JJS", "DT", "FW", "RBR", "RBS", "SBAR", "RB")),),
    "ADVP": (("left", ("RB", "RBR", "RBS", "FW", "ADVP", "TO", "CD", "JJR", "JJ", "IN", "NP",
                       "JJS", "NN")),),
    "CONJP": (("left", ("CC", "RB", "IN")),),
    "FRAG": (("left", ()),),
    "INTJ": (("right", ()),),
    "LST": (("left", ("LS", ":")),),
    "NAC": (("right", ("NN", "NNS", "NNP", "NNPS", "NP", "NAC", "EX", "$", "CD", "QP", "PRP",
                       "VBG", "JJ", "JJS", "JJR", "ADJP", "FW")),),
    "NP": (("rightdis", ("POS", "NN", "NNP", "NNPS", "NNS")),
           ("right", ("NX", "JJR", "CD", "JJ", "JJS", "RB", "QP", "NP"))),
    "PP": (("left", ("IN", "TO", "VBG", "VBN", "RP", "FW")),),
    "PRN": (("right", ()),),
    "PRT": (("left", ("RP",)),),
    "QP": (("right", ("$", "IN", "NNS", "NN", "JJ", "RB", "DT", "CD", "NCD", "QP", "JJR",
                     "JJS")),),
    "RRC": (("left", ("VP", "NP", "ADVP", "ADJP", "PP")),),
    "S": (("right", ("TO", "IN", "VP", "S", "SBAR", "ADJP", "UCP", "NP")),),
    "SBAR": (("right", ("WHNP", "WHPP", "WHADVP", "WHADJP", "IN", "DT", "S", "SQ", "SINV",
                       "SBAR", "FRAG")),),
    "SBARQ": (("right", ("SQ", "S", "SINV", "SBARQ", "FRAG")),),
    "SINV": (("right", ("VBZ", "VBD", "VBP", "VB", "MD", "VP", "S", "SINV", "ADJP", "NP")),),
    "SQ": (("right", ("VBZ", "VBD", "VBP", "VB", "MD", "VP", "SQ")),),
    "UCP": (("left", ()),),
    "VP": (("left", ("VBD", "VBN", "MD", "VBZ", "VB", "VBG", "VBP", "VP", "ADJP", "NN", "NNS",
                     "NP")),),
    "WHADJP": (("right", ("CC", "WRB", "JJ", "ADJP")),),
    "WHADVP": (("left", ("CC", "WRB")),),
    "WHNP": (("right", ("WDT", "WP", "WP$", "WHADJP", "WHPP", "WHNP")),),
    "WHPP": (("left", ("IN", "TO", "FW")),),
    "X": (("right", ()),),
}
HEAD_RULES["NX"] = HEAD_RULES["NP"]
DEFAULT_RULE: Rule = (("left", ()),)
PUNCT_TAGS = {",", ".", ":", "``", "''", "-LRB-", "-RRB-", "#"}
NOMINAL = {"NP", "NX", "NAC", "WHNP", "QP"}
CLAUSES = {"S", "SQ", "SBAR", "SBARQ", "SINV"}
ADVERBIAL_FUNCTIONS = {"ADV", "LOC", "DIR", "MNR", "PRP", "EXT"}
VERB_TAGS = {"MD", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "TO"}
NEGATIONS = {"not", "n't", "never"}
LABELS = ("ROOT", "punct", "nsubj", "prd", "tmod", "advmod", "cc", "conj", "possessive", "poss",
          "det", "possessor", "neg", "vc", "aux", "prt", "sub", "pobj", "prep", "amod", "nummod", "compound",
          "rcmod", "appos", "dobj", "ccomp", "advcl", "dep")


def head_child(tree: Tree) -> int:
    """The index of the head child of a constituent, by HEAD_RULES."""
    stages = HEAD_RULES.get(tree.label, DEFAULT_RULE)
    labels = [child.label for child in tree.children]
    for how, categories in stages:
        order = list(range(len(labels)))
        if how.startswith("right"):
            order.reverse()
        if how.endswith("dis"):
            found = next((i for i in order if labels[i] in categories), None)
        else:
            found = next((i for c in categories for i in order if labels[i] == c), None)
        if found is not None:
            return found
    order = list(range(len(labels)))
    if stages[0][0].startswith("right"):
        order.reverse()
    # Punctuation heads a phrase only if nothing else is there (a PRN in brackets).
    return next((i for i in order if not _is_punct(tree.children[i])), order[0])


def _is_punct(tree: Tree) -> bool:
    return tree.is_leaf and tree.label in PUNCT_TAGS


@dataclass
class Dependencies:
    """1-based heads (0 = root) and labels of a sentence's words."""

    heads: List[int]
    labels: List[str]


def convert(sentence: Sentence) -> Dependencies:
    """The head-rule dependencies of a sentence read from a `.mrg` file."""
    n = len(sentence.words)
    heads = [0] * n
    labels = ["ROOT"] * n
    counter = iter(range(1, n + 1))
    _attach(sentence.tree, counter, heads, labels)
    return Dependencies(heads, labels)


def _attach(tree: Tree, counter, heads: List[int], labels: List[str]) -> int:
    """Number the words of `tree`, attach each child's head word to the head
    child's, and return the tree's head word (1-based)."""
    if tree.is_leaf:
        return next(counter)
    words = [_attach(child, counter, heads, labels) for child in tree.children]
    h = head_child(tree)
    for i, child in enumerate(tree.children):
        if i != h:
            heads[words[i] - 1] = words[h]
            labels[words[i] - 1] = label(tree, h, i)
    return words[h]


def label(parent: Tree, h: int, i: int) -> str:
    """The label of child `i` of `parent` attached to its head child `h` (see the table above)."""
    dep, head = parent.children[i], parent.children[h]
    cat, p = dep.label, parent.label
    word = dep.word.lower() if dep.is_leaf else None
    categories = [c.label for c in parent.children]
    if _is_punct(dep):
        return "punct"
    if "SBJ" in dep.functions:
        return "nsubj"
    if "PRD" in dep.functions:
        return "prd"
    if "TMP" in dep.functions:
        return "tmod"
    if dep.functions & ADVERBIAL_FUNCTIONS:
        return "advmod"
    if cat in ("CC", "CONJP"):
        return "cc"
    if cat == head.label and ("CC" in categories or "CONJP" in categories):
        return "conj"
    if cat == "POS":
        return "possessive"
    if word in NEGATIONS:
        return "neg"
    if p in NOMINAL and (cat in ("PRP$", "WP$") or (cat == "NP" and dep.children[-1].label == "POS")):
        return "poss"
    if cat in ("DT", "PDT", "WDT"):
        return "det"
    if head.label == "POS":
        return "possessor"
    if cat.startswith("RB") or cat in ("ADVP", "WHADVP"):
        return "advmod"
    if p == "VP" and cat == "VP" and head.is_leaf:
        return "vc"
    if p == "VP" and cat in VERB_TAGS and head.label == "VP":
        return "aux"
    if cat in ("RP", "PRT"):
        return "prt"
    if p == "SBAR" and cat in CLAUSES | {"FRAG"}:
        return "sub"
    if p in ("PP", "WHPP") and head.is_leaf:
        return "pobj"
    if cat in ("PP", "WHPP"):
        return "prep"
    if p in NOMINAL:
        if cat.startswith("JJ") or cat in ("ADJP", "WHADJP", "VBN", "VBG"):
            return "amod"
        if cat in ("CD", "QP"):
            return "nummod"
        if cat.startswith("NN") or cat in ("NX", "FW", "SYM"):
            return "compound"
        if cat in ("SBAR", "RRC", "VP", "S"):
            return "rcmod"
        if cat == "NP" and "," in categories:
            return "appos"
    if p == "VP" and cat == "NP":
        return "dobj"
    if p in ("VP", "S", "SINV", "SQ") and cat in CLAUSES:
        return "ccomp"
    if cat == "SBAR":
        return "advcl"
    return "dep"


@dataclass
class Agreement:
    """How far head-rule heads agree with reference heads (e.g. the `.dp` files)."""

    sentences: int = 0
    words: int = 0
    agreeing: int = 0
    words_no_punct: int = 0
    agreeing_no_punct: int = 0
    whole_sentences: int = 0

    def add(self, tags: Sequence[str], ours: Sequence[int], reference: Sequence[int]) -> None:
        self.sentences += 1
        same = [a == b for a, b in zip(ours, reference)]
        self.words += len(same)
        self.agreeing += sum(same)
        kept = [s for s, tag in zip(same, tags) if tag not in PUNCT_TAGS]
        self.words_no_punct += len(kept)
        self.agreeing_no_punct += sum(kept)
        self.whole_sentences += all(same)

    def as_dict(self) -> Dict[str, Optional[float]]:
        def ratio(a: int, b: int) -> Optional[float]:
            return 100 * a / b if b else None

        return {"sentences": self.sentences, "words": self.words,
                "agreement": ratio(self.agreeing, self.words),
                "words_no_punct": self.words_no_punct,
                "agreement_no_punct": ratio(self.agreeing_no_punct, self.words_no_punct),
                "whole_sentences": ratio(self.whole_sentences, self.sentences)}
