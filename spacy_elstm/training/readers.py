"""A corpus reader for the paper's POS and DP input: gold lemmas.

Su & Kuo (Sec. 5.1) feed their taggers and parsers the lemmas of UD English
(CoNLL-U column 3) and nothing else. spaCy's Corpus gives a model docs with the
words only; this reader is spaCy's Corpus with each example's predicted doc
given the reference's lemmas, so that an embedding of LEMMA sees them in
training and in the evaluation on the dev corpus.
"""
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional, Union

from spacy.training import Example
from spacy.training.corpus import Corpus
from spacy.util import registry

GOLD_LEMMA_CORPUS = "spacy-elstm.GoldLemmaCorpus.v1"


def copy_gold_lemmas(example: Example) -> Example:
    """Give each predicted token the lemma of the reference token it is aligned
    to (tokens without one keep theirs); returns the example. A reference doc
    without lemmas is an error: the model would read nothing."""
    if not example.reference.has_annotation("LEMMA"):
        raise ValueError(f"{GOLD_LEMMA_CORPUS}: a reference doc has no lemmas "
                         f"({example.reference.text[:60]!r}); this reader needs a corpus "
                         f"converted from CoNLL-U with its LEMMA column filled.")
    lemmas = example.get_aligned("LEMMA", as_string=True)
    for token, lemma in zip(example.predicted, lemmas):
        if lemma:
            token.lemma_ = lemma
    return example


class GoldLemmaCorpus:
    """spaCy's Corpus (spacy.Corpus.v1) whose examples' predicted docs carry
    the reference's lemmas, and no other gold annotation."""

    def __init__(self, path: Union[str, Path], *, gold_preproc: bool = False,
                 max_length: int = 0, limit: int = 0,
                 augmenter: Optional[Callable] = None):
        self.corpus = Corpus(path, gold_preproc=gold_preproc, max_length=max_length,
                             limit=limit, augmenter=augmenter)

    def __call__(self, nlp) -> Iterator[Example]:
        for example in self.corpus(nlp):
            yield copy_gold_lemmas(example)


@registry.readers(GOLD_LEMMA_CORPUS)
def create_gold_lemma_reader(
    path: Optional[Path],
    gold_preproc: bool,
    max_length: int = 0,
    limit: int = 0,
    augmenter: Optional[Callable] = None,
) -> Callable[..., Iterable[Example]]:
    """spacy.Corpus.v1, with the gold lemmas copied onto the docs the pipeline
    reads: the paper's input setting (Su & Kuo, Sec. 5.1), an oracle one. Real
    text has no gold lemmas: a pipeline trained this way needs lemmas from
    somewhere at prediction time (`spacy-elstm score --gold-lemmas` copies them
    from a CoNLL-U file) and its scores are not those of a tagger of raw text.

    path (Path): A .spacy file or a folder of them.
    gold_preproc (bool): Use the gold tokenisation and sentences (as the paper does).
    max_length (int): Split longer docs into sentences, and skip longer sentences; 0 for no limit.
    limit (int): Read at most this many docs; 0 for all.
    augmenter (Optional[Callable]): A data augmenter, as for spacy.Corpus.v1; it runs before
        the lemmas are copied.
    """
    if path is None:
        raise ValueError(f"{GOLD_LEMMA_CORPUS}: path is null; set it to a .spacy file or a "
                         f"folder of them (e.g. --paths.train corpus/UD_English-EWT/en_ewt-ud-train.spacy).")
    return GoldLemmaCorpus(path, gold_preproc=gold_preproc, max_length=max_length,
                           limit=limit, augmenter=augmenter)
