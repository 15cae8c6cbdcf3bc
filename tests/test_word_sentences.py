"""The word-level view of sentence ends in elstm_senter: its features, that it
learns a sentence end no punctuation marks, that a Doc's probabilities do not
depend on the Docs read with it or on its windows' cuts, that it is saved and
loaded with the pipeline (and a pipeline saved without it keeps its old
behaviour), and how its probability and the character model's decide."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc

from spacy_elstm.components.elstm_senter import ELSTMSenter
from spacy_elstm.pytorch.mode import mode_dependent_modules
from spacy_elstm.text import word_sentences
from spacy_elstm.text.segmenter import INSIDE, SENTENCE_END
from spacy_elstm.text.word_sentences import (BLANK_LINE, LINE_BREAK, SPACES, TEXT_END,
                                             WordSentences, word_shape)

SMALL = {"width": 16, "depth": 1, "cell": "lstm", "period": 1, "dropout": 0.0}
FILLER = "we went to the shop and then came home again".split()


def doc_of(vocab, sentences, gap=" "):
    """A gold Doc of lower-case sentences with no punctuation, each sentence's
    words joined by spaces and the sentences by `gap` (a whitespace token
    where it is not a single space)."""
    words, spaces, starts = [], [], []
    for k, sentence in enumerate(sentences):
        for j, word in enumerate(sentence):
            words.append(word)
            starts.append(j == 0)
            last = j == len(sentence) - 1
            spaces.append(not last or (gap == " " and k < len(sentences) - 1))
        if gap != " " and k < len(sentences) - 1:
            words.append(gap)
            spaces.append(False)
            starts.append(False)
    return Doc(vocab, words=words, spaces=spaces, sent_starts=starts)


def sentences(rng, n):
    """n sentences of filler words, each ending with "bye"."""
    return [[FILLER[i] for i in rng.integers(0, len(FILLER), rng.integers(2, 7))] + ["bye"]
            for _ in range(n)]


@pytest.fixture(scope="module")
def trained():
    vocab = spacy.blank("en").vocab
    rng = numpy.random.default_rng(0)
    docs = [doc_of(vocab, sentences(rng, 6)) for _ in range(150)]
    model = WordSentences(SMALL, "test")
    model.train(docs, epochs=6, batch_size=8, learn_rate=0.01, seed=0)
    return model, vocab


def test_features_name_each_words_shape_and_the_whitespace_after_it():
    nlp = spacy.blank("en")
    model = WordSentences(SMALL, "test")
    model.words = {"hello": 2}
    index, feats = model.features(nlp.make_doc("Hello ABC\nx1 9\n\n, end"))
    doc = nlp.make_doc("Hello ABC\nx1 9\n\n, end")
    assert [doc[i].text for i in index] == ["Hello", "ABC", "x1", "9", ",", "end"]
    assert feats[0].tolist() == [2, 1, 1, 1, 1, 1]  # known lower-cased, else unknown
    assert feats[1].tolist() == [word_shape(w) for w in ("Hello", "ABC", "x1", "9", ",", "end")]
    assert len(set(feats[1].tolist())) == 5
    assert feats[2].tolist() == [SPACES, LINE_BREAK, SPACES, BLANK_LINE, SPACES, TEXT_END]


def test_it_learns_a_sentence_end_without_punctuation(trained):
    model, vocab = trained
    rng = numpy.random.default_rng(1)
    doc = doc_of(vocab, sentences(rng, 8))
    index, _ = model.features(doc)
    p = model.end_probabilities([doc])[0]
    ends = numpy.array([doc[i].text == "bye" for i in index])
    assert p[ends].min() > 0.8 and p[~ends].max() < 0.2


def test_a_docs_probabilities_do_not_depend_on_its_batch_or_its_windows(trained, monkeypatch):
    model, vocab = trained
    rng = numpy.random.default_rng(2)
    docs = [doc_of(vocab, sentences(rng, n)) for n in (3, 40, 1, 12)]
    alone = [model.end_probabilities([d])[0] for d in docs]
    together = model.end_probabilities(docs)
    for a, b in zip(alone, together):
        numpy.testing.assert_allclose(a, b, atol=1e-6)
    # short windows with context: every word still gets its probability, close
    # to the one read in one piece where the context covers what it needs
    monkeypatch.setattr(word_sentences, "WINDOW", 17)
    monkeypatch.setattr(word_sentences, "CONTEXT", 8)
    cut = model.end_probabilities(docs)
    for a, b in zip(alone, cut):
        assert a.shape == b.shape
        assert ((a > 0.5) == (b > 0.5)).all()


def test_it_predicts_the_same_twice_with_dropout_on_in_training():
    """Dropout is the package's (`pytorch/mode.py`): off when predicting."""
    vocab = spacy.blank("en").vocab
    rng = numpy.random.default_rng(4)
    model = WordSentences({**SMALL, "dropout": 0.5}, "test")
    model.train([doc_of(vocab, sentences(rng, 4)) for _ in range(10)], epochs=1,
                batch_size=4, learn_rate=0.01, seed=0)
    assert mode_dependent_modules(model.model) == []
    doc = doc_of(vocab, sentences(rng, 5))
    numpy.testing.assert_array_equal(model.end_probabilities([doc])[0],
                                     model.end_probabilities([doc])[0])


def test_an_untrained_model_is_named():
    with pytest.raises(ValueError, match="not trained"):
        WordSentences(SMALL, "elstm_senter (x)").end_probabilities([spacy.blank("en")("a b")])


def test_bad_word_epochs_are_named():
    with pytest.raises(ValueError, match="word_epochs must be an integer >= 1, got 0"):
        WordSentences(SMALL, "test").train([], epochs=0, batch_size=8, learn_rate=0.01, seed=0)


class ChosenSegmenter:
    """Labels SENTENCE_END where `ends` says, and gives each word's last
    character the probability `scores[word]`."""

    window = 300

    def __init__(self, ends, scores):
        self.ends, self.scores = set(ends), scores

    def read(self, texts):
        nlp, out = spacy.blank("en"), []
        for text in texts:
            label = numpy.full(len(text), INSIDE)
            prob = numpy.zeros(len(text), dtype="float32")
            for token in nlp.make_doc(text):
                last = token.idx + len(token.text) - 1
                label[last] = SENTENCE_END if token.text in self.ends else INSIDE
                prob[last] = self.scores.get(token.text, 0.0)
            out.append((label, prob))
        return out


class ChosenWords:
    """A trained word-level model whose probability for each word is `scores[word]`."""

    model = object()

    def __init__(self, scores):
        self.scores = scores

    def reads_chars(self):
        return False

    def end_probabilities(self, docs, char_ends=None, texts=None):
        return [numpy.array([self.scores.get(t.text, 0.0) for t in doc if not t.is_space],
                            dtype="float32") for doc in docs]


def test_the_mean_of_the_two_probabilities_decides():
    nlp = spacy.blank("en")
    chars = {"a": 0.3, "b": 0.6, "c": 0.45, "d": 0.9}
    words = {"a": 0.9, "b": 0.1, "c": 0.6, "d": 0.0}
    segmenter = ChosenSegmenter(ends={"b", "d"}, scores=chars)
    alone = ELSTMSenter("senter", segmenter)
    both = ELSTMSenter("senter", segmenter, words=ChosenWords(words), end_threshold=0.5)
    text = "a b c d e"
    # the characters alone: their labels (after b and d)
    assert [t.i for t in alone(nlp.make_doc(text)) if t.is_sent_start] == [0, 2, 4]
    # both: mean 0.6 after a, 0.35 after b, 0.525 after c, 0.45 after d
    assert [t.i for t in both(nlp.make_doc(text)) if t.is_sent_start] == [0, 1, 3]
    # a lower threshold: after b too (not after d: the word model is sure there)
    both.end_threshold = 0.3
    assert [t.i for t in both(nlp.make_doc(text)) if t.is_sent_start] == [0, 1, 2, 3]


@pytest.mark.parametrize("threshold", [0, 1, 1.5, -0.1])
def test_a_bad_end_threshold_is_named(threshold):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match=r"\[components.elstm_senter\] end_threshold must be a "
                                         r"number between 0 and 1 \(exclusive\), got"):
        nlp.add_pipe("elstm_senter", config={"end_threshold": threshold})
    with pytest.raises(ValueError, match="end_threshold"):  # spaCy's check of the type
        nlp.add_pipe("elstm_senter", config={"end_threshold": "half"})


def test_the_end_threshold_comes_from_the_config():
    nlp = spacy.blank("en")
    senter = nlp.add_pipe("elstm_senter", config={"end_threshold": 0.3})
    assert senter.end_threshold == 0.3
    assert spacy.blank("en").add_pipe("elstm_senter").end_threshold == 0.4


def test_saved_and_loaded_with_the_pipeline_and_old_pipelines_keep_their_splits(
        trained, tmp_path):
    model, _ = trained
    nlp = spacy.blank("en")
    senter = nlp.add_pipe("elstm_senter", config={"width": 16, "depth": 1, "word_width": 16})
    # a character model that has learned something, trained on the same small docs
    rng = numpy.random.default_rng(3)
    docs = [doc_of(nlp.vocab, sentences(rng, 6)) for _ in range(20)]
    senter.segmenter.train(docs, epochs=1, batch_size=8, learn_rate=0.01, seed=0)
    senter.words.from_bytes(model.to_bytes())
    text = "we went home bye the shop bye and then came home bye"
    expected = [t.is_sent_start for t in nlp(text)]
    nlp.to_disk(tmp_path / "with")
    assert (tmp_path / "with" / "elstm_senter" / "words.bin").exists()
    loaded = spacy.load(tmp_path / "with")
    assert [t.is_sent_start for t in loaded(text)] == expected
    again = spacy.blank("en")
    again.add_pipe("elstm_senter", config={"width": 16, "depth": 1, "word_width": 16})
    again.get_pipe("elstm_senter").from_bytes(senter.to_bytes())
    assert [t.is_sent_start for t in again(text)] == expected
    # saved before the word-level model existed: only segmenter.bin, and the
    # character model's labels decide, as they did
    (tmp_path / "with" / "elstm_senter" / "words.bin").unlink()
    old = spacy.load(tmp_path / "with")
    assert old.get_pipe("elstm_senter").words.model is None
    senter.words = None
    assert [t.is_sent_start for t in old(text)] == [t.is_sent_start for t in nlp(text)]


def test_a_pipeline_saved_before_word_depth_keeps_its_deeper_word_model(tmp_path):
    nlp = spacy.blank("en")
    senter = nlp.add_pipe("elstm_senter", config={"width": 16, "depth": 2, "word_width": 16,
                                                  "word_depth": 2})
    assert len(senter.words._new_model().encoder.layers) == 2
    rng = numpy.random.default_rng(3)
    docs = [doc_of(nlp.vocab, sentences(rng, 6)) for _ in range(10)]
    senter.segmenter.train(docs, epochs=1, batch_size=8, learn_rate=0.01, seed=0)
    senter.words.train(docs, epochs=1, batch_size=8, learn_rate=0.01, seed=0)
    text = "we went home bye the shop bye and then came home bye"
    expected = [t.is_sent_start for t in nlp(text)]
    nlp.to_disk(tmp_path / "p")
    config = (tmp_path / "p" / "config.cfg").read_text()
    assert "word_depth = 2" in config  # a config from before the setting had none
    (tmp_path / "p" / "config.cfg").write_text(config.replace("word_depth = 2\n", ""))
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe("elstm_senter").words.settings["depth"] == 2
    assert [t.is_sent_start for t in loaded(text)] == expected


@pytest.mark.parametrize("key, value, message", [
    ("word_depth", 0, "word_depth must be an integer >= 1, got 0"),
    ("word_depth", 1.5, "word_depth"),
])
def test_a_bad_word_depth_is_named(key, value, message):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match=message):
        nlp.add_pipe("elstm_senter", config={key: value})


@pytest.mark.parametrize("value, message", [
    (3, "word_width must be even"),
    (-2, "word_width must be an integer >= 0"),
    (True, "word_width"),  # spaCy names it: True is not an int
])
def test_a_bad_word_width_is_named(value, message):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match=message):
        nlp.add_pipe("elstm_senter", config={"word_width": value})


def test_hostile_text_gets_sentences_with_the_word_model(trained):
    """Empty text, whitespace alone, CRLF, control characters, emoji, one word of
    200,000 characters and 30,000 words without punctuation: every Doc comes
    back whole, its first word starts a sentence, and no sentence is longer
    than the longest."""
    model, _ = trained
    nlp = spacy.blank("en")
    senter = nlp.add_pipe("elstm_senter", config={"width": 16, "depth": 1, "word_width": 16,
                                                  "max_sentence_words": 50})
    rng = numpy.random.default_rng(5)
    senter.segmenter.train([doc_of(nlp.vocab, sentences(rng, 6)) for _ in range(10)],
                           epochs=1, batch_size=8, learn_rate=0.01, seed=0)
    senter.words.from_bytes(model.to_bytes())
    texts = ["", "   \n\n  ", "we went\r\nhome bye\r\n\r\nthe shop", "a\x00b \x07 c\u200bd",
             "🙂 bye 🙂🙂 home", "x" * 200_000, " ".join(FILLER[i % len(FILLER)]
                                                     for i in range(30_000))]
    for text, doc in zip(texts, nlp.pipe(texts)):
        assert doc.text == text
        words = [t for t in doc if not t.is_space]
        if words:
            assert words[0].is_sent_start
            assert max(len([t for t in s if not t.is_space]) for s in doc.sents) <= 50


def features_token_by_token(model, doc):
    """The features as the rule reads them, one token at a time."""
    text = doc.text
    words = [t for t in doc if not t.text.isspace()]
    found = numpy.zeros((3, len(words)), dtype="int64")
    for k, token in enumerate(words):
        found[0, k] = model.words.get(token.text.lower(), word_sentences.UNKNOWN)
        found[1, k] = word_shape(token.text)
        found[2, k] = (word_sentences.gap(text[token.idx + len(token.text):words[k + 1].idx])
                       if k + 1 < len(words) else TEXT_END)
    return [t.i for t in words], found


def test_features_of_many_docs_are_each_doc_s_token_by_token():
    from spacy.vocab import Vocab
    from spacy_elstm.text.training_text import varied_docs
    from spacy_elstm.treebanks.conllu_reader import conllu_to_docs
    from pathlib import Path
    sample = Path(__file__).resolve().parent.parent / "assets" / "ud-ewt-sample" / "train.conllu"
    model = WordSentences(SMALL, "test")
    model.words = {"the": 2, "hello": 3, "don": 4}
    nlp = spacy.blank("en")
    texts = ["", " ", "\n\n", "Hello  ABC\nx1 9\n\n, end", "a \r\n\r\n b\tc",
             "😀 The\u2028end .", "  lead and trail  ", "x"]
    made = [nlp.make_doc(t) for t in texts]
    gold = varied_docs(conllu_to_docs(sample, 10, Vocab()), 0)  # gold Docs of a bare vocab
    for docs in (made, gold):
        for doc, (index, found) in zip(docs, model.features_of(docs), strict=True):
            expected_index, expected = features_token_by_token(model, doc)
            assert index == expected_index
            assert word_sentences.word_index(doc) == index
            assert found.tolist() == expected.tolist(), doc.text[:60]


class RecordingSegmenter(ChosenSegmenter):
    """ChosenSegmenter, keeping the texts it was asked to read."""

    def __init__(self, ends, scores):
        super().__init__(ends, scores)
        self.texts = []

    def read(self, texts):
        self.texts += list(texts)
        return super().read(texts)


def test_the_characters_are_read_only_where_the_words_are_unsure(monkeypatch):
    from spacy_elstm.components import elstm_senter

    nlp = spacy.blank("en")
    filler = " ".join(["word"] * 30)
    text = f"{filler} a b {filler}"
    # the characters would end a sentence after every "word" (mean 0.5025 with the words')
    chars = {"a": 0.9, "b": 0.1, "word": 0.99}
    words = {"a": 0.6, "b": 0.3, "word": 0.015}  # sure of every "word", unsure of a and b
    segmenter = RecordingSegmenter(ends=set(), scores=chars)
    senter = ELSTMSenter("senter", segmenter, words=ChosenWords(words))
    monkeypatch.setattr(elstm_senter, "CHAR_CONTEXT", (12, 6))
    doc = senter(nlp.make_doc(text))
    # one piece around "a b", cut at whitespace; every "word" decided by the words alone
    (piece,) = segmenter.texts
    assert " a b " in f" {piece} " and len(piece) <= 12 + 6 + 2 * len("word ") + 3
    a = text.index(" a ") // 5 + 1  # the token index of "a"
    assert [t.i for t in doc if t.is_sent_start] == [0, a + 1]  # mean 0.75 after a only
    monkeypatch.setattr(elstm_senter, "WORD_SURE", 0.0)  # everything read, as before
    segmenter.texts = []
    doc = senter(nlp.make_doc(text))
    assert segmenter.texts == [text]
    assert len([t for t in doc if t.is_sent_start]) > 30  # a sentence after every "word"


@pytest.mark.parametrize("positions,expected", [
    ([10], [(4, 18)]),            # "two three four": widened to the whitespace around
    ([10, 14], [(4, 23)]),        # overlapping spans merged
    ([0], [(0, 7)]),              # the text's start
    ([38], [(28, 39)]),           # the text's end
])
def test_spans_around_positions_are_cut_at_whitespace(positions, expected):
    from spacy_elstm.components.elstm_senter import spans_around

    text = "one two three four five six seven eight"
    assert len(text) == 39
    assert spans_around(text, numpy.array(positions), 5, 5) == expected


def spans_one_by_one(text, positions, before, after):
    """spans_around's rule, position by position with str.find."""
    spans = []
    for p in positions:
        a = max(0, p - before)
        a = max(text.rfind(" ", 0, a), text.rfind("\n", 0, a)) + 1 if a else 0
        b = min(len(text), p + after + 1)
        found = [k for k in (text.find(" ", b), text.find("\n", b)) if k >= 0]
        b = min(found) if found and b < len(text) else len(text)
        if spans and a <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], b))
        else:
            spans.append((a, b))
    return spans


def test_spans_around_are_those_of_the_rule_one_by_one():
    from spacy_elstm.components.elstm_senter import spans_around

    rng = numpy.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 120))
        text = "".join(rng.choice(list("ab \n"), n, p=[0.45, 0.35, 0.15, 0.05]))
        positions = numpy.unique(rng.integers(0, n, int(rng.integers(1, 6))))
        before, after = int(rng.integers(0, 30)), int(rng.integers(0, 30))
        assert spans_around(text, positions, before, after) == \
            spans_one_by_one(text, positions.tolist(), before, after)


def test_a_word_model_reading_the_characters_trains_and_reloads(tmp_path):
    """word_char_bins: `initialize` gives the word model the character model's
    probabilities to learn from, and `pipe` gives them again when it reads."""
    from spacy.training import Example
    nlp = spacy.blank("en")
    nlp.add_pipe("elstm_senter", config={"char_width": 8, "width": 16, "depth": 1,
                                         "word_width": 16, "word_char_bins": 4})
    words = ["Hi", "there", ".", "Bye", "now", "."]
    docs = [Doc(nlp.vocab, words=words, spaces=[True, False, True, True, False, False],
                sent_starts=[True, False, False, True, False, False]) for _ in range(20)]
    senter = nlp.get_pipe("elstm_senter")
    senter.initialize(lambda: [Example(d, d) for d in docs], nlp=nlp, epochs=1, word_epochs=1)
    assert senter.words.reads_chars() and senter.reads_words()
    text = "Hi there. Bye now."
    sentences = [s.text for s in nlp(text).sents]
    nlp.to_disk(tmp_path / "nlp")
    assert [s.text for s in spacy.load(tmp_path / "nlp")(text).sents] == sentences


def test_a_saved_pipeline_loads_with_the_default_threshold_or_the_one_asked_for(tmp_path):
    """A pipeline saved before `end_threshold` existed has none in its config and
    takes the default; `spacy.load(..., config=...)` sets another."""
    from spacy.training import Example
    nlp = spacy.blank("en")
    nlp.add_pipe("elstm_senter", config={"char_width": 8, "width": 16, "depth": 1,
                                         "word_width": 16})
    words = ["Hi", "there", ".", "Bye", "now", "."]
    docs = [Doc(nlp.vocab, words=words, spaces=[True, False, True, True, False, False],
                sent_starts=[True, False, False, True, False, False]) for _ in range(10)]
    nlp.get_pipe("elstm_senter").initialize(lambda: [Example(d, d) for d in docs], nlp=nlp,
                                            epochs=1, word_epochs=1)
    nlp.to_disk(tmp_path / "nlp")
    config = (tmp_path / "nlp" / "config.cfg").read_text(encoding="utf8")
    (tmp_path / "nlp" / "config.cfg").write_text(
        "\n".join(line for line in config.split("\n") if not line.startswith("end_threshold")),
        encoding="utf8")
    assert spacy.load(tmp_path / "nlp").get_pipe("elstm_senter").end_threshold == 0.4
    asked = spacy.load(tmp_path / "nlp",
                       config={"components": {"elstm_senter": {"end_threshold": 0.5}}})
    assert asked.get_pipe("elstm_senter").end_threshold == 0.5


def rare_words(rng, n):
    """n sentences of words each seen once, whose endings alone say where a
    sentence ends: the last word's ending is "ldi", the others' never."""
    letters = list("abcefghkmnoprstuvwyz")

    def stem():
        return "".join(rng.choice(letters, 6))
    return [[stem() + str(rng.choice(["lar", "ning", "da"])) for _ in range(rng.integers(2, 7))]
            + [stem() + "ldi"] for _ in range(n)]


def found_ends(model, docs):
    """Sentence F1 of the word model's ends (probability above one half)."""
    right = found = expected = 0
    for doc, p in zip(docs, model.end_probabilities(docs)):
        gold = word_sentences.gold_ends(doc, word_sentences.word_index(doc)) > 0.5
        right, found, expected = right + (gold & (p > 0.5)).sum(), found + (p > 0.5).sum(), \
            expected + gold.sum()
    return 2 * right / (found + expected)


def test_word_endings_find_the_ends_of_sentences_of_rare_words(tmp_path):
    """suffix_chars: where every word is rare (all read as unknown), a word's
    ending is what tells a sentence end; without it the model cannot tell. The
    table of endings is saved and loaded with the weights."""
    vocab = spacy.blank("xx").vocab
    rng = numpy.random.default_rng(0)
    train = [doc_of(vocab, rare_words(rng, 6)) for _ in range(150)]
    test = [doc_of(vocab, rare_words(rng, 6)) for _ in range(20)]
    scores = {}
    for suffix_chars in (0, 3):
        model = WordSentences({**SMALL, "suffix_chars": suffix_chars}, "test")
        model.train(train, epochs=6, batch_size=8, learn_rate=0.01, seed=0)
        scores[suffix_chars] = found_ends(model, test)
    assert model.reads_suffixes() and model.suffixes["ldi"] > 1 and model.learned["suffixes"] >= 4
    assert scores[3] > 0.95 and scores[0] < 0.6, scores
    loaded = WordSentences(SMALL, "test").from_bytes(model.to_bytes())
    assert loaded.reads_suffixes() and loaded.suffixes == model.suffixes
    for a, b in zip(loaded.end_probabilities(test), model.end_probabilities(test)):
        numpy.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("value, message", [
    (-1, r"word_suffix_chars must be an integer >= 0 \(0: none\), got -1"),
    (1.5, "word_suffix_chars"),  # spaCy names it: 1.5 is not an int
])
def test_a_bad_word_suffix_chars_is_named(value, message):
    with pytest.raises(ValueError, match=message):
        spacy.blank("en").add_pipe("elstm_senter", config={"word_suffix_chars": value})


def test_word_models_of_several_seeds_average_and_reload(trained):
    """word_models: the first model is the one a single model would be (same
    seed, same data), the others differ by their seeds, a word's probability
    is the mean of all, and they are saved and loaded with it; one model saves
    as before (no other seeds in its bytes)."""
    import srsly
    import torch
    one, vocab = trained
    rng = numpy.random.default_rng(1)
    docs = [doc_of(vocab, sentences(rng, 6)) for _ in range(150)]
    single = WordSentences(SMALL, "test")
    single.train(docs, epochs=2, batch_size=8, learn_rate=0.01, seed=0)
    three = WordSentences(SMALL, "test", models=3)
    three.train(docs, epochs=2, batch_size=8, learn_rate=0.01, seed=0)
    assert len(three.other_seeds) == 2 and len(three.learned["other_seeds"]) == 2
    for a, b in zip(single.model.state_dict().values(), three.model.state_dict().values()):
        assert torch.equal(a, b)
    assert not torch.equal(three.model.output.weight, three.other_seeds[0].output.weight)
    test = [doc_of(vocab, sentences(rng, 4)) for _ in range(5)]
    alone = {}
    for k, model in enumerate([three.model, *three.other_seeds]):
        copy = WordSentences(SMALL, "test")
        copy.words, copy.model = three.words, model
        alone[k] = copy.end_probabilities(test)
    for i, found in enumerate(three.end_probabilities(test)):
        numpy.testing.assert_allclose(found, sum(alone[k][i] for k in alone) / 3, rtol=1e-6)
    loaded = WordSentences(SMALL, "test").from_bytes(three.to_bytes())
    assert loaded.models == 3
    for a, b in zip(loaded.end_probabilities(test), three.end_probabilities(test)):
        numpy.testing.assert_array_equal(a, b)
    assert "other_seeds" not in srsly.msgpack_loads(single.to_bytes())
    assert WordSentences(SMALL, "test").from_bytes(single.to_bytes()).other_seeds == []


@pytest.mark.parametrize("key", ["word_models", "char_models"])
@pytest.mark.parametrize("value, message", [
    (0, r"\[components.elstm_senter\] {key} must be an integer >= 1, got 0"),
    (2.0, "{key}"),  # spaCy names it: 2.0 is not an int
])
def test_a_bad_number_of_models_is_named(key, value, message):
    with pytest.raises(ValueError, match=message.format(key=key)):
        spacy.blank("en").add_pipe("elstm_senter", config={key: value})
