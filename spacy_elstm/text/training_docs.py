"""The gold Docs that the learned parts of the raw-text front end (the treebank
tokenizer, the character tokenizer and `elstm_senter`) train on when the
pipeline is initialised."""
from pathlib import Path
from typing import Callable, Iterable, List, Optional, Union

from spacy.tokens import Doc, DocBin
from spacy.training import Example
from spacy.vocab import Vocab


def treebank_docs(get_examples: Callable[[], Iterable[Example]],
                  treebank: Optional[Union[str, Path]], vocab: Optional[Vocab],
                  owner: str) -> List[Doc]:
    """Those of `treebank`, a .spacy file of the project's converter (whole
    Docs, with their multiword tokens and sentence ends, whatever
    `gold_preproc` the training corpus reads with), else the training
    examples' reference Docs."""
    if treebank is None:
        return [eg.reference for eg in get_examples()]
    path = Path(treebank)
    if not path.is_file():
        raise ValueError(f"{owner}: treebank = {str(treebank)!r} is not a file; give the "
                         "converted training corpus (a .spacy file), e.g. ${paths.train}, "
                         "or null to learn from the training examples.")
    return list(DocBin().from_disk(path).get_docs(vocab if vocab is not None else Vocab()))
