"""What counts as punctuation where text is read: a word of punctuation
characters alone (Unicode category P), and a Doc with no such word, as speech
transcripts come (`elstm_senter` splits those with models of their own)."""
import unicodedata

from spacy.tokens import Doc


def is_punctuation(text: str) -> bool:
    """Whether every character of a (non-empty) word is a punctuation mark."""
    return all(unicodedata.category(c).startswith("P") for c in text)


def has_no_punctuation(doc: Doc) -> bool:
    """Whether the Doc has words and none of them is punctuation."""
    words = [t.text for t in doc if not t.is_space]
    return bool(words) and not any(is_punctuation(w) for w in words)
