"""Tokens from the rules or from the characters, chosen per chunk: a raw
pipeline's two tokenizers, its rules (spacy-elstm.TreebankTokenizer.v1) and
the character model of its `elstm_senter` (which labels token ends as well as
sentence ends, as spacy-elstm.CharTokenizer.v1 does), each tokenise a split's
raw text; then each whitespace-free chunk of the text takes the tokens of one
of them, by a rule: never the characters (the pipeline as shipped), always,
where the chunk is not letters and digits alone, where EWT train's text has no
such chunk (the rules learned a special case for most chunks they saw), both,
or unseen chunks where the character model is sure (a probability of at least
SURE, one way or the other, that each character where the two differ ends no
token); and, as a bound no rule reaches, the oracle: the one that matches the
gold tokens. Tokens and Words F1 by the CoNLL 2018 script.

    python -m lab.token_choice training/raw-text-variants-10000steps/cnn_text_variants/model-best [...] [--split dev] [--output metrics/tokenizers/token-choice.json]
"""
import json
import re
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Set, Tuple

import torch

from spacy_elstm.files import write_json
from spacy_elstm.text.char_tokenizer import build_doc
from spacy_elstm.text.segmenter import INSIDE, gold_labels
from spacy_elstm.text.wrapping import unwrapped
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer

from .arguments import pipelines_parser
from .token_errors import Span, document_spans, spans_of, system_tokens
from .tokenizers import CONLLU, SCRIPT, official_f1, senter_pipeline

CHUNK = re.compile(r"\S+")
SURE = 0.9
# (chunk, whether EWT train has it, whether the character model is sure) -> characters?
Chooser = Callable[[str, bool, bool], bool]
CHOOSERS: Dict[str, Chooser] = {
    "rules (shipped)": lambda chunk, seen, sure: False,
    "characters": lambda chunk, seen, sure: True,
    "characters where not letters and digits alone":
        lambda chunk, seen, sure: not chunk.isalnum(),
    "characters where unseen in training": lambda chunk, seen, sure: not seen,
    "characters where unseen and not letters and digits alone":
        lambda chunk, seen, sure: not seen and not chunk.isalnum(),
    f"characters where unseen and they are sure, {SURE} at least":
        lambda chunk, seen, sure: not seen and sure,
}
ORACLE = "oracle: the one matching gold"


class Chunk(NamedTuple):
    """A whitespace-free chunk of the text: where it is, whether EWT train's text
    has it, whether the character model is sure of it, and whether the
    characters' tokens match the gold ones there and the rules' do not."""
    span: Tuple[int, int]
    seen: bool
    sure: bool
    only_chars_right: bool


def chunks(text: str, rules: List[int], chars: List[int], inside, gold: Set[Span],
           found: Dict[str, Set[Span]], train_chunks: Set[str]) -> List[Chunk]:
    """Each chunk of the text, with what the choosers read of it (`Chunk`)."""
    offsets = non_space_offsets(text)
    out = []
    for match in CHUNK.finditer(text):
        a, b = match.span()
        first, end = offsets[a], offsets[b - 1] + 1  # the chunk's non-space span

        def there(spans: Set[Span]) -> Set[Span]:
            return {s for s in spans if first <= s[0] < end}

        # (whitespace ends the last character's token anyway)
        differ = [k for k in range(a, b - 1) if (rules[k] == INSIDE) != (chars[k] == INSIDE)]
        sure = all(max(inside[k], 1 - inside[k]) >= SURE for k in differ)
        wanted = there(gold)
        out.append(Chunk((a, b), match.group() in train_chunks, sure,
                         there(found["chars"]) == wanted != there(found["rules"])))
    return out


def chosen_labels(rules: List[int], chars: List[int], spans: Iterable[Tuple[int, int]]
                  ) -> List[int]:
    """The rules' labels, the characters' in each of `spans`."""
    labels = list(rules)
    for a, b in spans:
        labels[a:b] = chars[a:b]
    return labels


def measure(path: Path, split: str, train_chunks: Set[str], scorer) -> List[Dict[str, Any]]:
    nlp = senter_pipeline(path)
    segmenter = nlp.get_pipe("elstm_senter").segmenter
    conllu = Path(CONLLU.format(split=split))
    documents = raw_documents(conllu, "ud")
    docs: Dict[str, List] = {name: [] for name in [*CHOOSERS, ORACLE]}
    for document, gold in zip(documents, document_spans(conllu, documents)):
        text = document.text
        rules_doc = nlp.make_doc(text)
        rules = gold_labels(rules_doc)
        probabilities = segmenter.probabilities([unwrapped(text)])[0]
        chars = probabilities.argmax(-1).tolist()
        found = {"rules": set(spans_of(system_tokens(rules_doc))),
                 "chars": set(spans_of(system_tokens(build_doc(nlp.vocab, text, chars))))}
        read = chunks(text, rules, chars, probabilities[:, INSIDE], set(gold), found,
                      train_chunks)
        for name, chooser in CHOOSERS.items():
            labels = chosen_labels(rules, chars, (c.span for c in read
                                                  if chooser(text[slice(*c.span)], c.seen,
                                                             c.sure)))
            docs[name].append(build_doc(nlp.vocab, text, labels))
        labels = chosen_labels(rules, chars, (c.span for c in read if c.only_chars_right))
        docs[ORACLE].append(build_doc(nlp.vocab, text, labels))
    rows = []
    for name, found_docs in docs.items():
        scores = official_f1(scorer, conllu, found_docs, documents, ("Tokens", "Words"))
        rows.append({"pipeline": path.as_posix(), "split": split, "choice": name, **scores})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def non_space_offsets(text: str) -> List[int]:
    """Per character, how many non-space characters come before it."""
    out, at = [], 0
    for char in text:
        out.append(at)
        at += not char.isspace()
    return out


def main(argv=None) -> int:
    parser = pipelines_parser(__doc__, "metrics/tokenizers/token-choice.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    train = raw_documents(Path(CONLLU.format(split="train")), "ud")
    train_chunks = set(CHUNK.findall("".join(d.text for d in train)))
    scorer = load_scorer(SCRIPT)
    rows = [row for path in args.pipelines
            for row in measure(path, args.split, train_chunks, scorer)]
    write_json(args.output, {"train": Path(CONLLU.format(split="train")).name, "rows": rows})
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
