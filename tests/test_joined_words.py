"""Words written together (spacy_elstm/text/joined_words.py): the treebank
tokenizer learns a character model where its rules cannot follow the treebank
(excerpts of UD Coptic-Scriptorium and Classical_Chinese-Kyoto, CC BY-SA 4.0),
not where they can (EWT's sample); a chunk seen in training keeps its analysis,
multiword tokens of any length included; the Doc's text stays the input; it is
saved and loaded, and a tokenizer saved before it loads without one."""
from pathlib import Path

import pytest
import spacy
import srsly
from spacy.tokens import Doc
from spacy.training import Example

from spacy_elstm.text.char_tokenizer import build_doc
from spacy_elstm.text.joined_words import BELOW, JoinedWords, chunk_labels
from spacy_elstm.text.multiword import multiword_spans
from spacy_elstm.text.segmenter import INSIDE, TOKEN_END, WORD_END
from spacy_elstm.text.treebank_tokenizer import NAME
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs
from spacy_elstm.treebanks.gold_text import ud_text

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "ud_text"
COPTIC = FIXTURES / "UD_Coptic-Scriptorium" / "cop_scriptorium-ud-test.conllu"
KYOTO = FIXTURES / "UD_Classical_Chinese-Kyoto" / "lzh_kyoto-ud-test.conllu"
EWT = ROOT / "assets" / "ud-ewt-sample" / "train.conllu"


def learned_nlp(path, lang):
    nlp = spacy.blank(lang, config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    docs = conllu_to_docs(path, 10, nlp.vocab)
    nlp.tokenizer.initialize(lambda: (Example(nlp.make_doc(d.text), d) for d in docs), nlp=nlp,
                             char_epochs=2, min_epoch_sentences=0)
    return nlp, docs


@pytest.fixture(scope="module")
def coptic():
    return learned_nlp(COPTIC, "xx")


def words_and_tokens(docs):
    """Each doc's words and multiword tokens, as (text, word spans) per doc."""
    return [([t.text for t in doc], multiword_spans(doc)) for doc in docs]


def test_a_treebank_the_rules_follow_learns_no_model():
    nlp, _ = learned_nlp(EWT, "en")
    assert not nlp.tokenizer.joined_words and "joined_words" not in nlp.tokenizer.learned
    assert nlp.tokenizer.learned["f1_after_rules"] >= BELOW
    text = "Ask New York City  Hall.\nThey don't know\n\nMr. Bush said so."
    assert [t.text for t in nlp(text)] == [t.text for t in nlp.tokenizer.rules(text)]


@pytest.mark.parametrize("path,lang", [(COPTIC, "xx"), (KYOTO, "xx")])
def test_a_treebank_that_writes_words_together_learns_one(path, lang):
    nlp, _ = learned_nlp(path, lang)
    assert nlp.tokenizer.learned["f1_after_rules"] < BELOW
    assert nlp.tokenizer.joined_words and nlp.tokenizer.learned["joined_words"]["chunks"] >= 5


def test_chunks_seen_in_training_keep_their_words_and_tokens(coptic):
    nlp, docs = coptic
    for gold in docs:
        doc = nlp(gold.text)
        assert doc.text == gold.text
        assert words_and_tokens([doc]) == words_and_tokens([gold])
    longest = max(b - a + 1 for doc in docs for a, b in multiword_spans(doc))
    assert longest >= 4  # the lexicon has no bound on a multiword token's words


def test_texts_read_together_get_the_words_they_get_one_at_a_time(coptic):
    """tokenizer.pipe reads a batch's windows together: the same Docs as a call
    per text, blank lines, empty texts and a text of many windows among them."""
    nlp, docs = coptic
    texts = [d.text for d in docs[:6]] + ["", "\n\n", " ".join(d.text for d in docs)]
    one_at_a_time = [nlp.tokenizer(text) for text in texts]
    together = list(nlp.tokenizer.pipe(iter(texts), batch_size=4))
    assert [d.text for d in together] == texts
    assert words_and_tokens(together) == words_and_tokens(one_at_a_time)
    assert [[t.is_sent_start for t in d] for d in together] == \
        [[t.is_sent_start for t in d] for d in one_at_a_time]


def test_the_model_decides_chunks_training_never_had():
    class Fixed:  # a model that ends a word inside every chunk after its first character
        def labels(self, text):
            return [WORD_END if k + 1 < len(text) and not text[k + 1].isspace() and
                    not text[k].isspace() and (k == 0 or text[k - 1].isspace()) else INSIDE
                    for k in range(len(text))]

    joined = JoinedWords(Fixed(), {"abc": "tt"})
    doc = joined.doc(spacy.blank("xx").vocab, "abc abc xyz\n\nqrs")
    assert [t.text for t in doc] == ["a", "b", "c", "a", "b", "c", "x", "yz", "\n\n", "q", "rs"]
    assert multiword_spans(doc) == [(6, 7), (9, 10)]
    assert [t.is_sent_start for t in doc] == [True] + [None] * 8 + [True, None]


def test_chunk_labels_are_the_most_frequent_analysis():
    vocab = spacy.blank("xx").vocab
    once = Doc(vocab, words=["ab", "c"], spaces=[False, False])
    twice = Doc(vocab, words=["a", "bc"], spaces=[False, False])
    labels = chunk_labels([once, twice, twice])
    assert labels == {"abc": "ti"}
    assert build_doc(vocab, "abc", [TOKEN_END, INSIDE, TOKEN_END], sentences=False)[0].text == "a"


def test_the_model_is_saved_and_loaded(coptic, tmp_path):
    nlp, docs = coptic
    text = ud_text(COPTIC, "cop")
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.tokenizer.joined_words.chunks == nlp.tokenizer.joined_words.chunks
    assert words_and_tokens([loaded(text)]) == words_and_tokens([nlp(text)])


def test_a_tokenizer_saved_before_it_loads_with_the_rules_alone(coptic):
    nlp, _ = coptic
    saved = srsly.msgpack_loads(nlp.tokenizer.to_bytes())
    del saved["joined_words"]
    old = spacy.blank("xx", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    old.tokenizer.from_bytes(srsly.msgpack_dumps(saved))
    assert not old.tokenizer.joined_words
    text = "ⲛⲉⲛⲧⲁⲩⲕⲗⲏⲣⲟⲛⲟⲙⲉⲓ ⲉⲛⲉϩ"
    assert [t.text for t in old(text)] == [t.text for t in old.tokenizer.rules(text)]
