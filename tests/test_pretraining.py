"""Next- and previous-word pretraining (spacy-elstm.PretrainNextWord.v1) and the
encoder it needs (RecurrentEncoder.v2 with separate_directions)."""
import json
import subprocess
import sys
from pathlib import Path

import numpy
import pytest
import spacy
import torch
from spacy.util import registry
from thinc.api import Config

from spacy_elstm.training.pretraining import PRETRAIN_NEXT_WORD, targets
from spacy_elstm.pytorch import RecurrentEncoder

ROOT = Path(__file__).parent.parent
CONFIGS = sorted((ROOT / "configs" / "pretrain").glob("*.cfg"))


def encoder(separate, depth=2, layer_norm=True):
    torch.manual_seed(0)
    return RecurrentEncoder(cell="elstm", input_width=6, width=8, depth=depth, period=3,
                                 residual=True, layer_norm=layer_norm, dropout=0.0,
                                 separate_directions=separate).double().eval()


def change_after(x, t):
    y = x.clone()
    y[t + 1 :] += 1.0
    return y


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_each_half_reads_one_direction_only(depth):
    """Changing the words after t leaves the forward half at t unchanged, and
    changing the words before t leaves the backward half unchanged."""
    enc = encoder(True, depth)
    x, lengths = torch.randn(7, 6, dtype=torch.float64), torch.tensor([7])
    out = enc(x, lengths, flat=True)
    for t in range(7):
        later = enc(change_after(x, t), lengths, flat=True)
        torch.testing.assert_close(later[t, :4], out[t, :4])
        earlier = enc(torch.flip(change_after(torch.flip(x, [0]), 6 - t), [0]), lengths, flat=True)
        torch.testing.assert_close(earlier[t, 4:], out[t, 4:])


def test_a_joint_stack_leaks_the_future_into_the_forward_half():
    """What the option is for: in the usual stacked BRNN (or with one layer, its
    layer norm) the forward half at t depends on later words."""
    for enc in (encoder(False, depth=2, layer_norm=False), encoder(False, depth=1)):
        x, lengths = torch.randn(7, 6, dtype=torch.float64), torch.tensor([7])
        out = enc(x, lengths, flat=True)
        later = enc(change_after(x, 2), lengths, flat=True)
        assert (later[2, :4] - out[2, :4]).abs().max() > 1e-6


def test_separate_directions_refuses_what_would_mix_them():
    with pytest.raises(ValueError, match="needs bidirectional = true and projection = false"):
        RecurrentEncoder(cell="lstm", input_width=4, width=4, projection=True,
                              separate_directions=True)
    build = registry.architectures.get("spacy-elstm.RecurrentEncoder.v2")
    with pytest.raises(ValueError, match="got bidirectional = false, projection = false"):
        build(width=4, bidirectional=False, separate_directions=True)


def tok2vec(separate_directions=True, encode=None):
    config = Config().from_str(f"""
[model]
@architectures = "spacy.Tok2Vec.v2"

[model.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 8
attrs = ["NORM"]
rows = [100]
include_static_vectors = false

[model.encode]
@architectures = "spacy-elstm.RecurrentEncoder.v2"
width = 8
depth = 2
separate_directions = {str(separate_directions).lower()}
""")
    if encode is not None:
        config["model"]["encode"] = encode
    return registry.resolve(config)["model"]


def test_the_objective_refuses_encoders_that_read_their_targets():
    create = registry.architectures.get(PRETRAIN_NEXT_WORD)(n_buckets=50)
    nlp = spacy.blank("en")
    create(nlp.vocab, tok2vec(True))
    with pytest.raises(ValueError, match="directions read each other"):
        create(nlp.vocab, tok2vec(False))
    cnn = {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 8, "depth": 1,
           "window_size": 1, "maxout_pieces": 2}
    with pytest.raises(ValueError, match="no recurrent encoder of spacy-elstm"):
        create(nlp.vocab, tok2vec(encode=cnn))
    with pytest.raises(ValueError, match="n_buckets must be an integer >= 2, got 1"):
        registry.architectures.get(PRETRAIN_NEXT_WORD)(n_buckets=1)


def test_targets_are_the_neighbours_classes():
    doc = spacy.blank("en")("a b a")
    a, b = (numpy.uint64(doc[i].norm) % numpy.uint64(7) for i in (0, 1))
    nxt, prev = targets(doc, 7)
    assert nxt.tolist() == [b, a, 7] and prev.tolist() == [7, a, b]


def test_the_objective_learns_to_predict_neighbours():
    """A few updates on a tiny repetitive text: the loss falls well below its start."""
    from thinc.api import Adam

    create = registry.architectures.get(PRETRAIN_NEXT_WORD)(n_buckets=50)
    nlp = spacy.blank("en")
    docs = [nlp("the cat sat on the mat"), nlp("a dog ran to a park")] * 4
    model = create(nlp.vocab, tok2vec(True))
    model.initialize(X=docs[:2])
    loss_fn, optimizer, losses = model.attrs["loss"], Adam(0.01), []
    for _ in range(60):
        predictions, backprop = model.begin_update(docs)
        loss, grads = loss_fn(model.ops, docs, predictions)
        backprop(grads)
        model.finish_update(optimizer)
        losses.append(loss)
    assert losses[-1] < 0.3 * losses[0]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.stem)
def test_spacy_pretrain_then_train_from_its_weights(config, tmp_path, sample_corpus):
    """Each shipped pretraining config end to end: `spacy pretrain` on a small text, then
    `spacy train` starting its tok2vec from the saved weights."""
    text = tmp_path / "text.jsonl"
    lines = [{"text": "the cat sat on the mat ."}, {"text": "a dog ran to a park ."}] * 20
    text.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    out = tmp_path / "pretrain"
    run = [sys.executable, "-m", "spacy", "pretrain", str(config), str(out),
           "--paths.raw_text", str(text), "--pretraining.max_epochs", "2",
           "--pretraining.batcher.size", "20"]
    result = subprocess.run(run, capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    weights = sorted(out.glob("model*.bin"))
    assert weights, result.stdout
    train = [sys.executable, "-m", "spacy", "train", str(config), "--output", str(tmp_path / "t"),
             "--paths.train", str(sample_corpus / "train.spacy"),
             "--paths.dev", str(sample_corpus / "dev.spacy"),
             "--paths.init_tok2vec", str(weights[-1]), "--training.max_steps", "4",
             "--training.eval_frequency", "2", "--verbose"]
    result = subprocess.run(train, capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Loaded pretrained weights" in result.stdout + result.stderr


def test_the_head_and_loss_match_torchs_cross_entropy():
    """Loss and gradients (inputs and weights) of the softmax head against
    autograd through torch's cross-entropy on the same weights and targets."""
    from spacy_elstm.training.pretraining import next_word_head, next_word_loss

    n_buckets, width = 6, 8
    docs = [spacy.blank("en")(text) for text in ("a b a c d", "b c")]
    rng = numpy.random.default_rng(0)
    X = rng.normal(size=(7, width)).astype("float32")
    head = next_word_head(width, n_buckets + 1)
    head.initialize()
    for name in ("W_next", "b_next", "W_prev", "b_prev"):
        head.set_param(name, rng.normal(size=head.get_param(name).shape).astype("float32"))
    probs, backprop = head(X, is_train=True)
    predictions = [probs[:5], probs[5:]]
    loss, grads = next_word_loss(head.ops, docs, predictions, n_buckets)
    dX = backprop(numpy.concatenate(grads))

    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    params = {name: torch.tensor(head.get_param(name), dtype=torch.float64, requires_grad=True)
              for name in ("W_next", "b_next", "W_prev", "b_prev")}
    gold = [numpy.concatenate(parts) for parts in zip(*(targets(doc, n_buckets) for doc in docs))]
    reference = sum(torch.nn.functional.cross_entropy(
        x[:, i * 4 : (i + 1) * 4] @ params[f"W_{name}"].t() + params[f"b_{name}"],
        torch.from_numpy(gold[i]), reduction="sum") for i, name in enumerate(("next", "prev")))
    reference = reference / (2 * x.shape[0])
    reference.backward()
    assert loss == pytest.approx(float(reference.detach()), rel=1e-5)
    numpy.testing.assert_allclose(dX, x.grad.numpy(), rtol=1e-4, atol=1e-6)
    for name, param in params.items():
        numpy.testing.assert_allclose(head.get_grad(name), param.grad.numpy(), rtol=1e-4, atol=1e-6)
