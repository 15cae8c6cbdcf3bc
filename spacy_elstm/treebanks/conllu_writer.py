"""The project's one CoNLL-U writer: a pipeline's Docs as UD sentences that the
CoNLL 2018 script and other UD tools accept (`udvalidate --lang en --level 2`
passes), for `spacy-elstm score` and `spacy-elstm parse` alike.

A Doc is written sentence by sentence (`doc.sents` where the pipeline set
sentence boundaries, else the whole Doc as one sentence; `one_sentence=True`
writes it as one whatever the pipeline set); a sentence the pipeline started
inside a multiword token (on `n't` of `didn't`) starts at the token's first
word, as UD keeps a token within one sentence, so the tokens written are the
tokenizer's whatever the sentences. Each sentence gets `# newdoc id`
(its Doc's first sentence, when the Doc has an id), `# sent_id` and `# text`
(the sentence's FORMs, a space between two words where `SpaceAfter=No` is not
said); ids have their whitespace and slashes written `_`. The Doc's multiword
tokens (`multiword.py`) become range lines (`3-4 don't`) above their words.
UD has no whitespace tokens: spaCy's tokens for a newline or a second space
(and any token of whitespace only) are not words and are left out, and a
sentence of them only is not written. Columns: FORM the word, LEMMA the lemma
(each with runs of whitespace inside written as one space, `_` where empty);
UPOS `pos_` where it is one of UD's 17 tags, else `X` (no tagger; spaCy's
`SPACE`); XPOS `tag_`; FEATS `morph` in UD's order (features, and the values
of each, sorted case-insensitively: `Number=Sing|NumForm=Word|NumType=Frac`,
`PronType=Int,Rel`); HEAD and DEPREL from the parse, spaCy's `ROOT` written
`root`; MISC `SpaceAfter=No` where the word (or the multiword token it ends)
has no space after it, except at the end of a Doc written with an id (UD's
documents end with a space). Every line is in Unicode NFC, as UD wants.
CoNLL-U wants one root per sentence and no cycle: every extra root (and a word
whose head is outside its sentence or a whitespace token) is attached to the
first root with `dep`, and the writer counts the words so re-attached. A Doc
without a parse gets a placeholder tree (every word attached to the first,
`dep`): valid, but not a parse to score.
"""
import re
import unicodedata
import warnings
from typing import Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span

from ..text.multiword import multiword_spans, word_forms

# A Doc this long written as one sentence by a pipeline that splits none: said once
UNSPLIT_WARNING_WORDS = 300
UD_UPOS = {"ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON",
           "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X"}
NO_SPACE = "SpaceAfter=No"
_warned_unsplit = False


def single_root_tree(heads: Sequence[int]) -> Tuple[List[int], List[int]]:
    """Make a head list (each word's head index, a root its own) one tree: a
    cycle is broken at its first word, which becomes a root, and every root
    after the first is attached to the first. Returns the new heads (same
    convention) and the indices of the words whose head changed, in order."""
    heads = list(heads)
    n = len(heads)
    changed = []
    state = [0] * n  # 0: unseen, 1: on the path being walked, 2: reaches a root
    for start in range(n):
        path, word = [], start
        while state[word] == 0:
            state[word] = 1
            path.append(word)
            if heads[word] == word:
                break
            word = heads[word]
        if state[word] == 1 and heads[word] != word:  # walked into its own path: a cycle
            cycle = path[path.index(word):]
            first = min(cycle)
            heads[first] = first
            changed.append(first)
        for w in path:
            state[w] = 2
    roots = [i for i in range(n) if heads[i] == i]
    for extra in roots[1:]:
        heads[extra] = roots[0]
        if extra not in changed:
            changed.append(extra)
    return heads, sorted(changed)


def doc_to_conllu(doc: Doc, *, doc_id: Optional[str] = None,
                  sent_ids: Optional[Sequence[Optional[str]]] = None,
                  one_sentence: bool = False,
                  multiword: Optional[Sequence[Tuple[int, int, str]]] = None) -> Tuple[str, int]:
    """The Doc's sentences as CoNLL-U blocks (each ending in a blank line) and
    the number of words re-attached to make single-root trees. `sent_ids`: one
    per sentence written; by default `<doc_id>-<n>` (or `<n>`), from 1.
    `multiword`: (first, last, form) per multiword token, 0-based word indices,
    in place of the Doc's own (whose forms are the text they span)."""
    if multiword is None:
        multiword = [(a, b, doc.text[doc[a].idx:doc[b].idx + len(doc[b])])
                     for a, b in multiword_spans(doc)]
    sentences = ([doc[:]] if one_sentence or not _has_sentences(doc)
                 else _whole_token_sentences(doc, multiword))
    sentences = [s for s in sentences if any(_is_word(t) for t in s)]
    _warn_if_unsplit(doc, sentences, one_sentence)
    if sent_ids is not None and len(sent_ids) != len(sentences):
        raise ValueError(f"{len(sent_ids)} sent_ids for {len(sentences)} sentences.")
    doc_id = doc_id and _identifier(doc_id)
    blocks, repaired = [], 0
    for k, sentence in enumerate(sentences):
        sent_id = sent_ids[k] if sent_ids is not None else (
            f"{doc_id}-{k + 1}" if doc_id else str(k + 1))
        block, count = _sentence(sentence, multiword, sent_id and _identifier(sent_id),
                                 doc_id if k == 0 and doc_id else None,
                                 ends_document=bool(doc_id) and k == len(sentences) - 1)
        blocks.append(block)
        repaired += count
    return "".join(blocks), repaired


def docs_to_conllu(docs: Iterable[Doc], **kwargs) -> Tuple[str, int]:
    """Several Docs' CoNLL-U and the words re-attached in all."""
    text, repaired = [], 0
    for doc in docs:
        block, count = doc_to_conllu(doc, **kwargs)
        text.append(block)
        repaired += count
    return "".join(text), repaired


def _has_sentences(doc: Doc) -> bool:
    return doc.has_annotation("SENT_START") or doc.has_annotation("DEP")


def _whole_token_sentences(doc: Doc, multiword: Sequence[Tuple[int, int, str]]) -> List[Span]:
    """The Doc's sentences, but one that the pipeline started on a word of a
    multiword token after its first starts at the token's first word: UD's
    tokens lie within one sentence, and a range line split between two
    sentences could not be written (its words would be written as two tokens)."""
    token_start = {i: first for first, last, _ in multiword for i in range(first + 1, last + 1)}
    starts = sorted({token_start.get(s.start, s.start) for s in doc.sents})
    return [doc[a:b] for a, b in zip(starts, starts[1:] + [len(doc)])]


def _warn_if_unsplit(doc: Doc, sentences: List[Span], one_sentence: bool) -> None:
    global _warned_unsplit
    words = sum(1 for t in doc if _is_word(t))
    if one_sentence or _warned_unsplit or len(sentences) != 1 or words <= UNSPLIT_WARNING_WORDS:
        return
    _warned_unsplit = True
    warnings.warn(
        f"spacy-elstm: a doc of {words} words came back as one sentence: this pipeline "
        "sets no sentence boundaries in raw text (trained on gold sentences, "
        "gold_preproc = true?). Pipelines trained from configs/raw/ split sentences.",
        stacklevel=3)


def _sentence(sentence: Span, multiword: Sequence[Tuple[int, int, str]], sent_id: Optional[str],
              newdoc: Optional[str], ends_document: bool) -> Tuple[str, int]:
    doc = sentence.doc
    words = [t for t in sentence if _is_word(t)]
    position = {t.i: k for k, t in enumerate(words)}  # doc index -> word index
    n = len(words)
    parsed = doc.has_annotation("DEP")
    if parsed:
        raw_heads, deprels = [], []
        for token in words:
            head = token.head
            while not _is_word(head) and head.head.i != head.i:  # through whitespace tokens
                head = head.head
            inside = head.i in position and head.i != token.i
            raw_heads.append(position[head.i] if inside else position[token.i])
            deprels.append(_deprel(token.dep_) if inside or head.i == token.i else "dep")
        heads, changed = single_root_tree(raw_heads)
        for i in changed:
            deprels[i] = "root" if heads[i] == i else "dep"
        repaired = len(changed)
    else:
        heads, deprels, repaired = [0] * n, ["root"] + ["dep"] * (n - 1), 0
    ranges = {}  # first word index -> (last word index, form)
    for first, last, form in multiword:
        if first in position and last in position and \
                position[last] - position[first] == last - first:
            ranges[position[first]] = (position[last], form)
    inside = {i for first, (last, _) in ranges.items() for i in range(first, last + 1)}
    misc = [_misc(t, ends_document and k == n - 1) for k, t in enumerate(words)]
    forms = word_forms(doc)  # a multiword token's words that are not pieces of it
    rows, text = [], []
    for k, token in enumerate(words):
        if k in ranges:
            last, form = ranges[k]
            rows.append([f"{k + 1}-{last + 1}", _form(form)] + ["_"] * 7 + [misc[last]])
            text += [_form(form), "" if misc[last] == NO_SPACE else " "]
        elif k not in inside:
            text += [_form(token.text), "" if misc[k] == NO_SPACE else " "]
        head = 0 if heads[k] == k else heads[k] + 1
        rows.append([str(k + 1), _form(forms.get(token.i, token.text)), _form(token.lemma_),
                     _upos(token.pos_),
                     token.tag_ or "_", _feats(token), str(head), deprels[k], "_",
                     "_" if k in inside else misc[k]])
    lines = []
    if newdoc is not None:
        lines.append(f"# newdoc id = {newdoc}")
    if sent_id is not None:
        lines.append(f"# sent_id = {sent_id}")
    lines.append(f"# text = {''.join(text).rstrip()}")
    lines += ["\t".join(row) for row in rows]
    return unicodedata.normalize("NFC", "\n".join(lines)) + "\n\n", repaired


def _is_word(token) -> bool:
    """Not a whitespace token (nor an empty one): UD has no such tokens."""
    return bool(token.text.strip())


def _form(text: str) -> str:
    """A FORM or LEMMA: runs of whitespace inside as one space, none at the ends."""
    return " ".join(text.split()) or "_"


def _identifier(value: str) -> str:
    """A `sent_id` or `newdoc id`: no whitespace (UD), no slash (UD keeps it for
    parallel treebanks)."""
    return re.sub(r"[\s/]+", "_", value.strip())


def _upos(pos: str) -> str:
    if pos == "CONJ":  # UD v1's name
        return "CCONJ"
    return pos if pos in UD_UPOS else "X"


def _feats(token) -> str:
    """FEATS in UD's order, as `udvalidate` checks it: the `Feature=Value` items
    sorted case-insensitively (spaCy sorts them case-sensitively, which puts
    `Number` after `NumType`), and so the values of each."""
    items = [f"{name}={','.join(sorted(value.split(','), key=str.lower))}"
             for name, value in token.morph.to_dict().items()]
    return "|".join(sorted(items, key=str.lower)) or "_"


def _deprel(label: str) -> str:
    if label == "ROOT":
        return "root"
    return label or "dep"


def _misc(token, ends_document: bool) -> str:
    """SpaceAfter=No where nothing, not even a whitespace token, follows the
    word, unless it ends a document (UD: a document ends with a space)."""
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    if ends_document or token.whitespace_ or (following is not None and not _is_word(following)):
        return "_"
    return NO_SPACE
