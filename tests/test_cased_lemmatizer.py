"""elstm_lemmatizer: spaCy's edit-tree lemmatizer whose trees read forms and
lemmas with their first letter in lower case, so a capitalised word shares
the tree of its lower-case forms; the capital comes back on the lemma where
the training data's lemmas of that UPOS keep it; saved and loaded with it."""
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_elstm.components.cased_lemmatizer import FACTORY, capital_kept, first_lower


def test_first_lower_lowers_one_letter_only():
    assert first_lower("Kaçtım") == "kaçtım"
    assert first_lower("kaç") == "kaç" and first_lower("") == "" and first_lower("1.") == "1."
    assert first_lower("NATO") == "nATO"
    assert first_lower("İstanbul") == "İstanbul"  # lowers to two characters: left as it is


def test_a_capitalised_form_shares_the_tree_of_its_lower_case_forms():
    nlp = spacy.blank("tr")
    cased = nlp.add_pipe(FACTORY)
    plain = nlp.add_pipe("trainable_lemmatizer", name="plain")
    for lemmatizer, same in ((cased, True), (plain, False)):
        capital = lemmatizer.trees.add("Kaçtım", "kaç")
        lower = lemmatizer.trees.add("baktım", "bak")
        assert (capital == lower) is same
    tree = cased.trees.add("baktım", "bak")
    assert cased.trees.apply(tree, "Yaptım") == "yap"


def words_doc(vocab, words, pos, lemmas=None):
    return Doc(vocab, words=words, pos=pos, lemmas=lemmas)


def test_the_capital_comes_back_where_the_training_lemmas_keep_it():
    nlp = spacy.blank("tr")
    lemmatizer = nlp.add_pipe(FACTORY)
    training = [words_doc(nlp.vocab, ["Kerem", "Baktım", "Ev"], ["PROPN", "VERB", "NOUN"],
                          ["Kerem", "bak", "ev"])]
    assert capital_kept(training) == {"NOUN": False, "PROPN": True, "VERB": False}
    lemmatizer.cfg["capital_kept"] = capital_kept(training)
    strip = lemmatizer.trees.add("baktım", "bak")
    same = lemmatizer.trees.add("ev", "ev")
    doc = words_doc(nlp.vocab, ["Kaçtım", "Kerem", "Kerem", "Sokak", "kaçtım"],
                    ["VERB", "PROPN", "NOUN", "ADV", "VERB"])
    lemmatizer.set_annotations([doc], [[strip, same, same, same, -1]])
    # ADV: no capitalised form in training, so its capital stays; -1: the backoff, the form
    assert [t.lemma_ for t in doc] == ["kaç", "Kerem", "kerem", "Sokak", "kaçtım"]


def test_a_lemma_given_before_stays_unless_overwrite():
    nlp = spacy.blank("tr")
    lemmatizer = nlp.add_pipe(FACTORY)
    lemmatizer.cfg["capital_kept"] = {"PROPN": True}
    same = lemmatizer.trees.add("ev", "ev")
    doc = words_doc(nlp.vocab, ["Kerem"], ["PROPN"], ["kerem"])
    lemmatizer.set_annotations([doc], [[same]])
    assert doc[0].lemma_ == "kerem"


def test_trained_saved_and_loaded(tmp_path):
    nlp = spacy.blank("tr")
    nlp.add_pipe(FACTORY, config={"min_tree_freq": 1})
    docs = [words_doc(nlp.vocab, ["Kerem", "baktı", "Ev", "evler"],
                      ["PROPN", "VERB", "NOUN", "NOUN"], ["Kerem", "bak", "ev", "ev"])] * 4
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in d], pos=[t.pos_ for t in d]), d)
                for d in docs]
    nlp.initialize(lambda: examples)
    lemmatizer = nlp.get_pipe(FACTORY)
    assert lemmatizer.cfg["capital_kept"] == {"NOUN": False, "PROPN": True}
    for _ in range(30):
        nlp.update(examples)
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe(FACTORY).cfg["capital_kept"] == {"NOUN": False, "PROPN": True}
    assert len(loaded.get_pipe(FACTORY).trees) == len(lemmatizer.trees)
    doc = Doc(loaded.vocab, words=["Kerem", "baktı", "Ev", "evler"],
              pos=["PROPN", "VERB", "NOUN", "NOUN"])
    assert [t.lemma_ for t in loaded.get_pipe(FACTORY)(doc)] == ["Kerem", "bak", "ev", "ev"]
