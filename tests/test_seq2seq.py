"""The seq2seq taggers (pytorch/seq2seq.py, spacy-elstm.Seq2SeqTagger.v1): teacher
forcing in training, greedy decoding on the model's own predictions, attention
over the sentence's own tokens only (each sentence its own sequence), and the gold-label hand-over of the components."""
import subprocess
import sys

import numpy
import pytest
import spacy
import torch
from spacy.training import Example
from thinc.api import Adam, fix_random_seed

from autoregressive_utils import check_missing_gold_is_replaced_by_the_prediction

from spacy_elstm.layers import set_teacher
from spacy_elstm.pytorch import CELLS, Packing, Seq2SeqLabeller

LENGTHS = torch.tensor([4, 2, 0, 3])
N_LABELS = 5


def _module(attention=True, cell="elstm", decoder_cell=None, bidirectional=True, dropout=0.0,
            interleaved=False, own_predictions=0.0):
    torch.manual_seed(0)
    module = Seq2SeqLabeller(cell=cell, input_width=3, width=6, n_labels=N_LABELS,
                             attention=attention, decoder_cell=decoder_cell,
                             bidirectional=bidirectional, period=3, label_width=4,
                             dropout=dropout, interleaved=interleaved,
                             own_predictions=own_predictions)
    with torch.no_grad():  # larger weights, so that labels and states matter visibly
        for param in module.parameters():
            param.mul_(3.0)
    return module


def _inputs(lengths=LENGTHS, seed=1):
    generator = torch.Generator().manual_seed(seed)
    n = int(lengths.sum())
    x = torch.randn(n, 3, generator=generator)
    gold = torch.randint(0, N_LABELS, (n,), generator=generator)
    return x, gold


def _split(y, lengths=LENGTHS):
    return list(torch.split(y, lengths.tolist()))


# --- the torch module -----------------------------------------------------------

@pytest.mark.parametrize("attention", [True, False])
def test_teacher_forced_output_at_t_depends_on_the_gold_label_at_t_minus_1(attention):
    module = _module(attention)
    x, gold = _inputs()
    y = module(x, LENGTHS, flat=True, gold=gold)
    changed = gold.clone()
    changed[1] = (gold[1] + 1) % N_LABELS  # doc 0, token 1
    z = module(x, LENGTHS, flat=True, gold=changed)
    torch.testing.assert_close(z[:2], y[:2])  # tokens 0 and 1 read labels before it
    assert not torch.allclose(z[2], y[2])  # token 2 is fed label 1
    torch.testing.assert_close(z[4:], y[4:])  # the other docs


@pytest.mark.parametrize("attention", [True, False])
def test_greedy_decoding_feeds_back_its_own_predictions(attention):
    """With no gold labels, each step is fed the argmax of the step before:
    teacher forcing with those argmaxes as gold gives the same scores."""
    module = _module(attention)
    x, gold = _inputs()
    greedy = module(x, LENGTHS, flat=True)
    forced = module(x, LENGTHS, flat=True, gold=greedy.argmax(-1))
    torch.testing.assert_close(greedy, forced)
    # and the gold labels are not what it was fed
    assert not torch.allclose(greedy, module(x, LENGTHS, flat=True, gold=gold))


@pytest.mark.parametrize("attention", [True, False])
def test_a_missing_gold_label_is_replaced_by_the_prediction(attention):
    module = _module(attention)
    x, gold = _inputs()
    check_missing_gold_is_replaced_by_the_prediction(module, x, gold, LENGTHS)


@pytest.mark.parametrize("interleaved", [False, True])
def test_own_predictions_feed_a_share_of_the_steps_their_own_prediction(interleaved):
    """Scheduled sampling: in training, share 1 feeds every step the model's own
    prediction (the gold labels change nothing: greedy decoding), share 0 feeds
    gold (teacher forcing); at inference the share plays no part."""
    x, gold = _inputs()
    if interleaved:
        gold = gold * N_LABELS + gold.flip(0)
    always = _module(own_predictions=1.0, interleaved=interleaved).train()
    never = _module(own_predictions=0.0, interleaved=interleaved).train()
    greedy = never(x, LENGTHS, flat=True)
    torch.testing.assert_close(always(x, LENGTHS, flat=True, gold=gold), greedy)
    forced = never(x, LENGTHS, flat=True, gold=gold)
    assert not torch.allclose(forced, greedy)
    torch.testing.assert_close(always.eval()(x, LENGTHS, flat=True, gold=gold), forced)
    # a share in between feeds gold at some steps and its own predictions at others
    torch.manual_seed(3)
    half = _module(own_predictions=0.5, interleaved=interleaved).train()
    mixed = half(x, LENGTHS, flat=True, gold=gold)
    assert not torch.allclose(mixed, forced) and not torch.allclose(mixed, greedy)


@pytest.mark.parametrize("attention", [True, False])
@pytest.mark.parametrize("teacher", [True, False])
def test_a_docs_output_does_not_depend_on_its_batch(attention, teacher):
    module = _module(attention)
    x, gold = _inputs()
    together = _split(module(x, LENGTHS, flat=True, gold=gold if teacher else None))
    for doc, (xs, gs) in enumerate(zip(_split(x), _split(gold))):
        length = torch.tensor([len(xs)])
        alone = module(xs, length, flat=True, gold=gs if teacher else None)
        torch.testing.assert_close(alone, together[doc], rtol=1e-5, atol=1e-6)


# beam search (inference only): each step's label distribution over the final beam

def _beam(module, width):
    module.beam_width = width
    return module.eval()


@pytest.mark.parametrize("attention", [True, False])
@pytest.mark.parametrize("interleaved", [False, True])
def test_a_beam_of_one_is_greedy_decoding(attention, interleaved):
    module = _module(attention, interleaved=interleaved)
    x, _ = _inputs()
    greedy = module(x, LENGTHS, flat=True)
    beam = _beam(module, 1)(x, LENGTHS, flat=True)
    torch.testing.assert_close(beam, greedy)
    wide = _beam(module, 3)(x, LENGTHS, flat=True)
    assert wide.shape == greedy.shape
    blocks = 2 if interleaved else 1
    torch.testing.assert_close(wide.exp().sum(-1), torch.full((len(x),), float(blocks)))


@pytest.mark.parametrize("attention", [True, False])
@pytest.mark.parametrize("interleaved", [False, True])
def test_a_beam_that_holds_every_sequence_gives_the_exact_marginals(attention, interleaved):
    """Beam as wide as the number of label sequences: its per-step distribution
    is the marginal of each step's label, summed over every sequence scored by
    teacher forcing."""
    import itertools
    module = _module(attention, interleaved=interleaved)
    length = 2 if interleaved else 3
    n_steps = length * (2 if interleaved else 1)
    x, _ = _inputs(torch.tensor([length]))
    lengths = torch.tensor([length])
    sequences = list(itertools.product(range(N_LABELS), repeat=n_steps))
    marginals = torch.zeros(n_steps, N_LABELS)
    log_probs = []
    with torch.no_grad():
        for labels in sequences:
            labels = torch.tensor(labels)
            if interleaved:
                gold = labels[0::2] * N_LABELS + labels[1::2]
                y = module(x, lengths, flat=True, gold=gold).reshape(n_steps, N_LABELS)
            else:
                y = module(x, lengths, flat=True, gold=labels)
            log_probs.append(y.gather(1, labels[:, None]).sum())
    weights = torch.softmax(torch.stack(log_probs), 0)
    for w, labels in zip(weights, sequences):
        marginals[torch.arange(n_steps), torch.tensor(labels)] += w
    with torch.no_grad():
        beam = _beam(module, len(sequences))(x, lengths, flat=True).reshape(n_steps, N_LABELS)
    torch.testing.assert_close(beam.exp(), marginals.clamp_min(1e-6) /
                               marginals.clamp_min(1e-6).sum(1, keepdim=True),
                               rtol=1e-4, atol=1e-5)


def test_beam_search_is_for_inference_and_batch_invariant():
    module = _module(True)
    x, gold = _inputs()
    greedy_in_training = module.train()(x, LENGTHS, flat=True)
    module.beam_width = 4
    torch.testing.assert_close(module(x, LENGTHS, flat=True), greedy_in_training)  # training
    torch.testing.assert_close(module(x, LENGTHS, flat=True, gold=gold),
                               _module(True).train()(x, LENGTHS, flat=True, gold=gold))
    module.eval()
    together = _split(module(x, LENGTHS, flat=True))
    for doc, xs in enumerate(_split(x)):
        alone = module(xs, torch.tensor([len(xs)]), flat=True)
        torch.testing.assert_close(alone, together[doc], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="beam_width must be a positive integer, got 0"):
        Seq2SeqLabeller(cell="lstm", input_width=3, width=6, n_labels=2, beam_width=0)


# interleaved: two labels per token, 2T decoder steps; gold pair (a, b) as a * N_LABELS + b

@pytest.mark.parametrize("attention", [True, False])
def test_interleaved_steps_are_each_fed_the_label_before_them(attention):
    module = _module(attention, interleaved=True)
    x, _ = _inputs()
    generator = torch.Generator().manual_seed(2)
    gold = torch.randint(0, N_LABELS ** 2, (len(x),), generator=generator)
    y = module(x, LENGTHS, flat=True, gold=gold)
    assert y.shape == (len(x), 2 * N_LABELS)
    torch.testing.assert_close(y.exp().sum(-1), torch.full((len(x),), 2.0))
    a, b = gold // N_LABELS, gold % N_LABELS
    # token 1's first label (a) changed: only token 1's second step reads it first
    z = module(x, LENGTHS, flat=True, gold=((a + (torch.arange(len(x)) == 1)) % N_LABELS)
               * N_LABELS + b)
    torch.testing.assert_close(z[:1], y[:1])
    torch.testing.assert_close(z[1, :N_LABELS], y[1, :N_LABELS])
    assert not torch.allclose(z[1, N_LABELS:], y[1, N_LABELS:])
    torch.testing.assert_close(z[4:], y[4:])  # the other docs
    # token 1's second label (b) changed: token 1 unchanged, token 2's first step is fed it
    z = module(x, LENGTHS, flat=True, gold=a * N_LABELS + (b + (torch.arange(len(x)) == 1))
               % N_LABELS)
    torch.testing.assert_close(z[:2], y[:2])
    assert not torch.allclose(z[2, :N_LABELS], y[2, :N_LABELS])


@pytest.mark.parametrize("teacher", [True, False])
def test_interleaved_greedy_decoding_and_batch_invariance(teacher):
    module = _module(True, interleaved=True)
    x, _ = _inputs()
    greedy = module(x, LENGTHS, flat=True)
    own = greedy[:, :N_LABELS].argmax(-1) * N_LABELS + greedy[:, N_LABELS:].argmax(-1)
    torch.testing.assert_close(module(x, LENGTHS, flat=True, gold=own), greedy)
    gold = own.flip(0) if teacher else None
    together = _split(module(x, LENGTHS, flat=True, gold=gold))
    for doc, xs in enumerate(_split(x)):
        gs = None if gold is None else _split(gold)[doc]
        alone = module(xs, torch.tensor([len(xs)]), flat=True, gold=gs)
        torch.testing.assert_close(alone, together[doc], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"Gold label ids must be in \[-1, 25\)"):
        module(x, LENGTHS, flat=True, gold=torch.full((len(x),), 25))


def test_attention_weights_sum_to_one_over_the_docs_own_tokens():
    module = _module(True)
    x, _ = _inputs()
    packing = Packing(LENGTHS, x.device)
    _, weights = module.run_with_weights(packing.from_flat(x), packing)
    weights = packing.to_flat(weights)  # (n_tokens, longest doc), the docs in order
    for length, rows in zip(LENGTHS.tolist(), _split(weights)):
        torch.testing.assert_close(rows[:, :length].sum(-1), torch.ones(length))
        assert bool((rows[:, length:] == 0).all())
        assert bool((rows[:, :length] > 0).all())


def test_gold_labels_are_checked():
    module = _module()
    x, gold = _inputs()
    for bad in (5, -2):
        wrong = gold.clone()
        wrong[0] = bad
        with pytest.raises(ValueError, match=r"Gold label ids must be in \[-1, 5\)"):
            module(x, LENGTHS, flat=True, gold=wrong)
    with pytest.raises(ValueError, match=r"Expected gold labels of shape \(9,\), got \(8,\)"):
        module(x, LENGTHS, flat=True, gold=gold[:-1])


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("decoder_cell", CELLS)
def test_every_encoder_and_decoder_cell_runs(cell, decoder_cell):
    bidirectional = cell != "srn"
    module = _module(attention=cell != "gru", cell=cell, decoder_cell=decoder_cell,
                     bidirectional=bidirectional)
    x, gold = _inputs()
    x.requires_grad_()
    y = module(x, LENGTHS, flat=True, gold=gold)
    assert y.shape == (int(LENGTHS.sum()), N_LABELS)
    torch.testing.assert_close(y.exp().sum(-1), torch.ones(len(y)))
    y[torch.arange(len(y)), gold].sum().backward()
    assert x.grad is not None and bool(x.grad.abs().sum() > 0)
    assert module.decoder.weight_x.grad.abs().sum() > 0
    greedy = module(x, LENGTHS, flat=True)
    assert greedy.shape == y.shape


def test_resizing_the_labels_resizes_the_label_embedding():
    module = Seq2SeqLabeller(cell="lstm", input_width=3, width=4, n_labels=0)
    module.resize_labels(7)
    assert module.label_embed.num_embeddings == 8  # the start symbol and 7 labels
    assert module.n_labels == 7


# --- the component --------------------------------------------------------------

TRAIN = [
    ("I like green eggs", ["PRP", "VBP", "JJ", "NNS"]),
    ("Eat blue ham", ["VB", "JJ", "NN"]),
    ("She likes ham", ["PRP", "VBZ", "NN"]),
]
TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 16,
           "depth": 1, "embed_size": 300, "window_size": 1, "maxout_pieces": 2,
           "subword_features": True}


def _model(attention=True, version=1, **overrides):
    return {"@architectures": f"spacy-elstm.Seq2SeqTagger.v{version}", "width": 16,
            "attention": attention, "period": 4, "label_width": 8, "tok2vec": TOK2VEC,
            **overrides}


def _nlp(attention=True, factory="elstm_tagger", version=1, **overrides):
    nlp = spacy.blank("en")
    nlp.add_pipe(factory, config={"model": _model(attention, version, **overrides)})
    return nlp


def _examples(nlp):
    return [Example.from_dict(nlp.make_doc(text), {"tags": tags}) for text, tags in TRAIN]


def _train(nlp, examples, n_updates):
    fix_random_seed(0)
    optimizer = Adam(0.01)
    nlp.initialize(lambda: examples, sgd=optimizer)
    for _ in range(n_updates):
        nlp.update(examples, sgd=optimizer)


@pytest.mark.parametrize("attention,own_predictions", [(True, 0.0), (False, 0.0), (True, 0.3)])
def test_the_tagger_learns_the_training_set(attention, own_predictions):
    nlp = _nlp(attention, own_predictions=own_predictions)
    examples = _examples(nlp)
    _train(nlp, examples, 40)
    for text, tags in TRAIN:
        assert [t.tag_ for t in nlp(text)] == tags
    assert nlp.evaluate(examples)["tag_acc"] == 1.0
    assert "teacher" not in nlp.get_pipe("elstm_tagger").model.attrs  # used up


def test_the_component_teaches_only_in_training():
    nlp = _nlp()
    examples = _examples(nlp)
    _train(nlp, examples, 3)
    tagger = nlp.get_pipe("elstm_tagger")
    docs = [nlp.make_doc(text) for text, _ in TRAIN]
    before = tagger.model.predict(docs)
    # gold tags on the docs, or a teacher handed over, never reach a prediction
    for doc, (_, tags) in zip(docs, TRAIN):
        for token, tag in zip(doc, tags):
            token.tag_ = tag
    set_teacher(tagger.model, [[0] * len(doc) for doc in docs])
    after = tagger.model.predict(docs)
    assert "teacher" not in tagger.model.attrs
    for a, b in zip(before, after):
        numpy.testing.assert_array_equal(a, b)
    # in training the teacher is read: other gold labels, other scores
    scores = []
    for label in (0, 1):
        set_teacher(tagger.model, [[label] * len(doc) for doc in docs])
        scores.append(tagger.model.begin_update(docs)[0][0])
    numpy.testing.assert_array_equal(scores[0][0], scores[1][0])  # token 0: the start symbol
    assert not numpy.allclose(scores[0][1:], scores[1][1:])


def test_update_hands_over_the_gold_label_ids(monkeypatch):
    nlp = _nlp()
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    tagger = nlp.get_pipe("elstm_tagger")
    seen = []
    monkeypatch.setattr(tagger, "_teach", lambda docs, ids: seen.append((docs, ids)))
    partial = Example.from_dict(nlp.make_doc(TRAIN[1][0]), {"tags": ["VB", "", "NN"]})
    tagger.update([examples[0], partial])
    docs, ids = seen[0]
    assert docs == [examples[0].predicted, partial.predicted]
    index = tagger.labels.index
    assert ids == [[index(t) for t in TRAIN[0][1]], [index("VB"), -1, index("NN")]]


def test_models_without_needs_gold_refuse_a_teacher():
    nlp = spacy.blank("en")
    nlp.add_pipe("elstm_tagger")
    model = nlp.get_pipe("elstm_tagger").model
    assert not model.attrs.get("needs_gold")
    with pytest.raises(ValueError, match="does not read gold labels"):
        set_teacher(model, [[0]])


def test_a_docs_prediction_does_not_depend_on_its_batch():
    nlp = _nlp()
    examples = _examples(nlp)
    _train(nlp, examples, 3)
    model = nlp.get_pipe("elstm_tagger").model
    docs = [nlp.make_doc(t) for t in ["ham", "I like green eggs and ham", "", "Eat"]]
    together = model.predict(docs)
    for doc, scores in zip(docs, together):
        numpy.testing.assert_allclose(model.predict([doc])[0], scores, rtol=1e-5, atol=1e-6)


def _recorded_lengths(monkeypatch):
    """The sequence lengths each forward pass of the seq2seq module is given."""
    seen, forward = [], Seq2SeqLabeller.forward

    def recording(self, x, lengths, *args, **kwargs):
        seen.append(lengths.tolist())
        return forward(self, x, lengths, *args, **kwargs)

    monkeypatch.setattr(Seq2SeqLabeller, "forward", recording)
    return seen


@pytest.mark.parametrize("attention", [True, False])
def test_each_sentence_is_decoded_as_its_own_sequence(monkeypatch, attention):
    """The attention's cost is the sum over sentences of their squared lengths:
    the module sees sentences, and a sentence scores as it does alone (v2)."""
    from spacy.tokens import Doc

    nlp = _nlp(attention, version=2)
    examples = _examples(nlp)
    _train(nlp, examples, 2)
    model = nlp.get_pipe("elstm_tagger").model
    words = "I like green eggs Eat blue ham She likes ham".split()
    starts = [True, False, False, False, True, False, False, True, False, False]
    doc = Doc(nlp.vocab, words=words, sent_starts=starts)
    other = Doc(nlp.vocab, words=words[:7] + ["Eat", "green", "eggs"], sent_starts=starts)
    seen = _recorded_lengths(monkeypatch)
    first, second = model.predict([doc, other])
    assert seen == [[4, 3, 3, 4, 3, 3]]
    # the tok2vec's window reaches one word over a boundary; the first sentence is
    # two words from the last, so only a decoder reading the whole doc could tell them apart
    numpy.testing.assert_allclose(first[:4], second[:4], rtol=1e-5, atol=1e-6)
    assert not numpy.allclose(first[7:], second[7:])
    seen.clear()  # training too: teacher forcing on the same sequences
    nlp.update([Example(doc, Doc(nlp.vocab, words=words, sent_starts=starts,
                                 tags=["PRP", "VBP", "JJ", "NNS", "VB", "JJ", "NN", "PRP",
                                       "VBZ", "NN"]))], sgd=Adam(0.01))
    assert seen == [[4, 3, 3]]
    seen.clear()  # a doc without sentence boundaries is one sequence
    model.predict([nlp.make_doc(" ".join(words))])
    assert seen == [[10]]


def test_v1_reads_each_whole_doc_as_it_always_did(monkeypatch):
    from spacy.tokens import Doc

    nlp = _nlp(version=1)
    _train(nlp, _examples(nlp), 2)
    words = "I like green eggs Eat blue ham She likes ham".split()
    starts = [True, False, False, False, True, False, False, True, False, False]
    seen = _recorded_lengths(monkeypatch)
    nlp.get_pipe("elstm_tagger").model.predict([Doc(nlp.vocab, words=words, sent_starts=starts)])
    assert seen == [[10]]


def test_the_tagger_warns_once_about_a_long_doc_without_sentence_boundaries():
    import warnings

    from spacy_elstm.components.token_labeller import LONG_DOC_TOKENS, LongDocWarning

    nlp = _nlp(version=2)
    _train(nlp, _examples(nlp), 1)
    text = " ".join(["ham"] * (LONG_DOC_TOKENS + 1))
    with pytest.warns(LongDocWarning, match=r"elstm_tagger: a doc of \d+ tokens has no "
                                            r"sentence boundaries") as caught:
        nlp(text)
        nlp(text)
    assert len([w for w in caught if issubclass(w.category, LongDocWarning)]) == 1
    nlp = _nlp(version=1)  # v1 reads a doc whole, with sentence boundaries too
    _train(nlp, _examples(nlp), 1)
    nlp.add_pipe("sentencizer", first=True)
    with pytest.warns(LongDocWarning, match=r"is read as one sequence by its model") as caught:
        nlp(" ".join(["ham ."] * (LONG_DOC_TOKENS // 2 + 1)))
    assert len([w for w in caught if issubclass(w.category, LongDocWarning)]) == 1
    plain = spacy.blank("en")  # a tagger that is not a seq2seq model reads docs whole
    plain.add_pipe("elstm_tagger", config={"model": {
        "@architectures": "spacy-elstm.RecurrentTagger.v1", "width": 16, "period": 4,
        "tok2vec": TOK2VEC}})
    plain.initialize(lambda: _examples(plain))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain(text)


def test_to_disk_and_load_give_the_same_predictions(tmp_path):
    nlp = _nlp()
    examples = _examples(nlp)
    _train(nlp, examples, 5)
    texts = [text for text, _ in TRAIN]
    expected = nlp.get_pipe("elstm_tagger").model.predict([nlp.make_doc(t) for t in texts])
    nlp.to_disk(tmp_path)
    other = _nlp()
    fix_random_seed(1)
    other.initialize(lambda: examples)
    before = other.get_pipe("elstm_tagger").model.predict([other.make_doc(texts[0])])[0]
    assert not numpy.allclose(before, expected[0])
    loaded = spacy.load(tmp_path)
    got = loaded.get_pipe("elstm_tagger").model.predict([loaded.make_doc(t) for t in texts])
    for a, b in zip(got, expected):
        numpy.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    assert not loaded.get_pipe("elstm_tagger").model.attrs.get("teacher")



def test_a_trained_pipeline_loads_with_a_beam(tmp_path):
    """beam_width set at load time (spacy.load's config overrides): the same
    weights, beam-search output; a beam of 1 is the greedy output."""
    nlp = _nlp()
    examples = _examples(nlp)
    _train(nlp, examples, 5)
    nlp.to_disk(tmp_path)
    docs = lambda pipeline: [pipeline.make_doc(t) for t, _ in TRAIN]  # noqa: E731
    greedy = nlp.get_pipe("elstm_tagger").model.predict(docs(nlp))
    beamed = spacy.load(tmp_path, config={"components": {"elstm_tagger": {
        "model": {"beam_width": 3}}}})
    assert beamed.config["components"]["elstm_tagger"]["model"]["beam_width"] == 3
    got = beamed.get_pipe("elstm_tagger").model.predict(docs(beamed))
    for a, b in zip(got, greedy):
        assert a.shape == b.shape
        numpy.testing.assert_allclose(numpy.exp(a).sum(1), 1.0, rtol=1e-5)
    assert any(not numpy.allclose(a, b, atol=1e-4) for a, b in zip(got, greedy))
    labels = set(nlp.get_pipe("elstm_tagger").labels)
    assert all(t.tag_ in labels for t in beamed(TRAIN[0][0]))

def test_the_seq_parser_trains_with_a_seq2seq_model():
    nlp = _nlp(factory="elstm_seq_parser", attention=True)
    words = ["She", "likes", "ham"]
    example = Example.from_dict(nlp.make_doc("She likes ham"),
                                {"words": words, "heads": [1, 1, 1],
                                 "deps": ["nsubj", "ROOT", "obj"]})
    _train(nlp, [example], 15)
    doc = nlp("She likes ham")
    assert [t.head.i for t in doc] == [1, 1, 1]
    assert [t.dep_ for t in doc] == ["nsubj", "ROOT", "obj"]


@pytest.mark.parametrize("override,message", [
    ({"cell": "rnn"}, "Unknown cell 'rnn': choose one of 'elstm', 'elstm2', 'lstm', 'gru', 'srn'"),
    ({"decoder_cell": "rnn"},
     "decoder_cell: Unknown cell 'rnn': choose one of 'elstm', 'elstm2', 'lstm', 'gru', 'srn'"),
    ({"decoder_cell": "gru", "gates": "input"},
     "decoder_cell: Cell 'gru' has no gates='input' variant"),
    ({"label_width": 0}, "label_width must be a positive integer, got 0"),
    ({"width": 15}, "width 15 is odd"),
    ({"own_predictions": 1.5}, r"own_predictions must be a number in \[0, 1\], got 1.5"),
    ({"own_predictions": -0.1}, r"own_predictions must be a number in \[0, 1\], got -0.1"),
    ({"beam_width": 0}, "beam_width must be a positive integer, got 0"),
])
def test_bad_arguments_name_the_value_and_the_allowed_ones(override, message):
    with pytest.raises(ValueError, match="spacy-elstm.Seq2SeqTagger.v1: " + message):
        _nlp(**override)


def test_the_architecture_comes_by_entry_point_without_import():
    code = (
        "import sys, spacy\n"
        "assert 'spacy_elstm' not in sys.modules\n"
        "nlp = spacy.blank('en')\n"
        "cfg = {'model': {'@architectures': 'spacy-elstm.Seq2SeqTagger.v1', 'width': 8,\n"
        "       'tok2vec': {'@architectures': 'spacy.HashEmbedCNN.v2', 'pretrained_vectors': None,\n"
        "       'width': 8, 'depth': 1, 'embed_size': 50, 'window_size': 1, 'maxout_pieces': 2,\n"
        "       'subword_features': False}}}\n"
        "nlp.add_pipe('elstm_tagger', config=cfg)\n"
        "print('ok', nlp.get_pipe('elstm_tagger').model.attrs['needs_gold'])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ok True" in result.stdout


def test_a_non_boolean_attention_is_refused_by_the_builder_too():
    # spaCy's config validation refuses it first; called directly, the builder does
    from thinc.api import Linear

    from spacy_elstm.architectures import build_seq2seq_tagger
    with pytest.raises(ValueError, match="spacy-elstm.Seq2SeqTagger.v1: attention must be "
                                         "true or false, got 'yes'"):
        build_seq2seq_tagger(Linear(8, 4), width=8, attention="yes")


def _exposure_script():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parent.parent / "scripts" / "exposure_bias.py"
    spec = importlib.util.spec_from_file_location("exposure_bias", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("n_updates", [3, 40])
def test_exposure_bias_script_counts_greedy_as_the_pipeline_predicts(tmp_path, n_updates):
    import json
    from spacy.tokens import DocBin

    nlp = _nlp()
    examples = _examples(nlp)
    _train(nlp, examples, n_updates)
    nlp.to_disk(tmp_path / "pipeline")
    DocBin(docs=[eg.reference for eg in examples]).to_disk(tmp_path / "dev.spacy")
    _exposure_script().main([str(tmp_path / "pipeline"), str(tmp_path / "dev.spacy"),
                             str(tmp_path / "out.json")])
    steps = json.loads((tmp_path / "out.json").read_text())["steps"]
    assert list(steps) == ["label"] and steps["label"]["labelled"] == 10
    # greedy is what the component predicts at inference
    assert steps["label"]["greedy"] == pytest.approx(100 * nlp.evaluate(examples)["tag_acc"])
    if n_updates == 40:  # learned: both ways right everywhere
        assert steps["label"]["teacher_forced"] == steps["label"]["greedy"] == 100
