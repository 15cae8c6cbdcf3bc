"""elstm_senter's sentence starts: set in one array operation, whitespace and
blank lines as the paragraph rule says, and no sentence longer than its
longest (split at the most probable boundary). The segmenter is replaced by one
whose labels and probabilities the test chooses."""
from pathlib import Path

import numpy
import pytest
import spacy

from spacy_elstm.components.elstm_senter import ELSTMSenter, split_long_sentences
from spacy_elstm.text.segmenter import INSIDE, SENTENCE_END

SAMPLE_TRAIN = Path(__file__).resolve().parent.parent / "assets" / "ud-ewt-sample" / "train.conllu"


class ChosenSegmenter:
    """Ends a sentence after every word in `ends` (by text), and gives each
    word's last character the probability `scores.get(word, 0.0)`."""

    window = 300

    def __init__(self, ends=(), scores=None):
        self.ends, self.scores = set(ends), scores or {}

    def read(self, texts):
        out = []
        nlp = spacy.blank("en")
        for text in texts:
            label = [INSIDE] * len(text)
            prob = numpy.zeros(len(text), dtype="float32")
            for token in nlp.make_doc(text):
                last = token.idx + len(token.text) - 1
                if token.text in self.ends:
                    label[last] = SENTENCE_END
                prob[last] = self.scores.get(token.text, 0.0)
            out.append((numpy.array(label), prob))  # as Segmenter.read gives them
        return out


def starts(doc):
    return [t.i for t in doc if t.is_sent_start]


def test_starts_follow_the_segmenter_and_blank_lines():
    nlp = spacy.blank("en")
    senter = ELSTMSenter("senter", ChosenSegmenter(ends={"b."}), max_sentence_words=0)
    doc = senter(nlp.make_doc("a b. c d\n\ne f\ng"))
    # words: a(0) b.(1) c(2) d(3) \n\n(4) e(5) f(6) \n(7) g(8)
    assert starts(doc) == [0, 2, 5]
    assert all(t.is_sent_start is not None for t in doc)


def test_leading_whitespace_and_every_batch_give_the_same_starts():
    nlp = spacy.blank("en")
    senter = ELSTMSenter("senter", ChosenSegmenter(ends={"x."}), max_sentence_words=0)
    texts = ["  x. y z", "x. x. y", "y"]  # "  " is a whitespace token
    alone = [starts(senter(nlp.make_doc(t))) for t in texts]
    piped = [starts(d) for d in senter.pipe(nlp.make_doc(t) for t in texts)]
    assert alone == piped == [[0, 1, 2], [0, 1, 2], [0]]


def test_a_sentence_past_the_longest_is_cut_at_its_most_probable_boundary():
    nlp = spacy.blank("en")
    words = [f"w{i}" for i in range(25)]
    scores = {"w6": 0.4, "w3": 0.3, "w13": 0.9, "w17": 0.2}
    senter = ELSTMSenter("senter", ChosenSegmenter(scores=scores), max_sentence_words=10)
    doc = senter(nlp.make_doc(" ".join(words)))
    # the best end among w0..w9 is w6 (0.4); then among w7..w16, w13 (0.9); then
    # among w14..w23 (11 words were left), w17
    assert starts(doc) == [0, 7, 14, 18]
    lengths = numpy.diff(starts(doc) + [len(doc)])
    assert lengths.max() <= 10
    unlimited = ELSTMSenter("senter", ChosenSegmenter(scores=scores), max_sentence_words=0)
    assert starts(unlimited(nlp.make_doc(" ".join(words)))) == [0]


def test_split_long_sentences_on_arrays():
    starts_in = numpy.array([True] + [False] * 9 + [True, False])
    boundary = numpy.array([1, 0, .5, 0, .6, 0, 0, 0, 0, 0, 1, 0], dtype="f")
    got = split_long_sentences(starts_in, boundary, 4)
    assert numpy.flatnonzero(got).tolist() == [0, 4, 8, 10]
    assert split_long_sentences(starts_in, boundary, 100).tolist() == starts_in.tolist()


def test_a_bad_longest_sentence_is_named():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="max_sentence_words must be an integer >= 0"):
        nlp.add_pipe("elstm_senter", config={"max_sentence_words": -3})


def test_docs_are_read_in_batches_of_about_the_characters_of_one_call():
    from spacy_elstm.components.elstm_senter import by_characters

    nlp = spacy.blank("en")
    docs = [nlp.make_doc(t) for t in ["abc def", "", "ghij", "k l m n o p", "q"]]
    batches = list(by_characters(iter(docs), 10))
    assert [[d.text for d in b] for b in batches] == [["abc def", "", "ghij"],
                                                      ["k l m n o p"], ["q"]]


def test_a_doc_without_punctuation_goes_to_the_models_of_its_own():
    nlp = spacy.blank("en")
    bare = ELSTMSenter("senter", ChosenSegmenter(ends={"c"}), max_sentence_words=0)
    senter = ELSTMSenter("senter", ChosenSegmenter(ends={"!"}), max_sentence_words=0,
                         unpunctuated=bare)
    texts = ["a b ! c d", "a b c d", "a b c d e f c g"]
    assert [starts(d) for d in senter.pipe(nlp.make_doc(t) for t in texts)] == [
        [0, 3], [0], [0]]  # untrained (a pipeline saved before them): the first models read all
    senter.unpunctuated_learned = True
    assert [starts(d) for d in senter.pipe(nlp.make_doc(t) for t in texts)] == [
        [0, 3], [0, 3], [0, 3, 7]]
    from spacy_elstm.text.punctuation import SENTENCE_MARKS_RULE
    assert senter.decisions() == {"reads_words": False, "unpunctuated": True,
                                  "punctuated_by": SENTENCE_MARKS_RULE}


def test_what_counts_as_text_without_punctuation():
    from spacy_elstm.text.punctuation import has_no_punctuation

    nlp = spacy.blank("en")
    found = {t: has_no_punctuation(nlp.make_doc(t)) for t in [
        "hello there how are you", "Mr. Smith went home", "I'm fine", "a , b", "wait...",
        "really ?!", "« oui »", "a long - term plan", "up 5 %", "hi :)", "a -- b", "a — b",
        "", "  \n"]}
    assert found == {"hello there how are you": True, "Mr. Smith went home": True,
                     "I'm fine": True, "a , b": False, "wait...": False, "really ?!": False,
                     "« oui »": True, "a long - term plan": True, "up 5 %": True, "hi :)": True,
                     "a -- b": False, "a — b": False, "": False, "  \n": False}
    from spacy.tokens import Doc
    # a rule of underscores, one word as the project's tokenizer keeps it, sets off a signature
    assert not has_no_punctuation(Doc(nlp.vocab, words=["Tom", "\n", "____"],
                                      spaces=[False, False, False]))


def tiny_senter(min_epoch_sentences=0, epochs=1, **config):
    from spacy.training import Example

    from spacy_elstm.treebanks.conllu_reader import conllu_to_docs

    nlp = spacy.blank("en")
    nlp.add_pipe("elstm_senter", config={"char_width": 8, "width": 16, "depth": 1,
                                         "word_width": 16, **config})
    docs = conllu_to_docs(SAMPLE_TRAIN, 10, nlp.vocab)
    nlp.get_pipe("elstm_senter").initialize(lambda: [Example(d, d) for d in docs], nlp=nlp,
                                            epochs=epochs, word_epochs=epochs,
                                            min_epoch_sentences=min_epoch_sentences)
    return nlp


TEXTS = ["so we went home then we slept it was late", "We went home. Then we slept."]


def test_the_second_models_are_saved_and_load_back(tmp_path):
    nlp = tiny_senter()
    senter = nlp.get_pipe("elstm_senter")
    assert senter.reads_unpunctuated() and senter.decisions()["unpunctuated"]
    want = [starts(d) for d in nlp.pipe(TEXTS)]
    nlp.to_disk(tmp_path / "p")
    assert (tmp_path / "p" / "elstm_senter" / "unpunctuated" / "segmenter.bin").is_file()
    again = spacy.load(tmp_path / "p")
    assert again.get_pipe("elstm_senter").reads_unpunctuated()
    assert [starts(d) for d in again.pipe(TEXTS)] == want
    fresh = spacy.blank("en")
    copy = fresh.add_pipe("elstm_senter", config={"char_width": 8, "width": 16, "depth": 1,
                                                  "word_width": 16})
    copy.from_bytes(senter.to_bytes())
    assert copy.reads_unpunctuated()
    assert [starts(copy(fresh.make_doc(t))) for t in TEXTS] == want
    bare = senter.unpunctuated  # the routing is real: the second models read the first text
    assert starts(nlp(TEXTS[0])) == starts(bare(nlp.make_doc(TEXTS[0])))


def test_a_senter_without_the_second_models(tmp_path):
    nlp = tiny_senter(unpunctuated=False)
    senter = nlp.get_pipe("elstm_senter")
    assert senter.unpunctuated is None and "unpunctuated" not in senter.decisions()
    nlp.to_disk(tmp_path / "p")
    assert not (tmp_path / "p" / "elstm_senter" / "unpunctuated").exists()
    with pytest.raises(ValueError, match=r"elstm_senter -> unpunctuated\s+at root: 'yes' is "
                                         r"not <class 'bool'>"):
        spacy.blank("en").add_pipe("elstm_senter", config={"unpunctuated": "yes"})


def test_a_small_treebank_is_passed_over_more_often_in_each_epoch():
    from spacy_elstm.text.learning import epoch_repeats, passes

    assert epoch_repeats(12544, 12000) == 1  # EWT's size: once, as before
    assert epoch_repeats(1656, 12000) == 7 and epoch_repeats(3435, 12000) == 3
    assert epoch_repeats(50, 0) == 1
    # a treebank of more than 20,000 sentences: fewer passes in all, about
    # 20,000 sentences' worth an epoch (Czech-PDT's 68,495: 12 epochs, 4 passes)
    assert epoch_repeats(20000, 12000) == 1
    assert epoch_repeats(68495, 12000) == 0.292
    assert (passes(12, epoch_repeats(68495, 12000)), passes(8, epoch_repeats(68495, 12000))) \
        == (4, 2)
    assert passes(1, 0.292) == 1 and passes(12, 7) == 84
    with pytest.raises(ValueError, match="min_epoch_sentences must be an integer >= 0, got -1"):
        epoch_repeats(50, -1)
    from spacy_elstm.treebanks.conllu_reader import conllu_to_docs

    sentences = sum(1 for d in conllu_to_docs(SAMPLE_TRAIN, 10, spacy.blank("en").vocab)
                    for _ in d.sents)
    senter = tiny_senter(min_epoch_sentences=3 * sentences).get_pipe("elstm_senter")
    for models in (senter, senter.unpunctuated):  # both pairs, both models: 3 passes an epoch
        assert models.segmenter.learned["epoch_repeats"] == 3
        assert models.segmenter.learned["epochs"] == 3 and models.words.learned["epochs"] == 3
    once = tiny_senter().get_pipe("elstm_senter")
    assert "epoch_repeats" not in once.segmenter.learned
    assert once.segmenter.learned["epochs"] == 1 and once.words.learned["epochs"] == 1


def test_a_large_treebank_is_passed_over_fewer_times(monkeypatch):
    """Above MAX_EPOCH_SENTENCES (here half the sample's sentences), an epoch is
    that share of a pass: two epochs of it are one pass, for both models."""
    from spacy_elstm.text import learning
    from spacy_elstm.treebanks.conllu_reader import conllu_to_docs

    sentences = sum(1 for d in conllu_to_docs(SAMPLE_TRAIN, 10, spacy.blank("en").vocab)
                    for _ in d.sents)
    monkeypatch.setattr(learning, "MAX_EPOCH_SENTENCES", sentences // 2)
    senter = tiny_senter(min_epoch_sentences=12000, epochs=2).get_pipe("elstm_senter")
    assert senter.segmenter.learned["epoch_repeats"] == 0.5
    assert senter.segmenter.learned["epochs"] == 1 and senter.words.learned["epochs"] == 1


def test_the_end_threshold_is_chosen_on_held_out_text_and_saved(tmp_path):
    from spacy.tokens import DocBin

    from spacy_elstm.treebanks.conllu_reader import conllu_to_docs

    nlp = tiny_senter()
    senter = nlp.get_pipe("elstm_senter")
    assert senter.chosen_threshold is None and senter.end_threshold == 0.4  # the config's
    scores = {0.3: 0.5, 0.5: 0.7, 0.6: 0.7}  # a score that prefers 0.5 (the first of equals)
    assert senter.choose_threshold(lambda: scores[senter.end_threshold], [0.3, 0.5, 0.6]) == 0.5
    assert senter.segmenter.learned["end_thresholds"] == {"0.3": 0.5, "0.5": 0.7, "0.6": 0.7}
    nlp.to_disk(tmp_path / "p")
    assert spacy.load(tmp_path / "p").get_pipe("elstm_senter").end_threshold == 0.5
    copy = spacy.blank("en").add_pipe("elstm_senter", config={
        "char_width": 8, "width": 16, "depth": 1, "word_width": 16})
    assert copy.from_bytes(senter.to_bytes()).end_threshold == 0.5
    dev = tmp_path / "dev.spacy"  # held-out text: the sample itself, through the tokenizer
    DocBin(docs=conllu_to_docs(SAMPLE_TRAIN, 10, nlp.vocab), store_user_data=True).to_disk(dev)
    chosen = tiny_senter().get_pipe("elstm_senter")
    chosen.initialize(lambda: [], nlp=nlp, epochs=1, word_epochs=1,
                      treebank=str(dev), threshold_dev=dev, thresholds=[0.1, 0.4, 0.9])
    found = chosen.segmenter.learned["end_thresholds"]
    assert set(found) == {"0.1", "0.4", "0.9"}
    assert chosen.end_threshold == max([0.1, 0.4, 0.9], key=lambda t: found[str(t)])
    with pytest.raises(ValueError, match=r"thresholds must be numbers between 0 and 1 "
                                         r"\(exclusive\), got 1.5"):
        chosen.initialize(lambda: [], nlp=nlp, threshold_dev=dev, thresholds=[0.2, 1.5])


def test_models_of_several_seeds_are_saved_and_load_back_with_the_pipeline(tmp_path):
    """char_models and word_models: both pairs of models (with punctuation and
    without) have that many, the pipeline saves and loads them all, and splits
    as it did; what the senter decides by names them."""
    nlp = tiny_senter(char_models=2, word_models=3)
    senter = nlp.get_pipe("elstm_senter")
    for pair in (senter, senter.unpunctuated):
        assert (len(pair.segmenter.other_seeds), len(pair.words.other_seeds)) == (1, 2)
    assert senter.decisions()["char_models"] == 2 and senter.decisions()["word_models"] == 3
    want = [starts(d) for d in nlp.pipe(TEXTS)]
    nlp.to_disk(tmp_path / "p")
    again = spacy.load(tmp_path / "p")
    loaded = again.get_pipe("elstm_senter")
    assert (loaded.segmenter.models, loaded.words.models) == (2, 3)
    assert (loaded.unpunctuated.segmenter.models, loaded.unpunctuated.words.models) == (2, 3)
    assert [starts(d) for d in again.pipe(TEXTS)] == want
