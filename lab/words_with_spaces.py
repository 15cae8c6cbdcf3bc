"""Words that contain a space (spacy_elstm/text/spaced_words.py): Tokens and
Words F1 of the treebank tokenizer (spacy-elstm.TreebankTokenizer.v1, learned
from the treebank's train split) on a split's raw text, scored alone by the
CoNLL 2018 script, without the lexicon of words with spaces ("none": the
tokenizer before it learned them) and with each way of learning and looking it
up; "learned" is the tokenizer as `[initialize.tokenizer]` leaves it.

    python -m lab.words_with_spaces --treebank assets/UD_Vietnamese-VTB --split dev --output metrics/treebanks/UD_Vietnamese-VTB/tokenizer-dev.json

Variants: "all/CASE" keeps every training word with a space, "kept/CASE" those
written together more often than apart; CASE is how a text is looked up
(SpacedWords' `case`); "+runs" adds the runs of capitalised syllables, joined
where the training data writes them as one word more often than not. No
tagger or parser runs, and the tokenizer splits no sentences (only a blank
line ends one), so Sentences is left out.
"""
from pathlib import Path
from typing import Any, Dict, List

from spacy_elstm.files import write_json
from spacy_elstm.text.spaced_words import CASES, SpacedWords, word_key
from spacy_elstm.treebanks.conllu_reader import read_conllu
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import load_scorer, md5
from spacy_elstm.treebanks.ud_folder import find_treebank

from .tokenizer_alone import learned_tokenizer, parse_treebank_args, treebank_parser, variant_rows


def variants(docs: List) -> Dict[str, SpacedWords]:
    """{name: lexicon} of every way measured, "none" first."""
    found = {"none": SpacedWords()}
    for keep_all, kind in ((True, "all"), (False, "kept")):
        for case in CASES:
            found[f"{kind}/{case}"] = SpacedWords.learn(docs, case=case, keep_all=keep_all,
                                                        runs=False)
    for case in CASES:
        found[f"kept/{case}+runs"] = SpacedWords.learn(docs, case=case)
    return found


def spaced_words_of(path: Path) -> List[str]:
    """The words with a space of a CoNLL-U file, as the lexicon writes them."""
    return [word_key(t.text) for doc in read_conllu(path) for t in doc if len(t.text.split()) > 1]


def main(argv=None) -> int:
    parser = treebank_parser(__doc__)
    parser.add_argument("--text-form", default="ud")
    args = parse_treebank_args(parser, argv, "the tokenizer")
    treebank = find_treebank(args.treebank)
    scorer = load_scorer(args.scorer)
    nlp, train, _ = learned_tokenizer(treebank)
    learned = nlp.tokenizer.spaced_words
    gold = treebank.files[args.split]
    documents = raw_documents(gold, args.text_form, treebank.code)
    held_out = spaced_words_of(gold)
    result: Dict[str, Any] = {
        "treebank": treebank.name, "train": treebank.files["train"].name, "gold": gold.name,
        "text_form": args.text_form, "scorer_md5": md5(args.scorer),
        "learned": {"case": learned.case, "capitalised_runs": learned.capitalised_runs},
        "tokenizer_learned": nlp.tokenizer.learned,
        "gold_words_with_space": len(held_out),
        "gold_words_with_space_in_train": sum(w in SpacedWords.learn(
            train, case="as_written", keep_all=True).words for w in held_out)}
    result["rows"] = variant_rows(
        nlp, "spaced_words", {**variants(train), "learned": learned},
        lambda lexicon: {"lexicon": len(lexicon), "joins_runs": lexicon.joins_runs},
        gold, documents, scorer)
    write_json(args.output, result)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
