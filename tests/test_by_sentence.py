"""The tok2vec whose encoder reads sentence by sentence (spacy-elstm.SentenceTok2Vec.v1):
on one sentence it is spacy.Tok2Vec.v2, on several each sentence reads as if alone, its
gradient is each sentence's own, and the weights of either load into the other."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import registry
from thinc.api import Adam, fix_random_seed

from spacy_elstm.layers.by_sentence import sentence_lengths

EMBED = {"@architectures": "spacy.MultiHashEmbed.v2", "width": 16, "attrs": ["NORM", "SHAPE"],
         "rows": [200, 20], "include_static_vectors": False}
ENCODE = {"@architectures": "spacy-elstm.RecurrentEncoder.v2", "width": 16, "depth": 1,
          "cell": "elstm", "period": 4, "dropout": 0.0}  # no dropout: updates compare exactly
WORDS = "The dog barked . It was late and everyone slept ! Fine".split()
STARTS = [True, False, False, False, True, False, False, False, False, False, False, True]


def build(name: str, seed: int = 0):
    fix_random_seed(seed)
    config = {"model": {"@architectures": name, "embed": EMBED, "encode": ENCODE}}
    model = registry.resolve(config)["model"]
    nlp = spacy.blank("en")
    model.initialize(X=[Doc(nlp.vocab, words=WORDS)])
    return model, nlp.vocab


def three_sentences(vocab) -> Doc:
    return Doc(vocab, words=WORDS, sent_starts=STARTS)


def test_sentence_lengths():
    vocab = spacy.blank("en").vocab
    assert sentence_lengths(three_sentences(vocab)) == [4, 7, 1]
    assert sentence_lengths(Doc(vocab, words=WORDS)) == [len(WORDS)]  # no starts set
    assert sentence_lengths(Doc(vocab, words=[])) == [0]


def test_one_sentence_reads_as_tok2vec_v2_with_the_same_weights():
    by_sentence, vocab = build("spacy-elstm.SentenceTok2Vec.v1")
    whole, _ = build("spacy.Tok2Vec.v2")
    whole.from_bytes(by_sentence.to_bytes())
    docs = [Doc(vocab, words=WORDS), Doc(vocab, words=WORDS[:4]), Doc(vocab, words=[])]
    for a, b in zip(by_sentence.predict(docs), whole.predict(docs)):
        numpy.testing.assert_allclose(a, b, atol=1e-6)


def test_each_sentence_reads_as_if_it_were_alone():
    model, vocab = build("spacy-elstm.SentenceTok2Vec.v1")
    whole, _ = build("spacy.Tok2Vec.v2")
    whole.from_bytes(model.to_bytes())
    doc = three_sentences(vocab)
    found = model.predict([doc])[0]
    alone = numpy.concatenate([model.predict([s.as_doc()])[0] for s in doc.sents])
    numpy.testing.assert_allclose(found, alone, atol=1e-6)
    # the doc read whole (Tok2Vec.v2) differs: the recurrence crosses the sentence ends
    assert numpy.abs(whole.predict([doc])[0] - found).max() > 1e-3


def test_the_gradient_is_each_sentence_s_own():
    model, vocab = build("spacy-elstm.SentenceTok2Vec.v1")
    doc = three_sentences(vocab)
    rng = numpy.random.default_rng(0)
    d_out = rng.normal(size=(len(doc), 16)).astype("float32")

    def weight_grads(docs, grads):
        _, backprop = model.begin_update(docs)
        backprop(grads)
        found = [numpy.array(g, copy=True) for g in _grads(model)]
        _zero(model)
        return found

    together = weight_grads([doc], [d_out])
    start, apart = 0, None
    for sent in doc.sents:
        grads = weight_grads([sent.as_doc()], [d_out[start:start + len(sent)]])
        apart = grads if apart is None else [a + g for a, g in zip(apart, grads)]
        start += len(sent)
    assert len(together) == len(apart) > 0
    for a, b in zip(together, apart):
        numpy.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def _grads(model):
    out = []
    for node in model.walk():
        out += [node.get_grad(name) for name in node.param_names if node.has_grad(name)]
        for shim in node.shims:
            out += [p.grad.detach().numpy() for p in shim._model.parameters() if p.grad is not None]
    return out


def _zero(model):
    for node in model.walk():
        for name in node.param_names:
            if node.has_grad(name):
                node.set_grad(name, node.ops.alloc(node.get_grad(name).shape))
        for shim in node.shims:
            shim._model.zero_grad(set_to_none=True)


@pytest.mark.parametrize("saved,loaded", [("spacy.Tok2Vec.v2", "spacy-elstm.SentenceTok2Vec.v1"),
                                          ("spacy-elstm.SentenceTok2Vec.v1", "spacy.Tok2Vec.v2")])
def test_the_weights_of_either_load_into_the_other(saved, loaded):
    source, vocab = build(saved, seed=1)
    target, _ = build(loaded, seed=2)
    docs = [Doc(vocab, words=WORDS)]
    assert numpy.abs(source.predict(docs)[0] - target.predict(docs)[0]).max() > 1e-3
    target.from_bytes(source.to_bytes())
    numpy.testing.assert_allclose(source.predict(docs)[0], target.predict(docs)[0], atol=1e-6)


def test_a_saved_pipeline_loads_and_saves_reading_sentence_by_sentence(tmp_path):
    """docs/raw-text.md's upgrade of a pipeline saved with spacy.Tok2Vec.v2."""
    fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": {"@architectures": "spacy.Tok2Vec.v2",
                                              "embed": EMBED, "encode": ENCODE}})
    nlp.add_pipe("tagger", config={"model": {
        "@architectures": "spacy.Tagger.v2",
        "tok2vec": {"@architectures": "spacy.Tok2VecListener.v1", "width": 16}}})
    tags = ["DT", "NN", "VBD", "."] * 3
    examples = [Example.from_dict(nlp.make_doc(" ".join(WORDS)), {"tags": tags})]
    nlp.initialize(lambda: examples)
    nlp.to_disk(tmp_path / "old")
    key = "components.tok2vec.model.@architectures"
    upgraded = spacy.load(tmp_path / "old", config={key: "spacy-elstm.SentenceTok2Vec.v1"})
    upgraded.to_disk(tmp_path / "new")
    new = spacy.load(tmp_path / "new")
    assert new.config["components"]["tok2vec"]["model"]["@architectures"] == \
        "spacy-elstm.SentenceTok2Vec.v1"
    old = spacy.load(tmp_path / "old")
    one = " ".join(WORDS[:4])
    assert [t.tag_ for t in new(one)] == [t.tag_ for t in old(one)]
    doc = three_sentences(new.vocab)
    found = new.get_pipe("tok2vec").model.predict([doc])[0]
    alone = new.get_pipe("tok2vec").model.predict([next(doc.sents).as_doc()])[0]
    numpy.testing.assert_allclose(found[:4], alone, atol=1e-6)


def test_on_one_sentence_per_doc_it_trains_as_tok2vec_v2():
    """`configs/raw/` train on one gold sentence per Doc: the same updates give the
    same weights with either tok2vec, so a run trained with Tok2Vec.v2 is one
    trained with SentenceTok2Vec.v1."""
    def trained(name):
        fix_random_seed(0)
        nlp = spacy.blank("en")
        nlp.add_pipe("tok2vec", config={"model": {"@architectures": name, "embed": EMBED,
                                                  "encode": ENCODE}})
        nlp.add_pipe("tagger", config={"model": {
            "@architectures": "spacy.Tagger.v2",
            "tok2vec": {"@architectures": "spacy.Tok2VecListener.v1", "width": 16}}})
        sentences = [WORDS[:4], WORDS[4:11], WORDS[11:]]
        tags = [["DT", "NN", "VBD", "."], ["PRP", "VBD", "JJ", "CC", "NN", "VBD", "."], ["UH"]]
        examples = [Example.from_dict(Doc(nlp.vocab, words=w), {"tags": t})
                    for w, t in zip(sentences, tags)]
        optimizer = nlp.initialize(lambda: examples, sgd=Adam(0.01))
        for _ in range(3):
            nlp.update(examples, sgd=optimizer)
        return nlp

    whole, by_sentence = trained("spacy.Tok2Vec.v2"), trained("spacy-elstm.SentenceTok2Vec.v1")
    for name in ("tok2vec", "tagger"):
        found = [weights(nlp.get_pipe(name).model) for nlp in (whole, by_sentence)]
        assert len(found[0]) == len(found[1]) > 0
        for a, b in zip(*found):
            numpy.testing.assert_array_equal(a, b)


def weights(model):
    """Every parameter of a model's layers and of the torch modules they wrap."""
    out = []
    for node in model.walk():
        out += [numpy.array(node.get_param(name)) for name in node.param_names
                if node.has_param(name)]
        for shim in node.shims:
            out += [p.detach().numpy().copy() for p in shim._model.parameters()]
    return out
