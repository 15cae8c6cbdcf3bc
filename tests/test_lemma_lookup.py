"""elstm_lemma_lookup: the training data's most frequent lemma of a seen (form,
UPOS) replaces the lemmatizer's; an unseen word, or a seen one with another
UPOS, keeps its lemma; min_count and min_share; saved and loaded with the pipeline; a bad
setting is named."""
import pytest
import spacy
from spacy.tokens import Doc, DocBin
from spacy.training import Example

from spacy_elstm.components.lemma_lookup import FACTORY, learn_table


def training(vocab):
    words = ["evlerde", "evlerde", "evlerde", "gitti", "gitti", "yüz"]
    pos = ["NOUN", "NOUN", "NOUN", "VERB", "VERB", "NUM"]
    lemmas = ["ev", "ev", "evler", "git", "gitmek", "yüz"]
    return [Doc(vocab, words=words, pos=pos, lemmas=lemmas)]


def test_the_most_frequent_lemma_of_a_form_and_upos_is_learned():
    docs = training(spacy.blank("tr").vocab)
    assert learn_table(docs, min_share=0.5) == {
        ("evlerde", "NOUN"): "ev", ("gitti", "VERB"): "git", ("yüz", "NUM"): "yüz"}
    assert learn_table(docs, min_count=2, min_share=0.5) == {("evlerde", "NOUN"): "ev"}


def test_a_form_whose_lemmas_vary_is_left_to_the_lemmatizer():
    docs = training(spacy.blank("tr").vocab)
    # evlerde NOUN: ev 2 of 3; gitti VERB: git 1 of 2; yüz NUM: 1 of 1
    assert learn_table(docs) == {("yüz", "NUM"): "yüz"}  # min_share 0.9
    assert learn_table(docs, min_share=0.6) == {("evlerde", "NOUN"): "ev", ("yüz", "NUM"): "yüz"}


def test_seen_words_take_the_training_lemma_and_the_rest_keep_theirs(tmp_path):
    nlp = spacy.blank("tr")
    lookup = nlp.add_pipe(FACTORY, config={"min_share": 0.5})
    path = tmp_path / "train.spacy"
    DocBin(docs=training(nlp.vocab)).to_disk(path)
    nlp.initialize(lambda: [Example(d, d) for d in training(nlp.vocab)])
    lookup.initialize(lambda: [], nlp=nlp, treebank=path)
    doc = Doc(nlp.vocab, words=["evlerde", "evlerde", "kitap"], pos=["NOUN", "VERB", "NOUN"],
              lemmas=["evler", "evle", "kitap"])
    assert [t.lemma_ for t in lookup(doc)] == ["ev", "evle", "kitap"]
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe(FACTORY).table == lookup.table
    assert loaded.get_pipe(FACTORY).min_share == 0.5
    doc = Doc(loaded.vocab, words=["gitti"], pos=["VERB"], lemmas=["gitt"])
    assert loaded.get_pipe(FACTORY)(doc)[0].lemma_ == "git"


@pytest.mark.parametrize("bad,message", [
    (0, r"\[components.elstm_lemma_lookup\] min_count must be an integer >= 1, got 0"),
    (-1, r"min_count must be an integer >= 1, got -1"),
    (1.5, r"min_count\s+at root: 1.5 is not <class 'int'>"),  # spaCy's check of the type
])
def test_a_bad_min_count_is_named(bad, message):
    with pytest.raises(ValueError, match=message):
        spacy.blank("en").add_pipe(FACTORY, config={"min_count": bad})


@pytest.mark.parametrize("bad", [0, 1.5, -0.1])
def test_a_bad_min_share_is_named(bad):
    with pytest.raises(ValueError, match=r"\[components.elstm_lemma_lookup\] min_share must be "
                       rf"a number above 0 and at most 1, got {bad!r}"):
        spacy.blank("en").add_pipe(FACTORY, config={"min_share": bad})


def test_a_table_saved_before_min_share_loads_as_it_was():
    import srsly
    from spacy_elstm.components.lemma_lookup import LemmaLookup
    old = srsly.msgpack_dumps({"min_count": 1, "table": [["gitti", "VERB", "git"]]})
    lookup = LemmaLookup().from_bytes(old)
    assert lookup.table == {("gitti", "VERB"): "git"} and lookup.min_share == 0.0


def test_a_capitalised_form_takes_its_lower_case_lemma():
    nlp = spacy.blank("tr")
    lookup = nlp.add_pipe(FACTORY)
    lookup.table = {("evlerde", "NOUN"): "ev", ("Ankara", "PROPN"): "Ankara"}
    doc = Doc(nlp.vocab, words=["Evlerde", "EVLERDE", "Evlerde", "Ankara", "ankara"],
              pos=["NOUN", "NOUN", "VERB", "PROPN", "PROPN"],
              lemmas=["Ev", "EV", "Evle", "Ank", "ank"])
    # the upper case of a lower-case form seen is looked up; not the reverse
    assert [t.lemma_ for t in lookup(doc)] == ["ev", "ev", "Evle", "Ankara", "ank"]
