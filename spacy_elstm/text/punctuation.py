"""What counts as punctuation where text is read: a word of punctuation
characters alone (Unicode category P); and a Doc without punctuation, as speech
transcripts come (`elstm_senter` splits those with models of their own): one
with no word that ends or divides a sentence (`is_sentence_mark`). A hyphen
inside a word ("long-term" is three words), a slash, a percent sign, quotes,
brackets or an emoticon do not make text punctuated: routed on every
punctuation word, news without punctuation went to the models of punctuated
text, as almost every article has a hyphen or a percent sign (`python -m
lab.senter_routing`).

The marks are Unicode's, not one script's: every character with the
Terminal_Punctuation property (which holds Sentence_Terminal's . ! ? ؟ 。 ！ । ։
and the marks that divide a sentence, , ; : ، ؛ 、 ；, in every script), with
the ellipsis … and the middle dot · (Greek's ano teleia, U+0387, is
canonically the middle dot) besides."""
import unicodedata

import regex

from spacy.tokens import Doc

# the marks that end or divide a sentence: a word of these alone punctuates text
SENTENCE_MARKS = regex.compile(r"[\p{Terminal_Punctuation}…·]+")
# so does a dash, and a rule of hyphens or underscores ("--", "____", as e-mail
# signatures are set off)
DASHES = frozenset("–—")
RULE_MARKS = frozenset("-_")
# what `is_sentence_mark` takes, in words (a senter records it beside its scores)
SENTENCE_MARKS_RULE = ("a word of Unicode's Terminal_Punctuation marks (. ! ? , ; : ؟ ، 。 । ...), "
                       "… or · alone, a dash (– —) or a rule (--, ____)")


def is_punctuation(text: str) -> bool:
    """Whether every character of a (non-empty) word is a punctuation mark."""
    return all(unicodedata.category(c).startswith("P") for c in text)


def is_sentence_mark(text: str) -> bool:
    """Whether a word ends or divides a sentence: made of SENTENCE_MARKS alone
    ("." "?!" "..." "؟" "。"), a dash, or two or more hyphens or underscores."""
    return bool(text) and (SENTENCE_MARKS.fullmatch(text) is not None or text in DASHES
                           or (len(text) > 1 and RULE_MARKS.issuperset(text)))


def has_no_punctuation(doc: Doc) -> bool:
    """Whether the Doc has words and none of them is a sentence mark."""
    words = [t.text for t in doc if not t.is_space]
    return bool(words) and not any(is_sentence_mark(w) for w in words)
