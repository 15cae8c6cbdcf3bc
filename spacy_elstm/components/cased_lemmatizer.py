"""`elstm_lemmatizer`: spaCy's edit-tree lemmatizer whose edit trees read each
form and lemma with its first letter in lower case, and which puts the capital
back where the training data's lemmas keep it.

An edit tree that turns Turkish `Kaçtım` into `kaç` must replace the capital
`K` by `k`: a tree of its own for each capital letter, too rare to survive
`min_tree_freq`, so a sentence's capitalised first word the training data
lacks gets a poor lemma (on Turkish-IMST dev, 507 such words tagged other
than PROPN: 55% wrong, against 41% of the other unseen words). Read as
`kaçtım` -> `kaç`, the word takes the tree of its lower-case forms. Whether a
capitalised form's lemma keeps its capital (a name: `Kerem` -> `Kerem`) is
learned per UPOS from the training data when the pipeline is initialised
(`cfg["capital_kept"]`, saved with the pipeline); a UPOS the training data
never capitalises keeps it too, as spaCy's lemmatizer would.

Put it after the tagger or morphologizer that sets UPOS. Its settings are
spaCy's `trainable_lemmatizer`'s.
"""
from collections import Counter, defaultdict
from typing import Any, Callable, Dict, Iterable, Optional

from spacy.language import Language
from spacy.pipeline.edit_tree_lemmatizer import (DEFAULT_EDIT_TREE_LEMMATIZER_MODEL,
                                                 EditTreeLemmatizer)
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import Model

FACTORY = "elstm_lemmatizer"


def first_lower(text: str) -> str:
    """The text with its first letter in lower case, where that is one character."""
    first = text[:1]
    lower = first.lower()
    if first == lower or len(lower) != 1:  # Turkish `İ` lowers to two characters
        return text
    return lower + text[1:]


class FirstLowerTrees:
    """spaCy's EditTrees, each form and lemma read with its first letter in
    lower case (`first_lower`); everything else is theirs."""

    def __init__(self, trees):
        self.trees = trees

    def add(self, form: str, lemma: str) -> int:
        return self.trees.add(first_lower(form), first_lower(lemma))

    def apply(self, tree_id: int, form: str) -> Optional[str]:
        return self.trees.apply(tree_id, first_lower(form))

    def __len__(self) -> int:
        return len(self.trees)

    def __getitem__(self, tree_id: int):
        return self.trees[tree_id]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.trees, name)


@Language.factory(FACTORY, assigns=["token.lemma"], requires=["token.pos"],
                  default_config={"model": DEFAULT_EDIT_TREE_LEMMATIZER_MODEL,
                                  "backoff": "orth", "min_tree_freq": 3, "overwrite": False,
                                  "top_k": 1,
                                  "scorer": {"@scorers": "spacy.lemmatizer_scorer.v1"}},
                  default_score_weights={"lemma_acc": 1.0})
def make_cased_lemmatizer(nlp: Language, name: str, model: Model, backoff: Optional[str],
                          min_tree_freq: int, overwrite: bool, top_k: int,
                          scorer: Optional[Callable]) -> "CasedLemmatizer":
    """spaCy's trainable_lemmatizer, its edit trees read in lower case first."""
    return CasedLemmatizer(nlp.vocab, model, name, backoff=backoff,
                           min_tree_freq=min_tree_freq, overwrite=overwrite, top_k=top_k,
                           scorer=scorer)


class CasedLemmatizer(EditTreeLemmatizer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.trees = FirstLowerTrees(self.trees)
        self.cfg["capital_kept"] = {}

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None, labels: Optional[Dict] = None) -> None:
        super().initialize(get_examples, nlp=nlp, labels=labels)
        self.cfg["capital_kept"] = capital_kept(eg.reference for eg in get_examples())

    def set_annotations(self, docs: Iterable[Doc], batch_tree_ids) -> None:
        docs = list(docs)
        # the lemmas spaCy's lemmatizer leaves as they are (overwrite = false)
        given = [[not self.overwrite and t.lemma != 0 for t in doc] for doc in docs]
        super().set_annotations(docs, batch_tree_ids)
        kept = self.cfg.get("capital_kept", {})
        for doc, tree_ids, had in zip(docs, batch_tree_ids, given):
            if hasattr(tree_ids, "get"):
                tree_ids = tree_ids.get()
            for token, tree_id, keep in zip(doc, tree_ids, had):
                form = token.text
                if keep or tree_id == -1 or not kept.get(token.pos_, True):
                    continue
                lowered, lemma = first_lower(form), token.lemma_
                if lowered != form and lemma[:1] == lowered[:1]:
                    token.lemma_ = form[:1] + lemma[1:]


def capital_kept(docs: Iterable[Doc]) -> Dict[str, bool]:
    """Per UPOS, whether the lemmas of the docs' capitalised forms mostly keep
    their capital."""
    counts: Dict[str, Counter] = defaultdict(Counter)
    for doc in docs:
        for token in doc:
            form, lemma = token.text, token.lemma_
            if lemma and first_lower(form) != form:
                counts[token.pos_][lemma[:1] == form[:1]] += 1
    return {pos: found[True] >= found[False] for pos, found in sorted(counts.items())}
