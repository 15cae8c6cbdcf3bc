"""Non-projective gold trees of a CoNLL-U file, and how many of them each parser gets right.

Each system's file is its prediction on the gold tokenisation (the same sentences and
words as the gold file), so trees compare sentence by sentence and word by word.

    python -m lab.nonprojective GOLD NAME=SYSTEM [NAME=SYSTEM ...] [--output metrics/....json]
"""
import argparse
import json
from pathlib import Path
from typing import Dict, List, NamedTuple, Sequence, Union

PathLike = Union[str, Path]


class Word(NamedTuple):
    form: str
    head: int
    deprel: str


class Sentence(NamedTuple):
    line: int  # the line of the file where the sentence starts
    sent_id: str  # its `# sent_id`, or "" where it has none
    words: List[Word]


def is_projective(heads: Sequence[int]) -> bool:
    """Whether one sentence's tree has no two crossing arcs. `heads[i]` is the head of
    word i + 1 (words count from 1; 0 is the artificial root, at position 0 before the
    first word). Every arc counts, the root word's arc from position 0 too: an arc that
    spans the root word crosses it, so such a tree is non-projective. Two arcs cross when
    exactly one end of one lies strictly between the ends of the other; arcs that share
    an end never cross."""
    arcs = [(min(head, dep), max(head, dep)) for dep, head in enumerate(heads, start=1)]
    for i, (left, right) in enumerate(arcs):
        for other_left, other_right in arcs[i + 1:]:
            if left < other_left < right < other_right or other_left < left < other_right < right:
                return False
    return True


def read_sentences(path: PathLike) -> List[Sentence]:
    """The sentences of a CoNLL-U file, each with its words' FORM, HEAD and DEPREL;
    multiword-token ranges (`3-4`) and empty nodes (`8.1`) are left out."""
    sentences: List[Sentence] = []
    words: List[Word] = []
    start, sent_id = 0, ""
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            line = line.rstrip("\n")
            if not line.strip():
                if words:
                    sentences.append(Sentence(start, sent_id, words))
                words, start, sent_id = [], 0, ""
                continue
            start = start or number
            if line.startswith("#"):
                if line.startswith("# sent_id") and "=" in line:
                    sent_id = line.split("=", 1)[1].strip()
                continue
            fields = line.split("\t")
            if not fields[0].isdigit():
                continue
            if len(fields) != 10:
                raise ValueError(f"{path}, line {number}: expected 10 tab-separated fields, "
                                 f"got {len(fields)}")
            if not fields[6].isdigit():
                raise ValueError(f"{path}, line {number}: HEAD {fields[6]!r} is not a word number")
            words.append(Word(fields[1], int(fields[6]), fields[7]))
    if words:
        sentences.append(Sentence(start, sent_id, words))
    return sentences


def universal(deprel: str) -> str:
    """A DEPREL's universal part, before any `:subtype` (`nmod:poss` -> `nmod`)."""
    return deprel.split(":", 1)[0]


def check_same_words(gold: List[Sentence], system: List[Sentence], gold_path: PathLike,
                     system_path: PathLike) -> None:
    """Raise ValueError naming the file and sentence where `system` does not have the
    gold file's sentences and words (it must be predicted on the gold tokenisation)."""
    if len(system) != len(gold):
        raise ValueError(f"{system_path} has {len(system)} sentences, the gold file {gold_path} "
                         f"{len(gold)}: predict on the gold tokenisation")
    for number, (want, got) in enumerate(zip(gold, system), start=1):
        forms, gold_forms = [w.form for w in got.words], [w.form for w in want.words]
        if forms != gold_forms:
            where = f"sentence {number}" + (f" ({want.sent_id})" if want.sent_id else "")
            raise ValueError(
                f"{system_path}, line {got.line}: {where} differs from the gold file "
                f"{gold_path} (line {want.line}) in its words: {' '.join(forms)!r} against "
                f"{' '.join(gold_forms)!r}; predict on the gold tokenisation")


def nonprojective_counts(gold_conllu: PathLike,
                         system_conllus: Dict[str, PathLike]) -> Dict[str, object]:
    """Sentences of the gold file, its non-projective trees, and for each system (name ->
    its CoNLL-U on the gold tokenisation): how many of those trees it gets exactly right
    (every word's HEAD and DEPREL's universal part), how many right on heads alone, and
    how many of its own predicted trees are non-projective. Files are named, not pathed."""
    gold = read_sentences(gold_conllu)
    hard = [i for i, sentence in enumerate(gold)
            if not is_projective([w.head for w in sentence.words])]
    systems = {}
    for name, path in system_conllus.items():
        predicted = read_sentences(path)
        check_same_words(gold, predicted, gold_conllu, path)
        heads_right = [i for i in hard
                       if [w.head for w in predicted[i].words] == [w.head for w in gold[i].words]]
        exactly_right = [i for i in heads_right
                         if [universal(w.deprel) for w in predicted[i].words]
                         == [universal(w.deprel) for w in gold[i].words]]
        systems[name] = {
            "file": Path(path).name,
            "nonprojective_right": len(exactly_right),
            "nonprojective_heads_right": len(heads_right),
            "predicted_nonprojective": sum(
                not is_projective([w.head for w in s.words]) for s in predicted),
        }
    return {"gold": Path(gold_conllu).name, "sentences": len(gold),
            "nonprojective": len(hard), "systems": systems}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", type=Path, help="the gold CoNLL-U file")
    parser.add_argument("systems", nargs="*", metavar="NAME=SYSTEM",
                        help="a system's CoNLL-U, predicted on the gold tokenisation")
    parser.add_argument("--output", type=Path, help="where to write the counts as JSON")
    args = parser.parse_args(argv)
    systems = {}
    for item in args.systems:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            parser.error(f"expected NAME=SYSTEM, got {item!r}")
        systems[name] = Path(path)
    text = json.dumps(nonprojective_counts(args.gold, systems), indent=2) + "\n"
    print(text, end="")
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
