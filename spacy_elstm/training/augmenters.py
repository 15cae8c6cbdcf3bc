"""Training examples as users' text comes: spaCy's combined augmenter (lower
case, whitespace tokens) and, besides, sentences without their punctuation, as
speech transcripts come (`treebanks/unpunctuated.py` says where the remaining
words hang), so that a tagger and parser trained on written text also read
text without punctuation.
"""
import random
from typing import Callable, Dict, Iterator, List, Optional

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.training.augment import create_combined_augmenter
from spacy.util import registry

from ..treebanks.unpunctuated import ROOT, rehung_heads

AUGMENTER = "spacy-elstm.text_variants_augmenter.v1"
ROOT_LABEL = "ROOT"  # spaCy's label of a sentence's root


def unpunctuated_example(example: Example) -> Example:
    """The example with every word tagged PUNCT taken out of its reference (a
    space where it stood, its dependents hung again, each sentence keeping one
    root) and the predicted Doc made of the words left; the example itself
    where it has no such word or nothing else."""
    reference = example.reference
    removed = {token.i for token in reference if token.pos_ == "PUNCT"}
    if not removed or len(removed) == len(reference):
        return example
    kept = [token for token in reference if token.i not in removed]
    words = [token.text for token in kept]
    spaces = [bool(token.whitespace_) or token.i + 1 in removed for token in kept]
    spaces[-1] = bool(kept[-1].whitespace_)
    annotation: Dict[str, Optional[List[str]]] = {}
    for key, attr, value in (("tags", "TAG", "tag_"), ("pos", "POS", "pos_"),
                             ("morphs", "MORPH", None), ("lemmas", "LEMMA", "lemma_")):
        if reference.has_annotation(attr):
            annotation[key] = [str(t.morph) if value is None else getattr(t, value)
                               for t in kept]
    if reference.has_annotation("DEP"):
        annotation["heads"], annotation["deps"] = _rehung(reference, removed, kept)
    elif reference.has_annotation("SENT_START"):
        starts, previous = [], None
        for token in kept:  # a sentence whose first word went starts at its next
            sentence = token.sent.start
            starts.append(sentence != previous)
            previous = sentence
        annotation["sent_starts"] = starts
    new_reference = Doc(reference.vocab, words=words, spaces=spaces, **annotation)
    return Example(Doc(reference.vocab, words=words, spaces=spaces), new_reference)


def _rehung(reference: Doc, removed, kept):
    """The kept words' heads (their positions among the kept words) and labels."""
    position = {token.i: k for k, token in enumerate(kept)}
    heads, labels = {}, {token.i: token.dep_ for token in kept}
    for sentence in reference.sents:
        start = sentence.start
        sentence_heads = [ROOT if t.head.i == t.i else t.head.i - start for t in sentence]
        rehung = rehung_heads(sentence_heads, [i - start for i in removed
                                               if start <= i < sentence.end])
        for i, head in rehung.items():
            heads[start + i] = start + i if head == ROOT else start + head
            if head == ROOT:
                labels[start + i] = ROOT_LABEL
    return ([position[heads[token.i]] for token in kept],
            [labels[token.i] for token in kept])


@registry.augmenters(AUGMENTER)
def create_text_variants_augmenter(
    lower_level: float,
    orth_level: float,
    orth_variants: Optional[Dict[str, List[Dict]]],
    whitespace_level: float,
    whitespace_per_token: float,
    whitespace_variants: Optional[List[str]],
    unpunctuated_level: float,
) -> Callable[[Language, Example], Iterator[Example]]:
    """spacy.combined_augmenter.v1 (its settings as it takes them), each
    example first taken without its punctuation with probability
    `unpunctuated_level`.

    unpunctuated_level (float): the share of examples read without their
        punctuation (a word tagged PUNCT), from 0 to 1.
    """
    if not 0.0 <= unpunctuated_level <= 1.0:
        raise ValueError(f"{AUGMENTER}: unpunctuated_level must be between 0 and 1, "
                         f"got {unpunctuated_level!r}.")
    combined = create_combined_augmenter(
        lower_level=lower_level, orth_level=orth_level, orth_variants=orth_variants,
        whitespace_level=whitespace_level, whitespace_per_token=whitespace_per_token,
        whitespace_variants=whitespace_variants)

    def augment(nlp: Language, example: Example) -> Iterator[Example]:
        if random.random() < unpunctuated_level:
            example = unpunctuated_example(example)
        yield from combined(nlp, example)
    return augment
