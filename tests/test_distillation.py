"""Senters taught by senters (`text/distillation.py`): the targets are the
teachers' mean mixed with the gold labels by the weight, a student learns them
in place of the gold labels (a teacher that never ends a sentence makes a
student that never does, whatever the gold says), and bad teachers are named."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_elstm.components.elstm_senter import ELSTMSenter
from spacy_elstm.text.distillation import Teachers
from spacy_elstm.text.segmenter import (INSIDE, LABELS, SENTENCE_END, TOKEN_END, Segmenter,
                                        gold_labels)
from spacy_elstm.text.word_sentences import WordSentences

SMALL = {"char_width": 8, "width": 16, "depth": 1, "cell": "lstm", "period": 1, "dropout": 0.0}
WORDS = {"width": 16, "depth": 1, "cell": "lstm", "period": 1, "dropout": 0.0}


class FixedSegmenter:
    """Gives every character the same probabilities."""

    def __init__(self, row):
        self.row = numpy.array(row, dtype="float32")

    def probabilities(self, texts):
        return [numpy.tile(self.row, (len(text), 1)) for text in texts]


class FixedWords:
    """A trained word-level model: every word the same probability."""

    model = object()

    def __init__(self, p):
        self.p = p

    def reads_chars(self):
        return False

    def end_probabilities(self, docs, char_ends=None, texts=None):
        return [numpy.full(sum(not t.is_space for t in doc), self.p, dtype="float32")
                for doc in docs]


def teacher(row, p):
    return ELSTMSenter("senter", FixedSegmenter(row), words=FixedWords(p))


def gold_doc(vocab):
    words = ["Hi", "there", ".", "Bye", "now", "."]
    return Doc(vocab, words=words, spaces=[True, False, True, True, False, False],
               sent_starts=[True, False, False, True, False, False])


def test_the_targets_are_the_teachers_mean_mixed_with_the_gold_labels():
    doc = gold_doc(spacy.blank("en").vocab)
    first, second = [0.7, 0.1, 0.1, 0.1], [0.1, 0.1, 0.1, 0.7]
    teachers = Teachers([teacher(first, 0.2), teacher(second, 0.6)], 0.5, "test")
    chars = teachers.characters([doc])[0]
    gold = numpy.eye(len(LABELS))[gold_labels(doc)]
    assert chars.shape == (len(doc.text), len(LABELS))
    assert numpy.allclose(chars, 0.5 * numpy.array([0.4, 0.1, 0.1, 0.4]) + 0.5 * gold)
    assert numpy.allclose(chars.sum(-1), 1.0)
    words = teachers.words([doc])[0]
    # the gold: a sentence ends after the first "." and at the end
    assert numpy.allclose(words, 0.5 * 0.4 + 0.5 * numpy.array([0, 0, 1, 0, 0, 1]))


@pytest.mark.parametrize("weight", [0.0, 1.0])
def test_the_weight_chooses_the_gold_labels_or_the_teachers(weight):
    doc = gold_doc(spacy.blank("en").vocab)
    teachers = Teachers([teacher([0.25] * 4, 0.3)], weight, "test")
    expected = 0.25 if weight else numpy.eye(len(LABELS))[gold_labels(doc)]
    assert numpy.allclose(teachers.characters([doc])[0], expected)


def test_a_student_learns_its_teachers_not_the_gold_labels():
    vocab = spacy.blank("en").vocab
    docs = [gold_doc(vocab) for _ in range(40)]
    # the teacher ends a token after each word but never a sentence
    never = numpy.zeros(len(LABELS))
    never[[INSIDE, TOKEN_END]] = 0.5
    taught = Teachers([teacher(never, 0.0)], 1.0, "test")
    student, gold = Segmenter(SMALL, 300, "test"), Segmenter(SMALL, 300, "test")
    student.train(docs, epochs=15, batch_size=8, learn_rate=0.02, seed=0,
                  targets=taught.characters)
    gold.train(docs, epochs=15, batch_size=8, learn_rate=0.02, seed=0)
    text = docs[0].text
    assert SENTENCE_END in gold.labels(text)
    assert SENTENCE_END not in student.labels(text)
    words = WordSentences(WORDS, "test")
    words.train(docs, epochs=15, batch_size=8, learn_rate=0.02, seed=0, targets=taught.words)
    assert words.end_probabilities(docs[:1])[0].max() < 0.2


def test_bad_teachers_are_named(tmp_path):
    with pytest.raises(ValueError, match="at least one teacher"):
        Teachers([], 1.0, "test")
    with pytest.raises(ValueError, match="teacher_weight must be between 0.0 and 1.0, got 1.5"):
        Teachers([teacher([0.25] * 4, 0.5)], 1.5, "test")
    without_words = ELSTMSenter("senter", FixedSegmenter([0.25] * 4))
    with pytest.raises(ValueError, match="teacher 2 has no trained word-level model"):
        Teachers([teacher([0.25] * 4, 0.5), without_words], 1.0, "test")
    nlp = spacy.blank("en")
    nlp.add_pipe("elstm_senter")
    blank = spacy.blank("en")
    blank.to_disk(tmp_path / "blank")
    for path, message in ((tmp_path / "missing", "is not a directory"),
                          (tmp_path / "blank", "has no elstm_senter")):
        with pytest.raises(ValueError, match=message):
            nlp.get_pipe("elstm_senter").initialize(lambda: [], nlp=nlp, teachers=[path])


def test_a_pipeline_learns_from_saved_teachers_and_keeps_their_lessons(tmp_path):
    def pipeline():
        nlp = spacy.blank("en")
        nlp.add_pipe("elstm_senter", config={"char_width": 8, "width": 16, "depth": 1,
                                             "word_width": 16})
        return nlp

    teacher_nlp = pipeline()
    docs = [gold_doc(teacher_nlp.vocab) for _ in range(20)]
    examples = lambda: [Example(d, d) for d in docs]  # noqa: E731
    teacher_nlp.get_pipe("elstm_senter").initialize(examples, nlp=teacher_nlp, epochs=2)
    teacher_nlp.to_disk(tmp_path / "teacher")
    student = pipeline()
    senter = student.get_pipe("elstm_senter")
    senter.initialize(examples, nlp=student, epochs=2, teachers=[tmp_path / "teacher"],
                      teacher_weight=0.5)
    assert senter.reads_words()
    text = "Hi there. Bye now."
    assert len(list(student(text).sents)) >= 1
    student.to_disk(tmp_path / "student")
    assert [s.text for s in spacy.load(tmp_path / "student")(text).sents] == \
        [s.text for s in student(text).sents]
