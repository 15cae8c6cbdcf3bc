"""Sentences in text the senters were not tuned for: NLTK's sample of the Penn
Treebank's WSJ (199 news articles, 3,914 sentences) as raw text, split by each
pipeline's tokenizer and `elstm_senter` and by UDPipe 1's tokenizer (the peer,
trained on EWT train as ours are), side by side in the same run, scored by the
CoNLL 2018 script. The script matches sentences by their characters, so the
two treebanks' ways of tokenising do not count in Sentences.

The trees' words become text as a writer wrote them: PTB's escapes undone
(`-LRB-` is "(", two backquotes and two quotes are '"', `\\/` is "/"), the
spaces where `ptb.spaces_after` puts them, and the period PTB adds after a
sentence-final abbreviation ("U.S. .") left out. Each article is one document
of one paragraph (the sample marks no paragraphs), laid out in UD's text form
(lines wrapped at 80 characters) and joined on one line, and in UD's form in
lower case and without punctuation (`score --raw --text-variant`'s rewritings;
PTB's punctuation tags are UD's PUNCT).

    python -m lab.wsj_sentences PIPELINE... [--udpipe training/udpipe1/en_ewt.udpipe] [--trees assets/ptb-sample/treebank/combined] [--output metrics/tokenizers/wsj-sentences.json]
"""
import json
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence, Tuple

import torch

from spacy_elstm.files import write_json
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.gold_variants import variant_gold
from spacy_elstm.treebanks.ptb import Sentence, parse_split, read_split, spaces_after
from spacy_elstm.treebanks.scoring import load_scorer, official_scores

from .arguments import pipelines_parser
from .tokenizers import SCRIPT, measure, senter_pipeline

TREES = "assets/ptb-sample/treebank/combined"
ALL_FILES = "wsj=1-199"
# PTB's tags of punctuation (UD's PUNCT; `$` and `#` are symbols)
PUNCTUATION_TAGS = {",", ".", ":", "``", "''", "-LRB-", "-RRB-"}
# what each splitter reads: (the rewriting of the gold, the text's form)
READINGS = {"ud": ("as-written", "ud"), "joined": ("as-written", "joined"),
            "lowercase": ("lowercase", "ud"), "unpunctuated": ("unpunctuated", "ud")}
UNESCAPED = {"-LRB-": "(", "-RRB-": ")", "-LCB-": "{", "-RCB-": "}", "-LSB-": "[",
             "-RSB-": "]", "``": '"', "''": '"', "`": "'"}


def written(word: str) -> str:
    """A PTB word as it was written."""
    return UNESCAPED.get(word, word).replace("\\/", "/").replace("\\*", "*")


def words_and_spaces(sentence: Sentence):
    """The sentence's words as written, whether a space follows each and
    whether each is punctuation, the period PTB repeats after a final
    abbreviation left out."""
    words, tags = list(sentence.words), list(sentence.tags)
    if len(words) > 1 and words[-1] == "." and words[-2].endswith("."):
        words, tags = words[:-1], tags[:-1]
    return ([written(w) for w in words], spaces_after(words, tags),
            [tag in PUNCTUATION_TAGS for tag in tags])


def gold_conllu(sentences: Sequence[Sentence]) -> str:
    """CoNLL-U of the sentences as written, each file a document of one
    paragraph (`# newdoc id`, `# newpar`), UPOS PUNCT or X, every word attached
    to the first: the CoNLL 2018 script needs a tree, and only sentences are
    scored."""
    blocks, document = [], None
    for sentence in sentences:
        words, spaces, punctuation = words_and_spaces(sentence)
        lines = [f"# sent_id = {sentence.sent_id}",
                 "# text = " + "".join(w + (" " if s else "") for w, s in zip(words, spaces)).rstrip()]
        if sentence.path.stem != document:
            document = sentence.path.stem
            lines[:0] = [f"# newdoc id = {document}", "# newpar"]
        for i, (word, space, punct) in enumerate(zip(words, spaces, punctuation), start=1):
            head, relation = (0, "root") if i == 1 else (1, "dep")
            upos = "PUNCT" if punct else "X"
            misc = "_" if space else "SpaceAfter=No"
            lines.append(f"{i}\t{word}\t_\t{upos}\t_\t_\t{head}\t{relation}\t_\t{misc}")
        blocks.append("\n".join(lines) + "\n\n")
    return "".join(blocks)


def written_gold(trees: Path, folder: Path) -> Tuple[Path, List[Sentence]]:
    """The sample's gold CoNLL-U as written (`gold_conllu`), in `folder`, and
    its sentences."""
    sentences = read_split(trees, parse_split(ALL_FILES), "mrg")
    gold = folder / "wsj.conllu"
    gold.write_text(gold_conllu(sentences), encoding="utf8")
    return gold, sentences


def udpipe_splitter(model_path: Path, scorer) -> Callable[[Path, str], float]:
    """UDPipe 1's Sentences F1 on a gold file's text in a form: its tokenizer
    (default mode) on each document's text, tagged and parsed as
    `lab.udpipe_peer` runs it; the model loaded once."""
    import ufal.udpipe as udpipe

    model = udpipe.Model.load(str(model_path))
    if model is None:
        raise SystemExit(f"{model_path}: not a UDPipe model.")
    return lambda gold, form: udpipe_sentences(model, gold, scorer, form)


def udpipe_sentences(model, gold: Path, scorer, form: str) -> float:
    """A loaded UDPipe 1 model's Sentences F1 on the gold file's text in `form`."""
    import ufal.udpipe as udpipe

    from .udpipe_peer import annotate
    conllu = "".join(annotate(model, d.text, udpipe.Model.DEFAULT)[0]
                     for d in raw_documents(gold, form))
    with tempfile.TemporaryDirectory() as temp:
        system = Path(temp) / "udpipe.conllu"
        system.write_text(conllu, encoding="utf8")
        return round(100 * official_scores(scorer, gold, system)["Sentences"].f1, 2)


def main(argv=None) -> int:
    parser = pipelines_parser(__doc__, "metrics/tokenizers/wsj-sentences.json")
    parser.add_argument("--udpipe", type=Path, help="a UDPipe 1 model (lab.udpipe_peer train)")
    parser.add_argument("--trees", type=Path, default=Path(TREES))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    scorer = load_scorer(SCRIPT)
    rows: List[Dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as temp:
        gold, sentences = written_gold(args.trees, Path(temp))
        golds = {variant: variant_gold(gold, variant, Path(temp) / variant)
                 for variant, _ in READINGS.values()}
        splitters = [(path.as_posix(), lambda gold, form, nlp=senter_pipeline(path):
                      measure(nlp, gold, scorer, form)["Sentences"]) for path in args.pipelines]
        if args.udpipe:
            splitters.append((f"UDPipe 1 ({args.udpipe.as_posix()})",
                              udpipe_splitter(args.udpipe, scorer)))
        for name, split in splitters:
            row = {"splitter": name, "Sentences": {
                reading: split(golds[variant], form) for reading, (variant, form) in READINGS.items()}}
            print(json.dumps(row), flush=True)
            rows.append(row)
    write_json(args.output, {"trees": args.trees.as_posix(),
                             "documents": len({s.path.stem for s in sentences}),
                             "sentences": len(sentences), "rows": rows})
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
