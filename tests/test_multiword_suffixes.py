"""Multiword tokens training never had, split by the rules of their endings
(spacy_elstm/text/multiword_suffixes.py): learned from the tokens the training
data writes once, kept where they mostly hold; a token the training data has is
left alone; the pieces become the Doc's words with the forms beside; saved and
loaded, and a tokenizer saved before them loads without."""
import spacy
import srsly
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab

from spacy_elstm.text.multiword import multiword_spans, set_multiword_spans, word_forms
from spacy_elstm.text.multiword_suffixes import SuffixRules
from spacy_elstm.text.treebank_tokenizer import NAME


def sentence(vocab, tokens):
    """A Doc of tokens, each a word or (token, [words]) of a multiword token
    whose words spell it."""
    words, spans = [], []
    for token in tokens:
        if isinstance(token, tuple):
            spans.append((len(words), len(words) + len(token[1]) - 1))
            words += token[1]
        else:
            words.append(token)
    spaces = [True] * len(words)
    for a, b in spans:
        spaces[a:b] = [False] * (b - a)
    doc = Doc(vocab, words=words, spaces=spaces,
              sent_starts=[True] + [False] * (len(words) - 1))
    set_multiword_spans(doc, spans)
    return doc


def training_docs(vocab):
    # rare nouns + `ki` are two words; rare words ending in `ki` otherwise are one,
    # and more of them than the first; `teki`, frequent, counts for neither
    rare = [("evdeki", ["evde", "ki"]), ("yoldaki", ["yolda", "ki"]),
            ("masadaki", ["masada", "ki"]), ("odadaki", ["odada", "ki"])]
    single = ["reki", "seki", "peki", "leki", "zeki", "teki", "teki", "teki", "kitabı"]
    plain = [f"söz{k}" for k in range(80)]  # words the rules alone get right
    return [sentence(vocab, rare + single + plain + ["."])]


def test_rules_are_learned_from_rare_tokens_and_split_unseen_ones():
    rules = SuffixRules.learn(training_docs(Vocab()))
    assert rules.rules["daki"] == (2, "", ("ki",)) and "ki" not in rules.rules
    assert rules.words("bahçedeki") is None  # ends `edeki`: no rule has that key
    assert rules.words("kapıdaki") == ["kapıda", "ki"]
    assert rules.words("odadaki") is None  # a training token is left alone
    assert rules.words("3daki") is None  # letters only


def test_the_split_keeps_the_text_and_moves_the_other_tokens():
    vocab = Vocab()
    rules = SuffixRules.learn(training_docs(vocab))
    doc = Doc(vocab, words=["Kapıdaki", "don", "'t", "kapıdaki"], spaces=[True, False, True, False])
    spans, forms = rules.split(doc, [(1, 2)], {})
    assert doc.text == "Kapıdaki don't kapıdaki"
    assert [t.text for t in doc] == ["Kapıda", "ki", "don", "'t", "kapıda", "ki"]
    assert spans == [(0, 1), (2, 3), (4, 5)] and forms == {}


def test_the_tokenizer_saves_and_loads_them(tmp_path):
    nlp = spacy.blank("tr", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    docs = training_docs(nlp.vocab)
    nlp.tokenizer.initialize(lambda: (Example(nlp.make_doc(d.text), d) for d in docs), nlp=nlp)
    assert nlp.tokenizer.learned["multiword_suffixes"] >= 1
    doc = nlp("Kapıdaki kitabı.")
    assert [t.text for t in doc][:2] == ["Kapıda", "ki"] and multiword_spans(doc)[0] == (0, 1)
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.tokenizer.suffixes.rules == nlp.tokenizer.suffixes.rules
    saved = srsly.msgpack_loads(nlp.tokenizer.to_bytes())
    del saved["multiword_suffixes"]
    old = spacy.blank("tr", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    old.tokenizer.from_bytes(srsly.msgpack_dumps(saved))
    assert len(old.tokenizer.suffixes) == 0 and [t.text for t in old("Kapıdaki")] == ["Kapıdaki"]
    assert word_forms(doc) == {}
