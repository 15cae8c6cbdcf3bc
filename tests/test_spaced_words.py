"""Words that contain a space (spacy_elstm/text/spaced_words.py): learned from a
treebank that has them (an excerpt of UD Vietnamese-VTB, CC BY-SA 4.0), made
by the treebank tokenizer with the Doc's text kept, saved and loaded, written
to CoNLL-U with their space; a treebank without them tokenized as before."""
import os
from pathlib import Path

import pytest
import spacy
import srsly
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab

from spacy_elstm.text.spaced_words import SpacedWords
from spacy_elstm.text.treebank_tokenizer import NAME
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs
from spacy_elstm.treebanks.conllu_writer import doc_to_conllu
from spacy_elstm.treebanks.gold_text import raw_documents, ud_text
from spacy_elstm.treebanks.scoring import (SCORER_ASSET, SCORER_ENV, load_scorer,
                                           official_scores, write_raw_conllu)

ROOT = Path(__file__).resolve().parent.parent
VTB = ROOT / "tests" / "fixtures" / "ud_text" / "UD_Vietnamese-VTB" / "vi_vtb-ud-test.conllu"
EWT = ROOT / "assets" / "ud-ewt-sample" / "train.conllu"
SCRIPT = Path(os.environ.get(SCORER_ENV) or ROOT / SCORER_ASSET)


def learned_nlp(path, lang):
    nlp = spacy.blank(lang, config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    docs = conllu_to_docs(path, 10, nlp.vocab)
    nlp.tokenizer.initialize(lambda: (Example(nlp.make_doc(d.text), d) for d in docs), nlp=nlp)
    return nlp


@pytest.fixture(scope="module")
def vietnamese():
    return learned_nlp(VTB, "vi")


def test_a_word_is_kept_where_written_together_more_often_than_apart():
    words = ["Ông", "chủ tịch", "nói", "ủy", "ban", "và", "ủy ban", "ủy", "ban", "Bùi Văn Luyến",
             "gặp", "Bà", "Loan", "ở", "Hà  Nội", "."]
    doc = Doc(Vocab(), words=words, spaces=[w != "Hà  Nội" for w in words])
    learned = SpacedWords.learn([doc])
    assert learned.words == {"chủ tịch": (1, 0), "bùi văn luyến": (1, 0), "hà nội": (1, 0)}
    assert learned.capitalised_runs == (2, 1) and learned.joins_runs  # Bà + Loan apart
    assert SpacedWords.learn([doc], keep_all=True).words["ủy ban"] == (1, 2)
    assert SpacedWords.learn([doc], case="as_written").words["Bùi Văn Luyến"] == (1, 0)
    with pytest.raises(ValueError, match="case must be one of .*got 'upper'"):
        SpacedWords(case="upper")


def test_the_tokenizer_makes_words_with_spaces_and_keeps_the_text(vietnamese):
    assert vietnamese.tokenizer.learned["words_with_spaces"] > 50
    text = ud_text(VTB, "vi")
    doc = vietnamese(text)
    assert doc.text == text
    for token in doc:
        assert text[token.idx:token.idx + len(token.text)] == token.text
    words = [t.text for t in doc]
    assert "chúng tôi" in words and "Lạng Sơn" in words
    assert "phức\ntạp" in words  # UD's text wraps a line inside the word
    new = vietnamese("Chúng tôi ở Lạng\nSơn.\n\nCó lẽ đi Hải Phòng.")
    assert [t.text for t in new] == ["Chúng tôi", "ở", "Lạng\nSơn", ".", "\n\n", "Có lẽ", "đi",
                                     "Hải Phòng", "."]
    assert new[5].is_sent_start  # after a blank line, as before


def test_words_with_spaces_are_written_to_conllu_with_their_space(vietnamese):
    doc = vietnamese("Chúng tôi đến Lạng\nSơn .")
    rows = [line.split("\t") for line in doc_to_conllu(doc)[0].splitlines()
            if line and not line.startswith("#")]
    assert [row[1] for row in rows] == ["Chúng tôi", "đến", "Lạng Sơn", "."]
    assert "# text = Chúng tôi đến Lạng Sơn ." in doc_to_conllu(doc)[0]


@pytest.mark.skipif(not SCRIPT.is_file(), reason=f"no {SCRIPT}: `spacy project assets` or set "
                    f"{SCORER_ENV} to a copy of conll18_ud_eval.py")
def test_the_official_script_scores_words_with_spaces(vietnamese, tmp_path):
    documents = raw_documents(VTB, "ud", "vi")
    scorer = load_scorer(SCRIPT)

    def words_f1():
        write_raw_conllu(tmp_path / "system.conllu", [vietnamese(d.text) for d in documents],
                         documents)
        return official_scores(scorer, VTB, tmp_path / "system.conllu")["Words"].f1

    learned = vietnamese.tokenizer.spaced_words
    with_spaces = words_f1()
    vietnamese.tokenizer.spaced_words = SpacedWords()
    try:
        without = words_f1()
    finally:
        vietnamese.tokenizer.spaced_words = learned
    assert with_spaces > 0.95 > 0.8 > without


def test_a_treebank_without_words_with_spaces_tokenizes_as_before():
    nlp = learned_nlp(EWT, "en")
    assert len(nlp.tokenizer.spaced_words) == 0 and not nlp.tokenizer.spaced_words.joins_runs
    assert nlp.tokenizer.learned["words_with_spaces"] == 0
    text = "Ask New York City  Hall.\nThey don't know\n\nMr. Bush said so."
    assert [t.text for t in nlp(text)] == [t.text for t in nlp.tokenizer.rules(text)]


def test_the_lexicon_is_saved_and_loaded(vietnamese, tmp_path):
    text = "Chúng tôi ở Lạng Sơn, có thể đi Hải Phòng."
    vietnamese.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.tokenizer.spaced_words.to_dict() == vietnamese.tokenizer.spaced_words.to_dict()
    assert [t.text for t in loaded(text)] == [t.text for t in vietnamese(text)]
    assert "có thể" in [t.text for t in loaded(text)]


def test_a_tokenizer_saved_without_the_lexicon_loads_and_tokenizes_as_before(vietnamese):
    saved = srsly.msgpack_loads(vietnamese.tokenizer.to_bytes())
    del saved["spaced_words"]  # as a tokenizer saved before it learned words with spaces
    old = spacy.blank("vi", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    old.tokenizer.from_bytes(srsly.msgpack_dumps(saved))
    assert len(old.tokenizer.spaced_words) == 0 and not old.tokenizer.spaced_words.joins_runs
    text = "Chúng tôi ở Lạng Sơn."
    assert [t.text for t in old(text)] == ["Chúng", "tôi", "ở", "Lạng", "Sơn", "."]
