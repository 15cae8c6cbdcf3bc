"""The character model's training text as users' text arrives
(spacy_elstm/text/training_text.py): the treebank's words, sentences and
multiword tokens kept, only the whitespace (and, where asked, case and a final
punctuation mark) changed."""
from pathlib import Path

import pytest

import spacy_elstm.text.training_text as training_text
from spacy_elstm.text.multiword import multiword_spans
from spacy_elstm.text.segmenter import SENTENCE_END, gold_labels
from spacy_elstm.text.training_text import varied_docs
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs

SAMPLE = Path(__file__).resolve().parent.parent / "assets" / "ud-ewt-sample" / "train.conllu"


@pytest.fixture(scope="module")
def treebank():
    return conllu_to_docs(SAMPLE, 10)


def gold(docs):
    """Each sentence's words, and each multiword token's words."""
    sentences, multiword = [], []
    for doc in docs:
        for sent in doc.sents:
            sentences.append([t.text for t in sent if not t.text.isspace()])
        multiword += [tuple(doc[i].text for i in range(a, b + 1)) for a, b in multiword_spans(doc)]
    return sentences, multiword


def test_the_words_sentences_and_multiword_tokens_are_the_treebank_s(treebank, monkeypatch):
    monkeypatch.setattr(training_text, "NO_FINAL_PUNCTUATION", 0.0)
    monkeypatch.setattr(training_text, "LOWER_CASE", 0.0)
    varied = varied_docs(treebank, seed=1)
    assert gold(varied) == gold(treebank)
    texts = [d.text for d in varied]
    assert any("\r\n" in t for t in texts)
    assert any("\n\n" in t for t in texts) and any("\n" in t.replace("\n\n", "") for t in texts)


def test_every_sentence_ends_at_a_sentence_end_label(treebank):
    for doc in varied_docs(treebank, seed=0):
        labels = gold_labels(doc)
        words = [t for t in doc if not t.text.isspace()]
        for k, token in enumerate(words):
            ends = k + 1 == len(words) or words[k + 1].is_sent_start
            assert (labels[token.idx + len(token.text) - 1] == SENTENCE_END) == ends


def test_ud_lines_are_wrapped_at_80_characters(treebank, monkeypatch):
    monkeypatch.setattr(training_text, "LAYOUTS", (("ud", 1.0),))
    lines = [line for doc in varied_docs(treebank, seed=0) for line in doc.text.splitlines()]
    # past 80 characters only where words written without space between them
    # (which no line break may part) cross the 80th
    assert all(len(line.rstrip().rsplit(" ", 1)[0]) <= 80 for line in lines)
    assert sum(len(line) > 60 for line in lines) > len(lines) / 3  # lines are filled


def test_one_sentence_per_line(treebank, monkeypatch):
    monkeypatch.setattr(training_text, "LAYOUTS", (("lines", 1.0),))
    monkeypatch.setattr(training_text, "CRLF", 0.0)
    for doc in varied_docs(treebank, seed=0):
        lines = [line for line in doc.text.split("\n") if line.strip()]
        assert len(lines) == len(list(doc.sents))


def test_a_paragraph_may_lose_its_final_punctuation(treebank, monkeypatch):
    monkeypatch.setattr(training_text, "NO_FINAL_PUNCTUATION", 1.0)
    varied, _ = gold(varied_docs(treebank, seed=0))
    original, _ = gold(treebank)
    assert sum(map(len, varied)) < sum(map(len, original))
    assert len(varied) == len(original)


def test_the_unpunctuated_text_is_the_varied_one_without_its_punctuation_words(treebank):
    from spacy_elstm.text.punctuation import is_punctuation
    from spacy_elstm.text.training_text import unpunctuated_docs

    def kept(docs):
        """Each sentence's words but the punctuation outside multiword tokens."""
        out = []
        for doc in docs:
            inside = {i for a, b in multiword_spans(doc) for i in range(a, b + 1)}
            out += [s for s in ([t.text for t in sent if not t.text.isspace()
                                 and (t.i in inside or not is_punctuation(t.text))]
                                for sent in doc.sents) if s]
        return out

    varied, bare = varied_docs(treebank, seed=3), unpunctuated_docs(treebank, seed=3)
    assert gold(bare)[0] == kept(varied) == kept(bare)
    assert gold(bare)[1] == gold(varied)[1]  # every multiword token, its marks and all
    assert sum(map(len, gold(bare)[0])) < sum(map(len, gold(varied)[0]))
    for doc in bare:  # the gold labels end every sentence at its last word
        labels = gold_labels(doc)
        words = [t for t in doc if not t.text.isspace()]
        for k, token in enumerate(words):
            ends = k + 1 == len(words) or words[k + 1].is_sent_start
            assert (labels[token.idx + len(token.text) - 1] == SENTENCE_END) == ends
