"""The sequence labellers: the DBRNN's three heads and their gradient routing
(Su & Kuo, Sec. 4.2), and the elstm_tagger component built on them."""
import subprocess
import sys

import numpy
import pytest
import spacy
import torch
from spacy.training import Example
from thinc.api import Adam, fix_random_seed

from spacy_elstm.pytorch import CELLS, DBRNNLabeller, head_losses, weighted_loss
from spacy_elstm.components.elstm_tagger import ELSTMTagger

LENGTHS = torch.tensor([4, 2, 3])


def _dbrnn(cell: str = "elstm", n_labels: int = 5) -> DBRNNLabeller:
    torch.manual_seed(0)
    return DBRNNLabeller(cell=cell, input_width=3, width=4, n_labels=n_labels, period=3)


def _grads(module, loss):
    module.zero_grad(set_to_none=True)
    loss.backward()
    return {name: p.grad for name, p in module.named_parameters()}


def _is_zero(grad) -> bool:
    return grad is None or bool((grad == 0).all())


@pytest.mark.parametrize("cell", CELLS)
def test_losses_reach_the_parts_of_sec_4_2(cell):
    """e_f reaches the upper forward RNN (and its head) and the lower BRNN, never
    the upper backward RNN; e_b the reverse; e everything, the pooling included."""
    module = _dbrnn(cell)
    x = torch.randn(int(LENGTHS.sum()), 3)
    gold = torch.tensor([0, 1, 2, 3, 4, 0, 1, 2, 3])
    owners = {"forward": ("dbrnn.upper.layer.upper_forward.", "heads.0."),
              "backward": ("dbrnn.upper.layer.upper_backward.", "heads.1."),
              "pool": ("pool.",), "lower": ("dbrnn.lower.",)}
    reaches = {1: {"forward", "lower"}, 2: {"backward", "lower"},
               0: {"forward", "backward", "pool", "lower"}}
    for head, parts in reaches.items():
        loss = head_losses(module(x, LENGTHS, flat=True), gold, n_heads=3)[head]
        grads = _grads(module, loss)
        for part, prefixes in owners.items():
            mine = [g for n, g in grads.items() if n.startswith(prefixes)]
            assert mine, part
            if part in parts:
                assert not all(_is_zero(g) for g in mine), (head, part)
            else:
                assert all(_is_zero(g) for g in mine), (head, part)


def test_pooled_prediction_is_a_convex_combination():
    module = _dbrnn()
    with torch.no_grad():
        module.pool.logits.copy_(torch.tensor([0.7, -1.2]))
    x = torch.randn(int(LENGTHS.sum()), 3)
    log_p, log_pf, log_pb = module.run_heads(*_packed(x))
    w_f, w_b = torch.softmax(torch.tensor([0.7, -1.2]), dim=0)
    torch.testing.assert_close(log_p.exp(), w_f * log_pf.exp() + w_b * log_pb.exp())
    torch.testing.assert_close(log_p.exp().sum(-1), torch.ones(len(x)))
    assert torch.allclose(module.pool_weights.sum(), torch.tensor(1.0))


def _packed(x):
    from spacy_elstm.pytorch import Packing
    packing = Packing(LENGTHS, x.device)
    return packing.from_flat(x), packing


def test_missing_gold_label_gives_no_loss_and_no_gradient():
    log_probs = torch.log_softmax(torch.randn(4, 3 * 5), dim=-1).requires_grad_()
    gold = torch.tensor([1, -1, 4, 0])
    loss = weighted_loss(log_probs, gold, (1.0, 0.5, 2.0))
    loss.backward()
    assert bool((log_probs.grad[1] == 0).all())
    assert not bool((log_probs.grad[0] == 0).all())
    known = [0, 2, 3]
    again = weighted_loss(log_probs[known], gold[known], (1.0, 0.5, 2.0))
    torch.testing.assert_close(loss, again)


# --- the component -------------------------------------------------------------

TRAIN = [
    ("I like green eggs", ["PRP", "VBP", "JJ", "NNS"], ["PRON", "VERB", "ADJ", "NOUN"],
     ["Case=Nom", "Tense=Pres", "Degree=Pos", "Number=Plur"]),
    ("Eat blue ham", ["VB", "JJ", "NN"], ["VERB", "ADJ", "NOUN"],
     ["Mood=Imp", "Degree=Pos", "Number=Sing"]),
    ("She likes ham", ["PRP", "VBZ", "NN"], ["PRON", "VERB", "NOUN"],
     ["Case=Nom", "Tense=Pres", "Number=Sing"]),
]
GOLD_KEY = {"tag": "tags", "pos": "pos", "morph": "morphs"}
MODELS = {
    "dbrnn": {"@architectures": "spacy-elstm.DBRNNTagger.v1", "width": 16, "cell": "elstm",
              "period": 4, "loss_pooled": 1.0, "loss_forward": 0.5, "loss_backward": 0.5},
    "brnn": {"@architectures": "spacy-elstm.RecurrentTagger.v1", "width": 16, "cell": "gru"},
    "rnn": {"@architectures": "spacy-elstm.RecurrentTagger.v1", "width": 16, "cell": "lstm",
            "bidirectional": False},
}
TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 16,
           "depth": 1, "embed_size": 300, "window_size": 1, "maxout_pieces": 2,
           "subword_features": True}


def _nlp(model="dbrnn", attr="tag"):
    nlp = spacy.blank("en")
    nlp.add_pipe("elstm_tagger", config={"attr": attr,
                                         "model": {**MODELS[model], "tok2vec": TOK2VEC}})
    return nlp


def _examples(nlp, attr):
    column = {"tag": 1, "pos": 2, "morph": 3}[attr]
    return [Example.from_dict(nlp.make_doc(row[0]), {GOLD_KEY[attr]: row[column]})
            for row in TRAIN]


def _train(nlp, examples, n_updates=30):
    fix_random_seed(0)
    nlp.initialize(lambda: examples)
    optimizer = Adam(0.01)
    losses = []
    for _ in range(n_updates):
        step = {}
        nlp.update(examples, sgd=optimizer, losses=step)
        losses.append(step["elstm_tagger"])
    return losses


@pytest.mark.parametrize("model,attr", [("dbrnn", "tag"), ("brnn", "pos"), ("rnn", "morph")])
def test_component_learns_the_training_labels(model, attr):
    nlp = _nlp(model, attr)
    examples = _examples(nlp, attr)
    losses = _train(nlp, examples)
    assert losses[-1] < 0.5 * losses[0], losses
    getter = {"tag": lambda t: t.tag_, "pos": lambda t: t.pos_, "morph": lambda t: str(t.morph)}
    column = {"tag": 1, "pos": 2, "morph": 3}[attr]
    for row in TRAIN:
        assert [getter[attr](t) for t in nlp(row[0])] == row[column]
    scores = nlp.evaluate(examples)
    assert scores[f"{attr}_acc"] == 1.0


def test_missing_gold_tag_gives_no_gradient_in_the_component():
    nlp = _nlp()
    examples = _examples(nlp, "tag")
    nlp.initialize(lambda: examples)
    tagger = nlp.get_pipe("elstm_tagger")
    doc = nlp.make_doc(TRAIN[0][0])
    partial = Example.from_dict(doc, {"tags": ["PRP", "", "JJ", "NNS"]})
    full = Example.from_dict(doc, {"tags": TRAIN[0][1]})
    scores = tagger.model.predict([doc])
    loss_partial, d_partial = tagger.get_loss([partial], scores)
    loss_full, d_full = tagger.get_loss([full], scores)
    assert not d_partial[0][1].any() and d_full[0][1].any()
    numpy.testing.assert_array_equal(d_partial[0][[0, 2, 3]], d_full[0][[0, 2, 3]])
    # the missing token's share of the loss, weighted per head, is what is left out
    vbp = tagger.labels.index("VBP")
    n = len(tagger.labels)
    share = -sum(w * scores[0][1, k * n + vbp]
                 for k, w in enumerate(tagger.model.attrs["loss_weights"]))
    assert loss_full - loss_partial == pytest.approx(float(share), rel=1e-5)


def test_to_disk_and_load_give_the_same_predictions(tmp_path):
    nlp = _nlp()
    examples = _examples(nlp, "tag")
    _train(nlp, examples, n_updates=5)
    texts = [row[0] for row in TRAIN] + ["ham"]
    expected = [nlp.get_pipe("elstm_tagger").model.predict([nlp.make_doc(t)])[0] for t in texts]
    nlp.to_disk(tmp_path)

    other = _nlp()
    fix_random_seed(1)
    other.initialize(lambda: examples)
    before = other.get_pipe("elstm_tagger").model.predict([nlp.make_doc(texts[0])])[0]
    assert not numpy.allclose(before, expected[0])

    loaded = spacy.load(tmp_path)
    tagger = loaded.get_pipe("elstm_tagger")
    assert tagger.labels == nlp.get_pipe("elstm_tagger").labels
    for text, scores in zip(texts, expected):
        numpy.testing.assert_allclose(tagger.model.predict([loaded.make_doc(text)])[0], scores,
                                      rtol=1e-6, atol=1e-6)
    assert [t.tag_ for t in loaded(texts[0])] == [t.tag_ for t in nlp(texts[0])]
    assert loaded.get_pipe("elstm_tagger").from_bytes(tagger.to_bytes()).labels == tagger.labels


def test_unknown_attr_names_the_allowed_ones():
    with pytest.raises(ValueError, match="unknown attr 'lemma': choose one of 'tag', 'pos', 'morph'"):
        _nlp(attr="lemma")


def test_unknown_cell_names_the_allowed_ones():
    nlp = spacy.blank("en")
    bad = {**MODELS["dbrnn"], "cell": "transformer", "tok2vec": TOK2VEC}
    with pytest.raises(ValueError, match="spacy-elstm.DBRNNTagger.v1: Unknown cell 'transformer': "
                                         "choose one of 'elstm', 'elstm2', 'lstm', 'gru', 'srn'"):
        nlp.add_pipe("elstm_tagger", config={"model": bad})


def test_normalize_divides_the_loss_and_its_gradient_by_the_labelled_tokens():
    nlp = _nlp()
    examples = _examples(nlp, "tag")
    nlp.initialize(lambda: examples)
    tagger = nlp.get_pipe("elstm_tagger")
    examples[1].reference[0].tag_ = ""  # a missing gold tag: not counted
    scores = tagger.model.predict([eg.predicted for eg in examples])
    assert not tagger.normalize
    summed, d_summed = tagger.get_loss(examples, scores)
    tagger.cfg["normalize"] = True
    mean, d_mean = tagger.get_loss(examples, scores)
    n_labelled = sum(len(eg.reference) for eg in examples) - 1
    assert mean == pytest.approx(summed / n_labelled)
    for a, b in zip(d_mean, d_summed):
        numpy.testing.assert_allclose(a, b / n_labelled, rtol=1e-6)


def test_a_pipeline_saved_before_normalize_existed_sums():
    nlp = _nlp()
    tagger = nlp.get_pipe("elstm_tagger")
    del tagger.cfg["normalize"]
    assert tagger.normalize is False


@pytest.mark.parametrize("factory", ["elstm_tagger", "elstm_seq_parser"])
def test_a_bad_normalize_is_refused(factory):
    with pytest.raises(ValueError, match="normalize.*'yes'"):
        spacy.blank("en").add_pipe(factory, config={"normalize": "yes"})
    model = _nlp().get_pipe("elstm_tagger").model
    with pytest.raises(ValueError, match="normalize must be true or false, got 1"):
        ELSTMTagger(spacy.blank("en").vocab, model, normalize=1)


def test_all_zero_loss_weights_are_refused():
    nlp = spacy.blank("en")
    bad = {**MODELS["dbrnn"], "loss_pooled": 0, "loss_forward": 0, "loss_backward": 0,
           "tok2vec": TOK2VEC}
    with pytest.raises(ValueError, match="are all zero"):
        nlp.add_pipe("elstm_tagger", config={"model": bad})


def test_factory_and_architectures_come_by_entry_point_without_import():
    code = (
        "import sys, spacy\n"
        "assert 'spacy_elstm' not in sys.modules\n"
        "nlp = spacy.blank('en')\n"
        "nlp.add_pipe('elstm_tagger')\n"
        "cfg = {'model': {'@architectures': 'spacy-elstm.RecurrentTagger.v1', 'width': 8,\n"
        "       'tok2vec': {'@architectures': 'spacy.HashEmbedCNN.v2', 'pretrained_vectors': None,\n"
        "       'width': 8, 'depth': 1, 'embed_size': 50, 'window_size': 1, 'maxout_pieces': 2,\n"
        "       'subword_features': False}}}\n"
        "nlp.add_pipe('elstm_tagger', name='second', config=cfg)\n"
        "print('ok', nlp.pipe_names)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ok" in result.stdout


def test_dbrnn_tagger_reads_a_shared_tok2vec():
    """The labeller as a listener of a tok2vec component: it trains through it."""
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": {
        "@architectures": "spacy.Tok2Vec.v2",
        "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 16,
                  "attrs": ["NORM", "SHAPE"], "rows": [300, 30],
                  "include_static_vectors": False},
        "encode": {"@architectures": "spacy-elstm.RecurrentEncoder.v1", "width": 16,
                   "cell": "srn"}}})
    listener = {"@architectures": "spacy.Tok2VecListener.v1", "width": 16, "upstream": "*"}
    nlp.add_pipe("elstm_tagger", config={"model": {**MODELS["dbrnn"], "tok2vec": listener}})
    examples = _examples(nlp, "tag")
    losses = _train(nlp, examples)
    assert losses[-1] < 0.5 * losses[0], losses
    assert [t.tag_ for t in nlp(TRAIN[0][0])] == TRAIN[0][1]


MACRO_TAGGERS = ["brnn_tagger", "dbrnn_tagger", "seq2seq_attention_tagger",
                 "label_recurrent_tagger"]


def test_the_macro_tagger_configs_differ_in_their_model_only():
    """project.yml's taggers command compares them: the same embedding, training and data."""
    from pathlib import Path

    root = Path(__file__).parent.parent
    configs = {}
    for name in MACRO_TAGGERS:
        config = spacy.util.load_config(root / "configs" / "labeller" / f"{name}.cfg",
                                        interpolate=False)
        model = config["components"]["elstm_tagger"].pop("model")
        configs[name] = (config, model.pop("tok2vec"))
        assert model["cell"] == "elstm" and model["period"] == 100
    first = configs[MACRO_TAGGERS[0]]
    for name in MACRO_TAGGERS[1:]:
        assert configs[name] == first, name


@pytest.mark.parametrize("name", MACRO_TAGGERS + ["tuned_dbrnn_tagger", "tuned_brnn_tagger"])
def test_the_tagger_config_is_valid(tmp_path, name):
    from pathlib import Path

    from spacy.cli.debug_config import debug_config
    from spacy.cli.init_config import fill_config

    root = Path(__file__).parent.parent
    path = root / "configs" / "labeller" / f"{name}.cfg"
    debug_config(path, overrides={"paths.train": str(root / "assets/ud-ewt-sample/train.conllu"),
                                  "paths.dev": str(root / "assets/ud-ewt-sample/dev.conllu")})
    filled = tmp_path / "filled.cfg"
    fill_config(filled, path)
    config = spacy.util.load_config(filled)
    nlp = spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
    assert nlp.pipe_names == ["elstm_tagger"]
    assert nlp.get_pipe("elstm_tagger").attr == ("pos" if name.startswith("tuned") else "tag")


@pytest.mark.parametrize("name", ["dbrnn_tagger", "brnn_tagger"])
def test_the_tuned_tagger_config_has_best_elstms_embedding_and_training(name):
    """configs/labeller/tuned_<name>.cfg says it is <name>.cfg's model with
    the embedding and training of configs/best_elstm.cfg as the accuracy search
    made it (its word features as wide as the model, as in
    experiments/speed/best_elstm_wide_words.cfg): hold it to that."""
    from pathlib import Path

    root = Path(__file__).parent.parent
    tuned = spacy.util.load_config(root / "configs" / "labeller" / f"tuned_{name}.cfg",
                                   interpolate=False)
    best = spacy.util.load_config(
        root / "configs" / "experiments" / "speed" / "best_elstm_wide_words.cfg", interpolate=False)
    base = spacy.util.load_config(root / "configs" / "labeller" / f"{name}.cfg",
                                  interpolate=False)
    model = tuned["components"]["elstm_tagger"]["model"]
    embed, best_embed = model["tok2vec"]["embed"], best["components"]["tok2vec"]["model"]["embed"]
    assert embed["words"]["width"] == embed["width"]  # the word features as wide as the embedding
    for section in (embed, embed["words"], best_embed, best_embed["words"]):
        section.pop("width")  # each a reference to its own config's width
    assert embed == best_embed
    assert model["width"] == best["components"]["tok2vec"]["model"]["encode"]["width"]
    for key in ("dropout", "batcher", "optimizer"):
        assert tuned["training"][key] == best["training"][key], key
    base_model = base["components"]["elstm_tagger"]["model"]
    assert model["@architectures"] == base_model["@architectures"]
    assert {k: v for k, v in model.items() if k not in ("tok2vec", "width", "dropout")} == \
        {k: v for k, v in base_model.items() if k not in ("tok2vec", "width", "dropout")}
    assert model["dropout"] == best["training"]["dropout"]


def test_the_tuned_taggers_differ_in_their_model_only():
    """tuned_brnn_tagger.cfg and tuned_dbrnn_tagger.cfg: the same tok2vec and
    training, one the BRNN and one the DBRNN."""
    from pathlib import Path

    folder = Path(__file__).parent.parent / "configs" / "labeller"
    configs = []
    for name in ("tuned_brnn_tagger", "tuned_dbrnn_tagger"):
        config = spacy.util.load_config(folder / f"{name}.cfg", interpolate=False)
        model = config["components"]["elstm_tagger"].pop("model")
        configs.append((config, model.pop("tok2vec"), model["@architectures"]))
    (brnn, brnn_t2v, brnn_arch), (dbrnn, dbrnn_t2v, dbrnn_arch) = configs
    assert brnn == dbrnn and brnn_t2v == dbrnn_t2v
    assert (brnn_arch, dbrnn_arch) == ("spacy-elstm.RecurrentTagger.v1",
                                       "spacy-elstm.DBRNNTagger.v1")


def _weights(model):
    """Every weight of a model: its thinc parameters and its torch modules' parameters."""
    found = [node.get_param(name).copy() for node in model.walk() for name in node.param_names
             if node.has_param(name)]
    found += [p.detach().numpy().copy() for node in model.walk() for shim in node.shims
              for p in shim._model.parameters()]
    return found


@pytest.mark.parametrize("max_grad_norm", [0.0, 1e-3])
def test_max_grad_norm_clips_all_the_models_gradients_together(max_grad_norm):
    from thinc.api import SGD

    nlp = _nlp()
    examples = _examples(nlp, "tag")
    fix_random_seed(0)
    nlp.initialize(lambda: examples)
    tagger = nlp.get_pipe("elstm_tagger")
    tagger.cfg["max_grad_norm"] = max_grad_norm
    before = _weights(tagger.model)
    # plain SGD at rate 1, nothing else: the weights move by exactly the gradients
    tagger.update(examples, sgd=SGD(1.0, L2=0.0, grad_clip=0.0, use_averages=False))
    moved = float(numpy.sqrt(sum(((a - b) ** 2).sum()
                                 for a, b in zip(_weights(tagger.model), before))))
    if max_grad_norm:
        # thinc's tok2vec and the torch labeller together move by max_grad_norm in all
        assert moved == pytest.approx(max_grad_norm, rel=1e-3)
    else:
        assert moved > 0.1  # far more: the clipped run is clipped


def test_clip_grad_norm_counts_thinc_and_torch_gradients_once_each():
    from thinc.api import Linear, chain
    from spacy_elstm.layers.grad_norm import clip_grad_norm
    from spacy_elstm.layers.torch_shim import torch_layer

    thinc_layer = Linear(2, 3)
    thinc_layer.initialize()
    module = torch.nn.Linear(3, 2)
    wrapped = torch_layer(module, convert_inputs=None, convert_outputs=None)
    model = chain(thinc_layer, wrapped, wrapped)  # the torch layer twice: counted once
    thinc_layer.set_grad("W", numpy.full((2, 3), 1.0, dtype="f"))  # 6 ones
    thinc_layer.set_grad("b", numpy.zeros((2,), dtype="f"))
    module.weight.grad = torch.full((2, 3), 1.0)  # 6 more
    module.bias.grad = torch.full((2,), 2.0)  # 2 twos: 6 + 6 + 8 = 20
    assert clip_grad_norm(model, 100.0) == pytest.approx(20 ** 0.5)
    assert thinc_layer.get_grad("W")[0, 0] == 1.0  # under the bound: untouched
    assert clip_grad_norm(model, 1.0) == pytest.approx(20 ** 0.5)
    assert clip_grad_norm(model, 100.0) == pytest.approx(1.0, rel=1e-5)
    assert float(module.bias.grad[0]) == pytest.approx(2 / 20 ** 0.5, rel=1e-5)


@pytest.mark.parametrize("factory", ["elstm_tagger", "elstm_seq_parser"])
def test_a_bad_max_grad_norm_is_refused(factory):
    with pytest.raises(ValueError, match=f"{factory}: max_grad_norm must be a number >= 0 "
                                         r"\(0: no clipping\), got -1"):
        spacy.blank("en").add_pipe(factory, config={"max_grad_norm": -1})
