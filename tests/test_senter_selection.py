"""How elstm_senter's models may learn (spacy_elstm/text/learning.py,
training_text.py, held_out.py): the training sentences laid out anew each
epoch, and each model keeping the weights of the epoch whose sentences scored
best on held-out text in UD's text form."""
from pathlib import Path

import pytest
import spacy
import torch
from spacy.tokens import Doc, DocBin
from spacy.training import Example

from spacy_elstm.text.held_out import held_out_docs, sentence_f1
from spacy_elstm.text.learning import fit
from spacy_elstm.text.training_text import for_seed, training_layouts, ud_form_docs
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs

SAMPLE = Path(__file__).resolve().parent.parent / "assets" / "ud-ewt-sample"


@pytest.fixture(scope="module")
def treebank():
    return conllu_to_docs(SAMPLE / "train.conllu", 10)


def words_and_sentences(docs):
    return [[t.text for t in sent if not t.text.isspace()] for doc in docs for sent in doc.sents]


def test_fit_keeps_the_weights_of_the_best_scoring_epoch():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    data = [torch.randn(3) for _ in range(8)]
    after_each_epoch, scores = [], iter([0.2, 0.9, 0.5])

    def after_update(epoch, last):
        if last:
            after_each_epoch.append({k: v.clone() for k, v in model.state_dict().items()})

    fitted = fit(model, data, lambda batch: model(torch.stack(batch)).pow(2).mean(), epochs=3,
                 batch_size=4, learn_rate=0.1, seed=0, label="test",
                 after_update=after_update, score=lambda: next(scores))
    assert fitted.scores == [0.2, 0.9, 0.5] and fitted.epoch == 2
    assert not torch.equal(after_each_epoch[1]["weight"], after_each_epoch[2]["weight"])
    assert torch.equal(model.weight, after_each_epoch[1]["weight"])


def test_fit_without_a_score_keeps_the_last_epoch_and_reads_each_epoch_s_data():
    model = torch.nn.Linear(3, 1)
    asked = []

    def data(epoch):
        asked.append(epoch)
        return [torch.ones(3) * epoch]

    fitted = fit(model, data, lambda batch: model(torch.stack(batch)).pow(2).mean(), epochs=3,
                 batch_size=4, learn_rate=0.1, seed=0, label="test")
    assert asked == [1, 2, 3] and fitted.epoch == 3 and fitted.scores == []


def test_fresh_layouts_change_the_layout_not_the_sentences(treebank):
    fixed = training_layouts(treebank, "varied", 0, fresh_layouts=False)
    fresh = training_layouts(treebank, "varied", 0, fresh_layouts=True)
    assert fixed(3) is fixed(1)
    assert [d.text for d in fresh(1)] == [d.text for d in fixed(1)]
    assert [d.text for d in fresh(2)] != [d.text for d in fresh(1)]
    assert [d.text for d in fresh(2)] == [d.text for d in fresh(2)]  # each epoch's is seeded
    assert len(words_and_sentences(fresh(2))) == len(words_and_sentences(fresh(1)))
    assert training_layouts(treebank, "treebank", 0, True)(2) == list(treebank)


def test_layouts_laid_out_once_train_as_a_list_of_them_does(treebank):
    """The same Docs each epoch: the same windows, shuffled further each epoch,
    as before there were fresh layouts (saved configs train as they did)."""
    from spacy_elstm.text.segmenter import DEFAULTS, SETTINGS, Segmenter
    docs = training_layouts(treebank, "varied", 0, fresh_layouts=False)
    weights = []
    for references in (docs(1), docs):
        segmenter = Segmenter({**{k: DEFAULTS[k] for k in SETTINGS}, "width": 16, "depth": 1},
                              DEFAULTS["window"], "test")
        segmenter.train(references, epochs=2, batch_size=8, learn_rate=0.01, seed=0)
        weights.append(segmenter.model.state_dict())
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])


def test_held_out_text_is_ud_s_form_of_the_treebank(treebank):
    docs = ud_form_docs(treebank, 0)
    assert words_and_sentences(docs) == words_and_sentences(treebank)
    lines = [line for d in docs for line in d.text.split("\n")]
    # wrapped at 80 (a word attached to the one before it is not cut from it)
    assert max(len(line) for line in lines) <= 100
    assert sum(len(line) > 80 for line in lines) < 0.05 * len(lines)
    assert "\r" not in "".join(d.text for d in docs)
    assert any("\n\n" in d.text for d in docs)


def test_sentence_f1_matches_sentences_by_their_words():
    vocab = spacy.blank("en").vocab
    words, spaces = ["One", ".", "\n", "Two", "."], [False, False, False, False, False]

    def doc(starts):
        return Doc(vocab, words=words, spaces=spaces, sent_starts=starts)

    gold = doc([True, False, False, True, False])
    assert sentence_f1([gold], [doc([True, False, False, True, False])]) == 1.0
    assert sentence_f1([gold], [doc([True, False, True, False, False])]) == 1.0  # whitespace
    assert sentence_f1([gold], [doc([True, False, False, False, False])]) == 0.0
    assert sentence_f1([gold], [doc([True, True, False, True, False])]) == pytest.approx(0.4)
    with pytest.raises(ValueError, match="own text"):
        sentence_f1([gold], [Doc(vocab, words=["Other"])])


def test_a_missing_held_out_corpus_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"dev = '.*nothing.spacy' is not a file.*paths.dev"):
        held_out_docs(tmp_path / "nothing.spacy", spacy.blank("en").vocab, "elstm_senter", 0)


def test_the_senter_keeps_each_model_s_best_epoch_on_held_out_text(treebank, tmp_path):
    dev = tmp_path / "dev.spacy"
    DocBin(docs=conllu_to_docs(SAMPLE / "dev.conllu", 10)).to_disk(dev)
    nlp = spacy.blank("en")
    senter = nlp.add_pipe("elstm_senter", config={"width": 16, "depth": 1, "word_width": 16})
    nlp.config["initialize"]["components"]["elstm_senter"] = {
        "epochs": 3, "word_epochs": 3, "learn_rate": 0.01, "dev": str(dev),
        "fresh_layouts": True}
    nlp.initialize(lambda: [Example(d, d) for d in treebank])
    for learned in (senter.segmenter.learned, senter.words.learned):
        scores = learned["scores"]
        assert len(scores) == 3 and all(0.0 <= s <= 1.0 for s in scores)
        assert learned["kept_epoch"] == scores.index(max(scores)) + 1
    assert senter.segmenter.learned["fresh_layouts"] is True
    held_out = held_out_docs(dev, nlp.vocab, "test", 0)
    found = list(senter.pipe(nlp.make_doc(d.text) for d in held_out))
    assert sentence_f1(held_out, found) == pytest.approx(senter.words.learned["scores"][
        senter.words.learned["kept_epoch"] - 1], abs=1e-4)


def test_character_models_of_several_seeds_average_and_reload(treebank):
    """char_models: the first model is the one a single model would be, the
    others differ by their seeds, each character's probabilities are the mean
    of all, and they are saved and loaded with it; one model saves as before."""
    import numpy
    import srsly
    from spacy_elstm.text.segmenter import DEFAULTS, SETTINGS, Segmenter
    settings = {**{k: DEFAULTS[k] for k in SETTINGS}, "width": 16, "depth": 1}
    trained = {}
    for models in (1, 3):
        trained[models] = Segmenter(settings, DEFAULTS["window"], "test", models)
        trained[models].train(treebank, epochs=1, batch_size=8, learn_rate=0.01, seed=0)
    single, three = trained[1], trained[3]
    assert len(three.other_seeds) == 2 and len(three.learned["other_seeds"]) == 2
    assert all(torch.equal(a, b) for a, b in zip(single.model.state_dict().values(),
                                                 three.model.state_dict().values()))
    assert not torch.equal(three.model.output.weight, three.other_seeds[1].output.weight)
    texts = [treebank[0].text, "A short one. And another"]
    alone = []
    for model in (three.model, *three.other_seeds):
        copy = Segmenter(settings, DEFAULTS["window"], "test")
        copy.chars, copy.model = three.chars, model
        alone.append(copy.probabilities(texts))
    for i, found in enumerate(three.probabilities(texts)):
        numpy.testing.assert_allclose(found, sum(a[i] for a in alone) / 3, rtol=1e-5, atol=1e-7)
    loaded = Segmenter(settings, DEFAULTS["window"], "test").from_bytes(three.to_bytes())
    assert loaded.models == 3
    for a, b in zip(loaded.probabilities(texts), three.probabilities(texts)):
        numpy.testing.assert_array_equal(a, b)
    assert "other_seeds" not in srsly.msgpack_loads(single.to_bytes())
    with pytest.raises(ValueError, match=r"test: char_models must be an integer >= 1, got 0"):
        Segmenter(settings, DEFAULTS["window"], "test", 0)


def test_a_model_of_another_seed_learns_the_docs_laid_out_with_its_seed(treebank):
    layouts = training_layouts(treebank, "varied", 0, fresh_layouts=False)
    theirs = for_seed(layouts, 7919)
    assert [d.text for d in theirs(1)] != [d.text for d in layouts(1)]
    assert [d.text for d in theirs(2)] == [d.text for d in layouts.for_seed(7919)(1)]
    assert len(words_and_sentences(theirs(1))) == len(words_and_sentences(layouts(1)))
    assert for_seed(list(treebank), 5) == list(treebank)  # Docs as they are: the same
