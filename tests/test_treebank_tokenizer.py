"""The tokenizer learned from a treebank and its multiword tokens: what it
learns, that it generalises, and that it is saved and loaded with a pipeline."""
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab

from spacy_elstm.text.multiword import MultiwordRules, multiword_spans, set_multiword_spans
from spacy_elstm.text.treebank_tokenizer import (NAME, _chunk_analyses, _f1, _punct_runs,
                                                default_rules)
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_TRAIN = ROOT / "assets" / "ud-ewt-sample" / "train.conllu"
SAMPLE_DEV = ROOT / "assets" / "ud-ewt-sample" / "dev.conllu"


def treebank_nlp(path=SAMPLE_TRAIN):
    nlp = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    docs = conllu_to_docs(path, 10, nlp.vocab)
    nlp.tokenizer.initialize(lambda: (Example(nlp.make_doc(d.text), d) for d in docs), nlp=nlp)
    return nlp, docs


def test_converted_docs_carry_the_treebank_s_multiword_tokens():
    docs = conllu_to_docs(SAMPLE_TRAIN, 10)
    spans = [(doc, a, b) for doc in docs for a, b in multiword_spans(doc)]
    assert len(spans) > 20
    for doc, a, b in spans:  # e.g. do + n't, written without a space between
        assert b == a + 1 and not doc[a].whitespace_
    texts = {doc[a:b + 1].text.lower() for doc, a, b in spans}
    assert {"don't", "i'm", "it's"} <= texts


def test_multiword_rules_generalise_to_unseen_hosts():
    vocab = Vocab()
    train = Doc(vocab, words=["Bush", "'s", "plan", "is", "n't", "his", "do", "n't"],
                spaces=[False, True, True, False, True, True, False, False])
    set_multiword_spans(train, [(0, 1), (3, 4), (6, 7)])
    again = Doc(vocab, words=["It", "is", "n't"], spaces=[True, False, False])
    set_multiword_spans(again, [(1, 2)])
    rules = MultiwordRules.learn([train, again], min_count=2)
    assert rules.endings == {"n't"}  # 's seen once: below min_count
    new = Doc(vocab, words=["Arafat", "was", "n't", "here", "-", "n't"],
              spaces=[True, False, True, True, False, False])
    assert rules.spans(new) == [(1, 2)]  # not after punctuation
    assert MultiwordRules.from_dict(rules.to_dict()).spans(new) == [(1, 2)]


def test_multiword_rules_read_the_typographic_apostrophe_as_the_plain_one():
    """Learned from `I'm` and `gon na`, they find `I’m` (U+2019) and `Gon na`; rules
    saved with a typographic apostrophe (before they read it so) find both."""
    vocab = Vocab()
    train = Doc(vocab, words=["I", "'m", "gon", "na", "I", "’m", "gon", "na"],
                spaces=[False, True, False, True, False, True, False, False])
    set_multiword_spans(train, [(0, 1), (2, 3), (4, 5), (6, 7)])
    rules = MultiwordRules.learn([train], min_count=2)
    assert rules.endings == {"'m", "na"} and ("gon", "na") in rules.sequences
    new = Doc(vocab, words=["I", "’m", "Gon", "na", "say", "I", "'m"],
              spaces=[False, True, False, True, True, False, False])
    assert rules.spans(new) == [(0, 1), (2, 3), (5, 6)]
    saved = MultiwordRules.from_dict({"sequences": [["i", "’m"]], "endings": ["’m"]})
    assert saved.spans(new) == [(0, 1), (5, 6)] and saved.to_dict()["endings"] == ["'m"]
    # alone, ’ ends a possessive (Jones’) as ' closes a quotation ('proof'): kept apart
    quoted = Doc(vocab, words=["'", "proof", "'", "Jones", "’"], spaces=[False] * 5)
    assert MultiwordRules(endings=["’"]).spans(quoted) == [(3, 4)]


def test_tokenizer_learns_the_treebank_s_words():
    nlp, docs = treebank_nlp()
    learned = nlp.tokenizer.learned
    assert learned["f1_learned"] > learned["f1_spacy_rules"]
    assert learned["special_cases"] > 0
    dev = _chunk_analyses(conllu_to_docs(SAMPLE_DEV, 10, nlp.vocab))
    assert _f1(nlp.tokenizer.rules, dev) >= _f1(default_rules(nlp), dev)  # held out too
    doc = nlp("I don't know, it's Arafat's e-mail.")
    assert [t.text for t in doc] == ["I", "do", "n't", "know", ",", "it", "'s", "Arafat", "'s",
                                     "e-mail", "."]
    assert multiword_spans(doc) == [(1, 2), (5, 6), (7, 8)]


def test_tokenizer_is_saved_and_loaded_with_the_pipeline(tmp_path):
    nlp, _ = treebank_nlp()
    text = "We're sure it's fine!!! Isn't it?"
    expected = [(t.text, t.whitespace_) for t in nlp(text)]
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert type(loaded.tokenizer).__name__ == "TreebankTokenizer"
    assert loaded.tokenizer.learned == nlp.tokenizer.learned
    assert [(t.text, t.whitespace_) for t in loaded(text)] == expected
    assert multiword_spans(loaded(text)) == multiword_spans(nlp(text))
    blank = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    assert blank.tokenizer.learned == {} and multiword_spans(blank(text)) == []
    assert multiword_spans(loaded(text)) == [(3, 4), (9, 10)]  # it+'s, Is+n't
    assert loaded.tokenizer.from_bytes(nlp.tokenizer.to_bytes()).learned == nlp.tokenizer.learned


def test_runs_of_mixed_punctuation_stay_one_word_where_the_treebank_writes_them_so():
    nlp = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    words, spaces = [], []
    for host, run in [("Really", "?!"), ("What", "!?"), ("Why", "?!!"), ("No", "!!"),
                      ("Who", "??!")] * 3:
        words += [host, run]
        spaces += [False, True]
    gold = Doc(nlp.vocab, words=words, spaces=spaces)
    chunks = _chunk_analyses([gold])
    assert set(_punct_runs(chunks)) == {"!?", "!"}
    nlp.tokenizer.initialize(lambda: [Example(nlp.make_doc(gold.text), gold)], nlp=nlp)
    assert "!?" in nlp.tokenizer.learned["punctuation_runs"]
    # unseen chunks: the run is one word, as prefix, suffix or on its own
    assert [t.text for t in nlp("Nice?!? Great!!?! ?!?")] == ["Nice", "?!?", "Great", "!!?!",
                                                               "?!?"]
    assert [t.text for t in default_rules(nlp)("Nice?!?")] == ["Nice", "?", "!", "?"]


@pytest.mark.parametrize("lang, sentences, unseen, words", [
    # Armenian's full stop, which spaCy's rules for Armenian leave on the word
    ("hy", ["Ես գնում եմ տուն ։", "Նա կարդում է գիրք ։", "Մենք խոսում ենք ։"],
     "Դու գրում ես նամակ։", ["Դու", "գրում", "ես", "նամակ", "։"]),
    # `.` after a Latin word in Persian text: spaCy's rules split it after Persian letters only
    ("fa", ["من از Windows استفاده می کنم .", "او با Python کار کرد و Python .",
            "این Firefox است و Firefox ."],
     "ما Linux داریم و Linux.", ["ما", "Linux", "داریم", "و", "Linux", "."]),
])
def test_a_mark_the_treebank_splits_off_and_the_rules_do_not_is_split_off_any_word(
        lang, sentences, unseen, words):
    nlp = spacy.blank(lang, config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    gold_words, spaces = [], []
    for sentence in sentences * 2:
        split = sentence.split()
        gold_words += split
        spaces += [True] * (len(split) - 2) + [False, True]
    gold = Doc(nlp.vocab, words=gold_words, spaces=spaces)
    assert [t.text for t in default_rules(nlp)(unseen)] != words
    nlp.tokenizer.initialize(lambda: [Example(nlp.make_doc(gold.text), gold)], nlp=nlp)
    mark = words[-1]
    assert nlp.tokenizer.learned["punctuation_marks"] == {"prefix": [], "suffix": [mark]}
    assert nlp.tokenizer.learned["f1_after_rules"] == 1.0
    assert [t.text for t in nlp(unseen)] == words  # words training never had
    loaded = spacy.blank(lang, config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    loaded.tokenizer.from_bytes(nlp.tokenizer.to_bytes())
    assert [t.text for t in loaded(unseen)] == words


def test_a_mark_the_rules_already_split_is_not_learned():
    nlp, _ = treebank_nlp()
    assert nlp.tokenizer.learned["punctuation_marks"] == {"prefix": [], "suffix": []}


def test_a_chunk_s_words_are_found_again_inside_other_punctuation():
    """Training writes `gibiydi.` as gibi + ydi + . (a special case of that
    chunk); `gibiydi` alone, `gibiydi,` and `(gibiydi` are split so too, as
    spaCy looks a special case up again after it splits punctuation off. A core
    the training data keeps whole (`g.j.` of `(g.j.`) adds no special case:
    `g.j.` at a sentence's end is `g.j` + `.`."""
    nlp = spacy.blank("tr", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    filler = "Ali eve geldi ve kitabı okudu".split() * 10  # words the rules get right
    gold = Doc(nlp.vocab, words=["O", "gibi", "ydi", ".", "Sen", "gibi", "ydi", ".",
                                 "(", "g.j.", ")", "ne"] + filler,
               spaces=[True, False, False, True, True, False, False, True,
                       False, False, True, True] + [True] * len(filler))
    set_multiword_spans(gold, [(1, 2), (5, 6)])
    nlp.tokenizer.initialize(lambda: [Example(nlp.make_doc(gold.text), gold)], nlp=nlp)
    assert nlp.tokenizer.learned["special_cases_inside_punctuation"] == 1
    for text, words in [("Ben gibiydi", ["Ben", "gibi", "ydi"]),
                        ("gibiydi, (gibiydi!", ["gibi", "ydi", ",", "(", "gibi", "ydi", "!"]),
                        ("ne g.j.", ["ne", "g.j", "."])]:
        doc = nlp(text)
        assert [t.text for t in doc] == words, text
    assert multiword_spans(nlp("Ben gibiydi")) == [(1, 2)]
