"""The character-level recurrent embedding (spacy-elstm.CharRecurrentEmbed.v1):
what bytes a word is read as, which states make its vector, that a word's vector
depends on its own bytes only, gradients, errors, and that a tagger learns from
the characters of words it has never seen."""
import numpy
import pytest
import spacy
import torch
from spacy.ml.models import MultiHashEmbed
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import SGD

from spacy_elstm.architectures import build_char_recurrent_embed
from spacy_elstm.layers.chars import token_dropout, word_bytes
from spacy_elstm.pytorch.chars import CharRecurrence


def test_word_bytes_keeps_short_words_and_the_ends_of_long_ones():
    assert word_bytes("walk", 20) == b"walk"
    assert word_bytes("é", 20) == "é".encode("utf8")
    assert word_bytes("abcdefghij", 4) == b"abij"
    assert word_bytes("abcdefghij", 5) == b"abcij"
    assert word_bytes("abcdefghij", 10) == b"abcdefghij"
    assert word_bytes("", 4) == b"\0"


@pytest.mark.parametrize("cell", ["elstm", "lstm", "gru"])
def test_a_words_vector_is_the_forward_end_state_beside_the_backward_start_state(cell):
    torch.manual_seed(0)
    module = CharRecurrence(cell=cell, char_width=6, width=8, period=5)
    words = [b"tag", b"x", b"walking"]
    lengths = torch.tensor([len(w) for w in words])
    ids = torch.tensor(list(b"".join(words)))
    out = module(ids, lengths)
    assert out.shape == (3, 8)
    for i, word in enumerate(words):
        alone = module.layer(module.embed(torch.tensor(list(word)))[None],
                             torch.tensor([len(word)]))[0]
        torch.testing.assert_close(out[i, :4], alone[-1, :4])
        torch.testing.assert_close(out[i, 4:], alone[0, 4:])


def test_a_words_vector_does_not_depend_on_the_other_words(device):
    torch.manual_seed(0)
    module = CharRecurrence(cell="elstm", char_width=6, width=8, period=5).to(device)
    words = [b"a", b"internationalisation", b"of", b"tags"]
    ids = torch.tensor(list(b"".join(words)))
    together = module(ids, torch.tensor([len(w) for w in words]))
    for i, word in enumerate(words):
        alone = module(torch.tensor(list(word)), torch.tensor([len(word)]))
        torch.testing.assert_close(together[i:i + 1], alone, rtol=1e-6, atol=1e-6)


def test_gradients_pass_gradcheck():
    torch.manual_seed(0)
    module = CharRecurrence(cell="elstm", char_width=3, width=4, period=3).double()
    ids = torch.tensor(list(b"abcab"))
    lengths = torch.tensor([2, 3])
    params = dict(module.named_parameters())

    def run(weight):
        return torch.func.functional_call(module, {**params, "embed.weight": weight},
                                          (ids, lengths))

    weight = module.embed.weight.detach().clone().requires_grad_()
    assert torch.autograd.gradcheck(run, (weight,))


def _embed(width=16, cell="elstm", **kwargs):
    words = MultiHashEmbed(width=width, attrs=["NORM"], rows=[100],
                           include_static_vectors=False)
    return build_char_recurrent_embed(width, words, char_width=8, char_rnn_width=12, cell=cell,
                                      period=5, **kwargs)


def test_the_layer_embeds_every_token_and_empty_docs():
    nlp = spacy.blank("en")
    docs = [nlp("Tagging unseen words, like zyxtification."), nlp(""), nlp("ok")]
    model = _embed()
    model.initialize(X=docs)
    Ys, backprop = model(docs, is_train=True)
    assert [Y.shape for Y in Ys] == [(len(d), 16) for d in docs]
    backprop([Y + 1 for Y in Ys])
    assert model.predict([nlp("")])[0].shape == (0, 16)
    # a doc's vectors do not depend on the other docs in its batch
    alone = model.predict([docs[2]])[0]
    assert abs(model.predict(docs)[2] - alone).max() < 1e-6


def test_each_distinct_word_is_read_once_and_its_gradient_summed_over_occurrences():
    """The layer reads a repeated word once: the same vectors and the same
    parameter gradients as the recurrence over every occurrence."""
    from spacy_elstm.layers.chars import with_char_recurrence
    nlp = spacy.blank("en")
    docs = [nlp("the cat saw the dog"), nlp("the dog and the cat")]
    torch.manual_seed(0)
    module = CharRecurrence(cell="elstm", char_width=6, width=8, period=5).double()
    layer = with_char_recurrence(module, max_bytes=20, name="chars")
    calls = []
    module.register_forward_hook(lambda m, args, out: calls.append(len(args[1])))
    Ys, backprop = layer(docs, is_train=True)
    assert calls == [5]  # the, cat, saw, dog, and
    dYs = [numpy.random.default_rng(i).normal(size=Y.shape).astype(Y.dtype)
           for i, Y in enumerate(Ys)]
    backprop(dYs)
    grads = {n: p.grad.clone() for n, p in module.named_parameters()}
    module.zero_grad()
    words = [t.text.encode("utf8") for doc in docs for t in doc]
    every = module(torch.tensor(list(b"".join(words))), torch.tensor([len(w) for w in words]))
    torch.testing.assert_close(torch.from_numpy(numpy.concatenate(Ys)), every.detach())
    every.backward(torch.from_numpy(numpy.concatenate(dYs)))
    for name, param in module.named_parameters():
        torch.testing.assert_close(grads[name], param.grad)


def test_the_word_cache_gives_each_new_word_a_free_row_then_the_least_recently_used():
    from spacy_elstm.layers.word_cache import WordCache
    cache = WordCache(3)
    assert cache.assign([b"a", b"b"]) == ([0, 1], [0, 1])
    assert cache.assign([b"b", b"c"]) == ([1, 2], [1])
    assert cache.assign([b"d", b"b"]) == ([0, 1], [0])  # "a" was the least recently used
    assert (cache.hits, cache.misses) == (2, 4)
    cache.check_weights("other weights")
    assert cache.assign([b"b"]) == ([0], [0])
    with pytest.raises(ValueError, match="4 distinct words for a WordCache of 3"):
        cache.assign([b"w", b"x", b"y", b"z"])


def test_cached_predictions_equal_fresh_ones_and_follow_the_weights(monkeypatch):
    """At inference the layer keeps words' vectors between batches: with a cache
    too small for the vocabulary, each batch still gets what a fresh layer
    computes, and after an update or loading other weights, the new weights'."""
    import spacy_elstm.layers.chars as chars
    monkeypatch.setattr(chars, "CACHE_WORDS", 6)
    nlp = spacy.blank("en")
    batches = [[nlp("the cat saw the dog")], [nlp("a dog saw the cat"), nlp("birds")],
               [nlp("the cat and the bird and the dog and a mouse")]]
    docs = [doc for batch in batches for doc in batch]
    model, other = _embed(), _embed()
    model.initialize(X=docs)
    other.initialize(X=docs)
    reference = _embed()
    reference.initialize(X=docs)
    reference.from_bytes(model.to_bytes())
    for batch in batches + batches:
        for cached, doc in zip(model.predict(batch), batch):
            fresh = reference.predict([doc])[0]  # one doc per batch: no reuse across docs
            assert abs(cached - fresh).max() < 1e-6
    Ys, backprop = model(docs, is_train=True)
    backprop([Y + 1 for Y in Ys])
    model.finish_update(SGD(0.1))
    reference.from_bytes(model.to_bytes())
    assert abs(model.predict(batches[0])[0] - reference.predict(batches[0])[0]).max() < 1e-6
    model.from_bytes(other.to_bytes())
    assert abs(model.predict(batches[0])[0] - other.predict(batches[0])[0]).max() < 1e-6


def test_the_layer_round_trips_through_bytes():
    nlp = spacy.blank("en")
    docs = [nlp("Round trip of a character layer.")]
    model = _embed()
    model.initialize(X=docs)
    other = _embed()
    other.initialize(X=docs)
    other.from_bytes(model.to_bytes())
    assert abs(other.predict(docs)[0] - model.predict(docs)[0]).max() == 0


@pytest.mark.parametrize("args, message", [
    ({"cell": "lstmm"}, "cell"),
    ({"char_rnn_width": 13}, "width 13 is odd"),
    ({"max_bytes": 0}, "max_bytes"),
    ({"char_width": -1}, "char_width"),
    ({"period": 0}, "period"),
    ({"words_dropout": 1.0}, "words_dropout"),
    ({"words_dropout": -0.1}, "words_dropout"),
])
def test_bad_arguments_are_named(args, message):
    words = MultiHashEmbed(width=16, attrs=["NORM"], rows=[100], include_static_vectors=False)
    settings = {"char_width": 8, "char_rnn_width": 12, "cell": "elstm", "period": 5, **args}
    with pytest.raises(ValueError, match=message):
        build_char_recurrent_embed(16, words, **settings)


def test_token_dropout_drops_whole_rows_in_training_only():
    layer = token_dropout(0.5)
    X = layer.ops.asarray2f(numpy.ones((400, 6)))
    Y, backprop = layer(X, is_train=True)
    rows = Y[:, 0]
    assert set(numpy.unique(Y)) == {0.0, 2.0}
    assert (Y == rows[:, None]).all()  # a row is dropped whole or kept whole
    assert 120 < (rows == 0).sum() < 280
    assert (backprop(X) == Y).all()  # the gradient passes through the kept rows only
    assert (layer.predict(X) == X).all()
    assert token_dropout(0.0)(X, is_train=True)[0] is X


def test_words_dropout_changes_training_outputs_only():
    nlp = spacy.blank("en")
    docs = [nlp("Dropping the word features of some tokens in training.")]
    models = []
    for rate in (0.0, 0.5):  # the same weights: the dropout layer has none
        spacy.util.fix_random_seed(0)
        models.append(_embed(words_dropout=rate))
        models[-1].initialize(X=docs)
    plain, dropped = models
    assert abs(dropped.predict(docs)[0] - plain.predict(docs)[0]).max() == 0
    assert abs(dropped(docs, is_train=True)[0][0] - plain(docs, is_train=True)[0][0]).max() > 0


def test_a_tagger_learns_word_endings_and_tags_unseen_words_by_them():
    """The tags follow the words' endings only, and the word-level embedding is
    of SHAPE, the same ("xxxx") for every word here: only the characters can
    tell the tags apart, on the training words and on the unseen ones."""
    config = {"model": {
        "@architectures": "spacy.Tagger.v2",
        "tok2vec": {
            "@architectures": "spacy.Tok2Vec.v2",
            "embed": {"@architectures": "spacy-elstm.CharRecurrentEmbed.v1", "width": 32,
                      "char_width": 16, "char_rnn_width": 32, "cell": "elstm", "period": 10,
                      "words": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 32,
                                "attrs": ["SHAPE"], "rows": [50],
                                "include_static_vectors": False}},
            "encode": {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 32,
                       "depth": 1, "window_size": 1, "maxout_pieces": 2}}}}
    stems = ["walk", "talk", "jump", "read", "sing", "play", "work", "cook", "paint", "climb"]
    endings = {"ing": "V", "er": "N", "ed": "D"}
    train = [w + e for w in stems[:7] for e in endings]
    unseen = [w + e for w in stems[7:] for e in endings]
    tag = {w: endings[e] for e in endings for w in train + unseen if w.endswith(e)}
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("tagger", config=config)
    examples = [Example.from_dict(nlp.make_doc(" ".join(train[i:i + 3])),
                                  {"tags": [tag[w] for w in train[i:i + 3]]})
                for i in range(0, len(train), 3)]
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(150):
        nlp.update(examples, sgd=optimizer, drop=0.0)
    for words in (train, unseen):
        doc = nlp(Doc(nlp.vocab, words=words))
        assert [t.tag_ for t in doc] == [tag[w] for w in words]
