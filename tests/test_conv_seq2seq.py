"""The convolutional seq2seq (pytorch/conv_seq2seq.py, spacy-elstm.ConvSeq2SeqTagger.v1):
causal decoding, teacher forcing in one pass equal to decoding step by step,
attention over a sequence's own tokens, the interleaved output, and the model
in the elstm_tagger and elstm_seq_parser components."""
import numpy
import pytest
import spacy
import torch
from spacy.training import Example
from thinc.api import Adam, fix_random_seed

from autoregressive_utils import check_missing_gold_is_replaced_by_the_prediction

from spacy_elstm.pytorch import ConvSeq2SeqLabeller, Packing
from spacy_elstm.pytorch.packed_conv import convolve, window_rows

LENGTHS = torch.tensor([4, 2, 0, 3])
N_LABELS = 5


def _module(interleaved=False, dropout=0.0, kernel_size=3, input_width=3, dtype=torch.float32):
    torch.manual_seed(0)
    module = ConvSeq2SeqLabeller(input_width=input_width, width=6, n_labels=N_LABELS,
                                 enc_layers=2, dec_layers=2, kernel_size=kernel_size,
                                 label_width=4, dropout=dropout, interleaved=interleaved,
                                 n_positions=6)
    with torch.no_grad():  # larger weights, so that labels and positions matter visibly
        for param in module.parameters():
            param.mul_(3.0)
    return module.to(dtype)


def _inputs(lengths=LENGTHS, seed=1, top=N_LABELS, dtype=torch.float32):
    generator = torch.Generator().manual_seed(seed)
    n = int(lengths.sum())
    return (torch.randn(n, 3, generator=generator, dtype=dtype),
            torch.randint(0, top, (n,), generator=generator))


def _split(y, lengths=LENGTHS):
    return list(torch.split(y, lengths.tolist()))


# --- convolutions on the packed layout ---------------------------------------------

@pytest.mark.parametrize("kernel_size", [1, 2, 3, 4])
@pytest.mark.parametrize("causal", [False, True])
def test_a_packed_convolution_is_torchs_on_each_sequence_alone(kernel_size, causal):
    torch.manual_seed(0)
    conv = torch.nn.Conv1d(3, 5, kernel_size).double()
    lengths = torch.tensor([4, 1, 0, 6, 3])
    x = torch.randn(int(lengths.sum()), 3, dtype=torch.float64)
    packing = Packing(lengths, x.device)
    before = kernel_size - 1 if causal else (kernel_size - 1) // 2
    rows = window_rows(packing, range(-before, kernel_size - before))
    y = packing.to_flat(convolve(conv, packing.from_flat(x), rows))
    for xs, ys in zip(_split(x, lengths), _split(y, lengths)):
        if not len(xs):
            continue  # torch refuses an empty sequence
        padded = torch.nn.functional.pad(xs.T[None], (before, kernel_size - 1 - before))
        torch.testing.assert_close(ys, conv(padded)[0].T, rtol=1e-12, atol=1e-12)


# --- the torch module -----------------------------------------------------------

@pytest.mark.parametrize("interleaved", [False, True])
def test_the_output_is_one_distribution_per_step_in_one_row_per_token(interleaved):
    module = _module(interleaved)
    blocks = 2 if interleaved else 1
    x, gold = _inputs(top=N_LABELS ** blocks)
    for fed in (gold, None):
        y = module(x, LENGTHS, flat=True, gold=fed)
        assert y.shape == (len(x), blocks * N_LABELS)
        torch.testing.assert_close(y.exp().sum(-1), torch.full((len(x),), float(blocks)))
    padded = module(torch.zeros(4, 5, 3), LENGTHS)
    assert padded.shape == (4, 5, blocks * N_LABELS)
    assert bool((padded[1, 2:] == 0).all()) and bool((padded[2] == 0).all())


def test_an_output_depends_on_the_labels_before_it_only():
    """Causality: changing the label fed at step t (gold label t - 1) leaves the
    steps before t as they were and changes step t."""
    module = _module()
    x, gold = _inputs()
    y = module(x, LENGTHS, flat=True, gold=gold)
    for t in range(1, 4):  # doc 0
        changed = gold.clone()
        changed[t - 1] = (gold[t - 1] + 1) % N_LABELS
        z = module(x, LENGTHS, flat=True, gold=changed)
        torch.testing.assert_close(z[:t], y[:t])
        assert not torch.allclose(z[t], y[t])
        torch.testing.assert_close(z[4:], y[4:])  # the other docs


def test_an_output_depends_on_every_token_of_its_sequence():
    """Through the attention, step 0 already reads the last token."""
    module = _module()
    x, gold = _inputs()
    y = module(x, LENGTHS, flat=True, gold=gold)
    changed = x.clone()
    changed[3] += 1.0  # doc 0's last token
    z = module(changed, LENGTHS, flat=True, gold=gold)
    assert not torch.allclose(z[0], y[0])
    torch.testing.assert_close(z[4:], y[4:])


@pytest.mark.parametrize("kernel_size", [1, 2, 3, 4])
def test_one_pass_is_the_step_by_step_decoder_fed_the_same_labels(kernel_size):
    """The causal convolutions of the one pass (teacher forcing) and the
    convolution windows kept step by step (greedy decoding) give the same
    numbers for the same labels, in float64 to the last digits."""
    module = _module(kernel_size=kernel_size, dtype=torch.float64)
    x, gold = _inputs(dtype=torch.float64)
    packing = Packing(LENGTHS, x.device)
    memory = module.encode(packing.from_flat(x), packing)
    fed = packing.from_flat(gold)
    one_pass = module.teacher_forced(memory, packing, fed)
    stepwise = module.greedy(memory, packing, fed)
    assert one_pass.shape == (len(x), N_LABELS)
    torch.testing.assert_close(stepwise, one_pass, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("interleaved", [False, True])
def test_greedy_decoding_feeds_back_its_own_predictions(interleaved):
    module = _module(interleaved)
    x, gold = _inputs(top=N_LABELS ** (2 if interleaved else 1))
    greedy = module(x, LENGTHS, flat=True)
    own = greedy[:, :N_LABELS].argmax(-1)
    if interleaved:
        own = own * N_LABELS + greedy[:, N_LABELS:].argmax(-1)
    torch.testing.assert_close(module(x, LENGTHS, flat=True, gold=own), greedy)
    assert not torch.allclose(greedy, module(x, LENGTHS, flat=True, gold=gold))


def test_a_missing_gold_label_is_replaced_by_the_prediction():
    module = _module()
    x, gold = _inputs()
    check_missing_gold_is_replaced_by_the_prediction(module, x, gold, LENGTHS)


def test_interleaved_steps_are_each_fed_the_label_before_them():
    """Token t's relation a and head b are steps 2t and 2t + 1: a reaches
    token t's second block first, b token t + 1's first block."""
    module = _module(interleaved=True)
    x, _ = _inputs()
    gold = _inputs(top=N_LABELS ** 2, seed=2)[1]
    y = module(x, LENGTHS, flat=True, gold=gold)
    a, b = gold // N_LABELS, gold % N_LABELS
    token_1 = (torch.arange(len(x)) == 1).long()
    z = module(x, LENGTHS, flat=True, gold=(a + token_1) % N_LABELS * N_LABELS + b)
    torch.testing.assert_close(z[:1], y[:1])
    torch.testing.assert_close(z[1, :N_LABELS], y[1, :N_LABELS])
    assert not torch.allclose(z[1, N_LABELS:], y[1, N_LABELS:])
    torch.testing.assert_close(z[4:], y[4:])
    z = module(x, LENGTHS, flat=True, gold=a * N_LABELS + (b + token_1) % N_LABELS)
    torch.testing.assert_close(z[:2], y[:2])
    assert not torch.allclose(z[2, :N_LABELS], y[2, :N_LABELS])


@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("teacher", [True, False])
def test_a_docs_output_does_not_depend_on_its_batch(interleaved, teacher):
    """Neither the encoder's convolutions nor the attention read another
    sequence's tokens or the padding."""
    module = _module(interleaved)
    x, gold = _inputs(top=N_LABELS ** (2 if interleaved else 1))
    gold = gold if teacher else None
    together = _split(module(x, LENGTHS, flat=True, gold=gold))
    for doc, xs in enumerate(_split(x)):
        gs = None if gold is None else _split(gold)[doc]
        alone = module(xs, torch.tensor([len(xs)]), flat=True, gold=gs)
        torch.testing.assert_close(alone, together[doc], rtol=1e-5, atol=1e-6)


def test_positions_beyond_the_table_share_its_last_row():
    module = _module()  # n_positions = 6
    x, gold = _inputs(torch.tensor([9]))
    y = module(x, torch.tensor([9]), flat=True, gold=gold)
    assert y.shape == (9, N_LABELS) and bool(torch.isfinite(y).all())


def test_gradients_match_finite_differences():
    module = _module(interleaved=True, dtype=torch.float64)
    x, gold = _inputs(torch.tensor([3, 2]), top=N_LABELS ** 2, dtype=torch.float64)
    lengths = torch.tensor([3, 2])
    x.requires_grad_()
    assert torch.autograd.gradcheck(lambda x: module(x, lengths, flat=True, gold=gold), (x,))
    # and the decoder's own weights: its last convolution's g and v, the label embedding
    names = ["decoder_layers.1.conv.parametrizations.weight.original0",
             "decoder_layers.1.conv.parametrizations.weight.original1", "label_embed.weight"]
    params = {n: p.detach().clone().requires_grad_() for n, p in module.named_parameters()
              if n in names}

    def with_params(*values):
        return torch.func.functional_call(module, dict(zip(names, values)),
                                          (x.detach(), lengths), {"flat": True, "gold": gold})

    assert torch.autograd.gradcheck(with_params, tuple(params[n] for n in names))


def test_it_learns_to_copy_its_input_and_decodes_it_greedily():
    """A copy task: each step must find its own token through the attention
    (the decoder sees the input nowhere else). Learned in 300 small batches,
    then greedy decoding of new sequences gives them back."""
    n_symbols = 3

    def batch(generator, n):
        lengths = torch.randint(2, 9, (n,), generator=generator)
        symbols = torch.randint(0, n_symbols, (int(lengths.sum()),), generator=generator)
        return torch.nn.functional.one_hot(symbols, n_symbols).float(), lengths, symbols

    torch.manual_seed(0)
    module = ConvSeq2SeqLabeller(input_width=n_symbols, width=32, n_labels=n_symbols,
                                 enc_layers=1, dec_layers=2, label_width=16)
    optimizer = torch.optim.Adam(module.parameters(), lr=0.005)
    generator = torch.Generator().manual_seed(0)
    for _ in range(300):
        x, lengths, gold = batch(generator, 16)
        loss = -module(x, lengths, flat=True, gold=gold)[torch.arange(len(gold)), gold].mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    x, lengths, gold = batch(torch.Generator().manual_seed(99), 64)
    with torch.no_grad():
        predicted = module.eval()(x, lengths, flat=True).argmax(-1)
    copied = [bool(p.equal(g)) for p, g in zip(_split(predicted, lengths), _split(gold, lengths))]
    assert sum(copied) >= 60, f"{sum(copied)} of 64 sequences copied"


def test_dropout_acts_in_training_only():
    module = _module(dropout=0.5)
    x, gold = _inputs()
    predicted = module.eval()(x, LENGTHS, flat=True, gold=gold)
    torch.testing.assert_close(module(x, LENGTHS, flat=True, gold=gold), predicted)
    assert not torch.allclose(module.train()(x, LENGTHS, flat=True, gold=gold), predicted)


def test_gold_labels_are_checked():
    module = _module()
    x, gold = _inputs()
    wrong = gold.clone()
    wrong[0] = N_LABELS
    with pytest.raises(ValueError, match=r"Gold label ids must be in \[-1, 5\)"):
        module(x, LENGTHS, flat=True, gold=wrong)
    with pytest.raises(ValueError, match=r"Expected gold labels of shape \(9,\), got \(8,\)"):
        module(x, LENGTHS, flat=True, gold=gold[:-1])


def test_resizing_the_labels_resizes_the_label_embedding_and_the_head():
    module = ConvSeq2SeqLabeller(input_width=3, width=4, n_labels=0, label_width=4)
    module.resize_labels(7)
    assert module.label_embed.num_embeddings == 8  # the start symbol and 7 labels
    assert module.heads[0].weight.shape == (7, 4) and module.n_labels == 7
    # Gehring et al.'s initialisation: embeddings N(0, 0.1), a zero bias
    assert 0.02 < float(module.label_embed.weight.detach().std()) < 0.3
    assert bool((module.heads[0].bias == 0).all())


def test_every_layer_is_weight_normalised_from_gehring_et_als_initialisation():
    from torch.nn.utils import parametrize

    torch.manual_seed(0)
    module = ConvSeq2SeqLabeller(input_width=64, width=64, n_labels=0, label_width=32,
                                 dropout=0.2)
    layers = [m for m in module.modules() if isinstance(m, (torch.nn.Linear, torch.nn.Conv1d))]
    assert len(layers) == 1 + 1 + 4 + 1 + 1 + 4 * 3 + 1 + 1  # the head waits for its labels
    assert isinstance(module.source_map, torch.nn.Linear)  # 64 -> 32
    assert all(parametrize.is_parametrized(m, "weight") for m in layers if m is not module.heads[0])
    module.resize_labels(3)
    assert parametrize.is_parametrized(module.heads[0], "weight")
    # W = g v / |v| starts as the initialisation: before a GLU N(0, sqrt(4 p / n)), n = k * 64
    conv = module.encoder_convs[0].weight.detach()
    assert abs(float(conv.std()) / (4 * 0.8 / (3 * 64)) ** 0.5 - 1) < 0.05
    names = {n for n, _ in module.named_parameters()}
    assert "encoder_convs.0.parametrizations.weight.original0" in names  # g
    assert "heads.0.parametrizations.weight.original1" in names  # v


@pytest.mark.parametrize("arg,value", [("kernel_size", 0), ("enc_layers", 0), ("dropout", 1.0),
                                       ("n_positions", -1)])
def test_the_module_refuses_bad_sizes(arg, value):
    kwargs = {"input_width": 3, "width": 4, "n_labels": 2, arg: value}
    with pytest.raises(ValueError, match=f"{arg} must be .*, got {value}"):
        ConvSeq2SeqLabeller(**kwargs)


# --- the components --------------------------------------------------------------

TRAIN = [
    ("I like green eggs", ["PRP", "VBP", "JJ", "NNS"]),
    ("Eat blue ham", ["VB", "JJ", "NN"]),
    ("She likes ham", ["PRP", "VBZ", "NN"]),
]
TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 16,
           "depth": 1, "embed_size": 300, "window_size": 1, "maxout_pieces": 2,
           "subword_features": True}
NAME = "spacy-elstm.ConvSeq2SeqTagger.v1"


def _nlp(factory="elstm_tagger", settings=None, **overrides):
    nlp = spacy.blank("en")
    model = {"@architectures": NAME, "width": 16, "enc_layers": 2, "dec_layers": 2,
             "dropout": 0.0, "tok2vec": TOK2VEC, **overrides}
    nlp.add_pipe(factory, config={"model": model, **(settings or {})})
    return nlp


def _train(nlp, examples, n_updates):
    fix_random_seed(0)
    optimizer = Adam(0.01)
    nlp.initialize(lambda: examples, sgd=optimizer)
    for _ in range(n_updates):
        nlp.update(examples, sgd=optimizer)


def test_the_tagger_learns_the_training_set():
    nlp = _nlp()
    examples = [Example.from_dict(nlp.make_doc(text), {"tags": tags}) for text, tags in TRAIN]
    _train(nlp, examples, 30)
    for text, tags in TRAIN:
        assert [t.tag_ for t in nlp(text)] == tags
    model = nlp.get_pipe("elstm_tagger").model
    assert model.attrs["needs_gold"] and model.attrs["per_sentence"]
    assert "teacher" not in model.attrs  # used up


def test_the_interleaved_parser_learns_a_sentence():
    nlp = _nlp("elstm_seq_parser", {"encoding": "interleaved"}, interleaved=True)
    example = Example.from_dict(nlp.make_doc("She likes ham"),
                                {"heads": [1, 1, 1], "deps": ["nsubj", "ROOT", "obj"]})
    _train(nlp, [example], 30)
    doc = nlp("She likes ham")
    assert [(t.head.i, t.dep_) for t in doc] == [(1, "nsubj"), (1, "ROOT"), (1, "obj")]


def test_the_paper_config_trains_on_the_sample_and_saves_and_loads(sample_corpus, tmp_path):
    """configs/paper/dep_convseq2seq.cfg, made small: a few NAG updates on the
    committed EWT sample, then the saved pipeline predicts as the trained one."""
    from spacy.training.initialize import init_nlp
    from spacy.util import load_config, minibatch, registry

    from spacy_elstm.training.readers import create_gold_lemma_reader

    config = load_config(
        spacy.util.ensure_path(__file__).parent.parent / "configs/paper/dep_convseq2seq.cfg",
        overrides={"paths.train": str(sample_corpus / "train.spacy"),
                   "paths.dev": str(sample_corpus / "dev.spacy"),
                   "components.elstm_seq_parser.model.width": 16,
                   "components.elstm_seq_parser.model.enc_layers": 2,
                   "components.elstm_seq_parser.model.dec_layers": 2,
                   "components.elstm_seq_parser.model.tok2vec.*.embed.layer.nO": 16,
                   "components.elstm_seq_parser.model.tok2vec.*.embed.layer.nV": 1000})
    fix_random_seed(0)
    nlp = init_nlp(config)
    optimizer = registry.resolve({"o": config["training"]["optimizer"]})["o"]
    assert type(optimizer).__name__ == "NesterovSGD"
    train = list(create_gold_lemma_reader(sample_corpus / "train.spacy", gold_preproc=True)(nlp))
    parser = nlp.get_pipe("elstm_seq_parser")
    docs = [eg.predicted for eg in
            create_gold_lemma_reader(sample_corpus / "dev.spacy", gold_preproc=True)(nlp)][:8]
    before = parser.model.predict(docs)
    losses = []
    for batch in list(minibatch(train[:60], 20)):
        step = {}
        nlp.update(batch, sgd=optimizer, losses=step)
        losses.append(step["elstm_seq_parser"])
    assert all(numpy.isfinite(losses))
    expected = parser.model.predict(docs)
    assert not numpy.allclose(expected[0], before[0])
    nlp.to_disk(tmp_path)
    loaded = spacy.load(tmp_path)
    got = loaded.get_pipe("elstm_seq_parser").model.predict(docs)
    for a, b in zip(got, expected):
        numpy.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    parsed = [loaded.get_pipe("elstm_seq_parser")(doc.copy()) for doc in docs[:3]]
    again = [parser(doc.copy()) for doc in docs[:3]]
    assert [[t.head.i for t in d] for d in parsed] == [[t.head.i for t in d] for d in again]


@pytest.mark.parametrize("override,message", [
    ({"kernel_size": 0}, "kernel_size must be a positive integer, got 0"),
    ({"enc_layers": 0}, "enc_layers must be a positive integer, got 0"),
    ({"dec_layers": -2}, "dec_layers must be a positive integer, got -2"),
    ({"label_width": 0}, "label_width must be a positive integer, got 0"),
    ({"n_positions": 0}, "n_positions must be a positive integer, got 0"),
    ({"dropout": 1.0}, r"dropout must be a number in \[0, 1\), got 1.0"),
    ({"width": 0}, "width must be a positive integer, got 0"),
])
def test_bad_arguments_name_the_value_and_the_allowed_ones(override, message):
    with pytest.raises(ValueError, match=f"{NAME}: {message}"):
        _nlp(**override)


def test_the_label_width_is_the_tok2vecs_unless_given():
    from spacy_elstm.layers.labeller import torch_module

    same = torch_module(_nlp().get_pipe("elstm_tagger").model)
    assert isinstance(same.source_map, torch.nn.Identity) and same.label_embed.embedding_dim == 16
    mapped = torch_module(_nlp(label_width=8).get_pipe("elstm_tagger").model)
    assert mapped.source_map.weight.shape == (8, 16) and mapped.label_embed.embedding_dim == 8
