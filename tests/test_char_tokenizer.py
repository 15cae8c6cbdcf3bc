"""The character-level tokenizer and sentence splitter: gold labels rebuild the
gold Docs exactly, any text comes back as the Doc's text, windows cover the
text, and a trained tokenizer is saved and loaded with its pipeline."""
import random
from pathlib import Path

import pytest
import spacy
from spacy.training import Example

from spacy_elstm.text.char_tokenizer import (NAME, SENTENCE_END, TOKEN_END, build_doc, gold_labels,
                                        windows)
from spacy_elstm.text.multiword import multiword_spans
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_TRAIN = ROOT / "assets" / "ud-ewt-sample" / "train.conllu"
ENGLISH = spacy.blank("en").vocab  # its lexical attributes say which tokens are whitespace


def view(doc):
    return ([(t.text, t.whitespace_, t.is_sent_start) for t in doc], multiword_spans(doc))


def test_gold_labels_rebuild_the_gold_docs():
    docs = conllu_to_docs(SAMPLE_TRAIN, 10)
    for doc in docs:
        assert view(build_doc(doc.vocab, doc.text, gold_labels(doc))) == view(doc)
    assert sum(len(multiword_spans(d)) for d in docs) > 20


@pytest.mark.parametrize("seed", range(5))
def test_any_text_and_labels_give_a_doc_of_that_text(seed):
    rng = random.Random(seed)
    alphabet = "ab.,' \n\t!"
    text = "".join(rng.choice(alphabet) for _ in range(300))
    labels = [rng.randrange(4) for _ in text]
    doc = build_doc(ENGLISH, text, labels)
    assert doc.text == text
    assert all(not t.text.isspace() or t.is_space for t in doc)
    assert all(t.whitespace_ in ("", " ") for t in doc)


def test_whitespace_ends_tokens_and_a_blank_line_a_sentence():
    text = "Hi there  you.\n\nNew one"
    labels = [0] * len(text)
    labels[text.index("you.") + 2] = TOKEN_END  # "you." would be one word without it
    doc = build_doc(ENGLISH, text, labels)
    assert [(t.text, t.whitespace_) for t in doc] == [
        ("Hi", " "), ("there", " "), (" ", ""), ("you", ""), (".", ""), ("\n\n", ""),
        ("New", " "), ("one", "")]
    assert [t.text for t in doc if t.is_sent_start] == ["Hi", "New"]
    labels[text.index("there") + 4] = SENTENCE_END
    assert [t.text for t in build_doc(ENGLISH, text, labels) if t.is_sent_start] == [
        "Hi", "you", "New"]


def test_windows_cover_the_text_and_cut_at_whitespace():
    text = ("word " * 90 + "\n\n" + "x" * 700 + " end")
    pieces = windows(text, 100)
    assert pieces[0][0] == 0 and pieces[-1][1] == len(text)
    assert all(a == b for (_, a), (b, _) in zip(pieces, pieces[1:]))
    assert all(text[b - 1].isspace() for _, b in pieces[:-1] if b - 1 < 450)
    assert max(b - a for a, b in pieces) <= 200


@pytest.fixture(scope="module")
def trained():
    nlp = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": NAME, "width": 32,
                                                          "depth": 1, "char_width": 16}}})
    docs = conllu_to_docs(SAMPLE_TRAIN, 10, nlp.vocab)
    nlp.tokenizer.initialize(lambda: (Example(d, d) for d in docs), nlp=nlp, epochs=4)
    return nlp


def test_a_trained_tokenizer_splits_and_is_saved_with_its_pipeline(trained, tmp_path):
    text = "I don't know. It's here!! We're done"
    doc = trained(text)
    assert doc.text == text and len(doc) > 5
    losses = trained.tokenizer.learned["loss"]
    assert losses[-1] < losses[0] / 2
    trained.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert type(loaded.tokenizer).__name__ == "CharTokenizer"
    assert view(loaded(text)) == view(doc)
    again = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    with pytest.raises(ValueError, match="not trained"):
        again("text")


def test_texts_read_together_get_the_docs_they_get_one_at_a_time(trained):
    texts = ["I don't know. It's here!!", "", "We're done\n\nNew one.", "x " * 400]
    together = list(trained.tokenizer.pipe(iter(texts), batch_size=3))
    assert [view(doc) for doc in together] == [view(trained(text)) for text in texts]


def test_the_senter_sets_sentence_starts_over_any_tokenizer(tmp_path):
    """elstm_senter: the segmenter's sentence ends on the pipeline's own tokens,
    trained at initialisation, saved and loaded with the pipeline."""
    nlp = spacy.blank("en")
    nlp.add_pipe("elstm_senter", config={"width": 64, "depth": 1, "char_width": 16})
    docs = conllu_to_docs(SAMPLE_TRAIN, 10, nlp.vocab)
    nlp.config["initialize"]["components"]["elstm_senter"] = {"epochs": 10,
                                                            "training_text": "treebank"}
    nlp.initialize(lambda: [Example(nlp.make_doc(d.text), d) for d in docs])
    assert nlp.get_pipe("elstm_senter").segmenter.learned["epochs"] == 10
    doc = nlp(docs[0].text)
    assert doc.has_annotation("SENT_START") and doc[0].is_sent_start
    starts = {t.idx for t in doc if t.is_sent_start}
    gold = {t.idx for t in docs[0] if t.is_sent_start}
    assert len(starts & gold) >= len(gold) // 2  # a training document: most of it found
    two = nlp("One thing here\n\ntwo things there")
    assert [t.text for t in two if t.is_sent_start][-1] == "two"  # a blank line ends one
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert [t.is_sent_start for t in loaded(docs[0].text)] == [t.is_sent_start for t in doc]
    assert nlp("").text == ""
    given = nlp.make_doc(docs[0].text)
    for token in given:
        token.is_sent_start = token.i == 0
    assert sum(t.is_sent_start for t in nlp(given)) == 1  # sentences given: kept
    # nlp.pipe reads the characters of a batch's Docs together, a few windows per
    # call of the model here, and sets the starts one Doc at a time would
    import spacy_elstm.text.segmenter as segmentation
    texts = [d.text for d in docs[:6]] + ["", "Short one. Another"]
    one_by_one = [[t.is_sent_start for t in nlp(text)] for text in texts]
    calls = []
    model = nlp.get_pipe("elstm_senter").segmenter.model
    handle = model.register_forward_hook(lambda m, args, out: calls.append(len(args[2])))
    try:
        segmentation.WINDOWS_PER_CALL, kept = 3, segmentation.WINDOWS_PER_CALL
        piped = [[t.is_sent_start for t in doc] for doc in nlp.pipe(texts, batch_size=4)]
    finally:
        segmentation.WINDOWS_PER_CALL = kept
        handle.remove()
    assert piped == one_by_one
    assert max(calls) == 3 and len(calls) < sum(len(windows(t, 300)) for t in texts)
