"""Multiword tokens whose words do not spell them (spacy_elstm/text/multiword.py;
an excerpt of UD Wolof-WTB, CC BY-SA 4.0): the converter keeps the sentence's
text, with pieces of the token as its Doc words and the words' forms beside;
CoNLL-U output writes the forms; the treebank tokenizer learns them and writes
`moo` as `mu` + `a` from raw text; rules saved before the forms load without."""
import os
from pathlib import Path

import pytest
import spacy
from spacy.training import Example

from spacy_elstm.text.multiword import (MultiwordRules, multiword_spans, surface_pieces,
                                        word_forms)
from spacy_elstm.text.treebank_tokenizer import NAME
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs, read_conllu
from spacy_elstm.treebanks.conllu_writer import doc_to_conllu
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import (SCORER_ASSET, SCORER_ENV, load_scorer,
                                           official_scores, write_raw_conllu)

ROOT = Path(__file__).resolve().parent.parent
WTB = ROOT / "tests" / "fixtures" / "ud_text" / "UD_Wolof-WTB" / "wo_wtb-ud-test.conllu"
SCRIPT = Path(os.environ.get(SCORER_ENV) or ROOT / SCORER_ASSET)


def gold_rows(path):
    """Per sentence: its `# text` and its word and range lines' (ID, FORM)."""
    found, text, rows = [], None, []
    for line in path.read_text(encoding="utf8").splitlines():
        if line.startswith("# text = "):
            text = line[len("# text = "):]
        elif line and not line.startswith("#"):
            columns = line.split("\t")
            if "." not in columns[0]:
                rows.append((columns[0], columns[1]))
        elif not line and rows:
            found.append((text, rows))
            text, rows = None, []
    return found


@pytest.mark.parametrize("token,words,pieces", [
    ("don't", ["do", "n't"], ["do", "n't"]),  # words that spell it are its pieces
    ("moo", ["mu", "a"], ["mo", "o"]),
    ("Moo", ["Mu", "a"], ["Mo", "o"]),
    ("mooy", ["mu", "a", "di"], ["mo", "o", "y"]),
    ("dafa", ["da", "mu"], ["da", "fa"]),
    ("du", ["de", "le"], ["d", "u"]),
    ("ma", ["ma", "a", "di"], None),  # fewer characters than words
])
def test_the_pieces_of_a_token_stand_for_its_words(token, words, pieces):
    assert surface_pieces(token, words) == pieces


def test_the_converter_keeps_the_text_and_the_forms():
    docs = read_conllu(WTB)
    gold = gold_rows(WTB)
    assert len(docs) == len(gold)
    differ = 0
    for doc, (text, rows) in zip(docs, gold):
        assert doc.text.rstrip() == text
        forms = word_forms(doc)
        differ += len(forms)
        words = [form for number, form in rows if "-" not in number]
        assert [forms.get(t.i, t.text) for t in doc] == words
        written, _ = doc_to_conllu(doc, one_sentence=True)
        assert [tuple(line.split("\t")[:2]) for line in written.splitlines()
                if line and not line.startswith("#")] == rows
    assert differ >= 10
    grouped = conllu_to_docs(WTB, 10)  # forms move with their words when sentences are joined
    assert sum(len(word_forms(d)) for d in grouped) == differ
    for doc in grouped:
        assert all(doc[i].text != form for i, form in word_forms(doc).items())


@pytest.fixture(scope="module")
def wolof():
    nlp = spacy.blank("xx", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    docs = conllu_to_docs(WTB, 10, nlp.vocab)
    nlp.tokenizer.initialize(lambda: (Example(nlp.make_doc(d.text), d) for d in docs), nlp=nlp)
    return nlp


def test_the_tokenizer_writes_the_words_of_a_token_they_do_not_spell(wolof):
    assert wolof.tokenizer.learned["multiword_forms"] >= 3
    text = "Moo ko def, dafa ko bëgg."
    doc = wolof(text)
    assert doc.text == text
    spans = multiword_spans(doc)
    forms = word_forms(doc)
    words = [[forms.get(i, doc[i].text) for i in range(a, b + 1)] for a, b in spans]
    assert ["Mu", "a"] in words and ["da", "mu"] in words


def test_rules_saved_before_the_forms_load_without_them(wolof):
    saved = wolof.tokenizer.multiword.to_dict()
    del saved["forms"]
    old = MultiwordRules.from_dict(saved)
    assert old.forms == {} and old.sequences == wolof.tokenizer.multiword.sequences


@pytest.mark.skipif(not SCRIPT.exists(), reason="CoNLL 2018 script not in assets/")
def test_the_official_script_scores_the_forms(wolof, tmp_path):
    scorer = load_scorer(SCRIPT)
    documents = raw_documents(WTB, "ud", "wo")
    docs = [wolof.make_doc(d.text) for d in documents]
    write_raw_conllu(tmp_path / "with.conllu", docs, documents)
    with_forms = official_scores(scorer, WTB, tmp_path / "with.conllu")["Words"].f1
    for doc in docs:
        doc.user_data.pop("multiword_forms", None)
    write_raw_conllu(tmp_path / "without.conllu", docs, documents)
    without = official_scores(scorer, WTB, tmp_path / "without.conllu")["Words"].f1
    assert with_forms > 0.97 and with_forms > without + 0.01
