"""The second-order LSTM (cell = "solstm"): an LSTM when S = 1, gradients,
padding, the temperature's annealing, errors, dispatch and a spaCy pipeline."""
import pytest
import spacy
import torch
from spacy.tokens import Doc, DocBin
from thinc.api import Config

from spacy_elstm.architectures import RECURRENT_ENCODER, RECURRENT_ENCODER_V2
from spacy_elstm.pytorch import Recurrence, RecurrentEncoder, kernels
from spacy_elstm.pytorch.label_recurrence import LabelRecurrentLabeller
from spacy_elstm.pytorch.mode import training_mode
from spacy_elstm.pytorch.second_order import MIN_FACTOR, SecondOrder
from spacy.util import registry

from pipeline_utils import CONFIG, TRAIN, make_examples, trained_nlp
from test_recurrence import gradcheck_input_and_parameters, perturb, random_inputs


def recurrences(model):
    """The Recurrence modules inside a thinc model."""
    return [m for node in model.walk() for shim in node.shims for m in shim._model.modules()
            if isinstance(m, Recurrence)]


def lstm_and_solstm(reverse=False, dtype=torch.float64):
    torch.manual_seed(0)
    lstm = perturb(Recurrence(cell="lstm", input_width=3, hidden_width=4, reverse=reverse))
    solstm = Recurrence(cell="solstm", input_width=3, hidden_width=4, reverse=reverse,
                        second_order=SecondOrder(cells=1))
    solstm.load_state_dict({**lstm.state_dict(), "mixer.weight": torch.randn(1, 3),
                            "mixer.passes": torch.tensor(0)})
    return lstm.to(dtype), solstm.to(dtype)


@pytest.mark.parametrize("reverse", [False, True])
def test_one_cell_is_the_lstm_exactly(reverse):
    """S = 1 with the LSTM's weights: alpha = 1, so the output and every gradient
    are the LSTM's, bit for bit, on the same (reference) loop."""
    lstm, solstm = lstm_and_solstm(reverse)
    x, lengths = random_inputs("cpu", lengths=(6, 2, 5, 1), width=3)
    outs = []
    for module in (lstm, solstm):
        xg = x.clone().requires_grad_()
        with kernels.use("reference"):
            y = module(xg, lengths)
        (y * torch.linspace(-1, 1, y.numel(), dtype=y.dtype).view_as(y)).sum().backward()
        outs.append((y.detach(), xg.grad, module.weight_x.grad, module.weight_h.grad,
                     module.bias.grad))
    for a, b in zip(*outs):
        assert torch.equal(a, b)
    assert torch.equal(solstm.mixer.weight.grad, torch.zeros_like(solstm.mixer.weight))


def test_one_cell_is_torchs_lstm():
    torch.manual_seed(1)
    ref = torch.nn.LSTM(3, 4, batch_first=True).double()
    solstm = Recurrence(cell="solstm", input_width=3, hidden_width=4,
                        second_order=SecondOrder(cells=1)).double()
    with torch.no_grad():
        solstm.weight_x.copy_(ref.weight_ih_l0)
        solstm.weight_h.copy_(ref.weight_hh_l0)
        solstm.bias.copy_(ref.bias_ih_l0 + ref.bias_hh_l0)
    x = torch.randn(2, 5, 3, dtype=torch.float64)
    torch.testing.assert_close(solstm(x, torch.tensor([5, 5])), ref(x)[0])


def test_two_cells_mix_as_eqs_a_to_e():
    """One step by hand: h = sum_s alpha_s h^(s), c likewise, alpha = softmax(Vx / tau)."""
    torch.manual_seed(2)
    rec = perturb(Recurrence(cell="solstm", input_width=3, hidden_width=2,
                             second_order=SecondOrder(cells=2, temperature=0.5))).double().eval()
    x = torch.randn(1, 1, 3, dtype=torch.float64)
    alpha = torch.softmax(rec.mixer.weight @ x[0, 0] / 0.5, 0)
    h = 0
    for s in range(2):
        a = rec.weight_x[8 * s:8 * (s + 1)] @ x[0, 0] + rec.bias[8 * s:8 * (s + 1)]
        i, f, g, o = a.split(2)
        c = torch.sigmoid(i) * torch.tanh(g)  # c_(-1) = 0
        h = h + alpha[s] * torch.sigmoid(o) * torch.tanh(c)
    torch.testing.assert_close(rec(x, torch.tensor([1]))[0, 0], h)


@pytest.mark.parametrize("reverse", [False, True])
def test_gradcheck(reverse):
    rec = perturb(Recurrence(cell="solstm", input_width=3, hidden_width=2, reverse=reverse,
                             second_order=SecondOrder(cells=3, temperature=0.7))).double()
    x, lengths = random_inputs("cpu")
    with training_mode(False):  # the temperature stays where it is
        gradcheck_input_and_parameters(rec, x, lengths)


def test_batch_invariance_of_a_stacked_encoder():
    torch.manual_seed(3)
    model = perturb(RecurrentEncoder(cell="solstm", input_width=4, width=6, depth=2,
                                     second_order=SecondOrder(cells=3))).eval()
    alone = torch.randn(1, 5, 4)
    batch = torch.randn(4, 9, 4) * 3
    batch[2, :5] = alone[0]
    lengths = torch.tensor([9, 2, 5, 7])
    y_batch = model(batch, lengths)
    torch.testing.assert_close(y_batch[2, :5], model(alone, torch.tensor([5]))[0],
                               rtol=1e-5, atol=1e-6)
    batch[2, 5:] = 100.0
    assert torch.equal(model(batch, lengths), y_batch)


def test_the_temperature_anneals_per_training_pass_and_is_saved():
    rec = Recurrence(cell="solstm", input_width=3, hidden_width=2,
                     second_order=SecondOrder(temperature=2.0, anneal=0.5, anneal_every=3))
    x, lengths = torch.randn(1, 4, 3), torch.tensor([4])
    seen = []
    for _ in range(7):
        with training_mode(True):
            rec(x, lengths)
        seen.append(rec.mixer.temperature)
    assert seen == [2.0, 2.0, 1.0, 1.0, 1.0, 0.5, 0.5]  # x 0.5 after passes 3 and 6
    with training_mode(False):
        rec(x, lengths)  # prediction counts nothing
    assert int(rec.mixer.passes) == 7
    rec.mixer.passes.fill_(10 ** 6)
    assert rec.mixer.temperature == 2.0 * MIN_FACTOR  # annealing stops
    other = Recurrence(cell="solstm", input_width=3, hidden_width=2,
                       second_order=SecondOrder(temperature=2.0, anneal=0.5, anneal_every=3))
    other.load_state_dict(rec.state_dict())
    assert other.mixer.temperature == rec.mixer.temperature


def test_pass_p_runs_at_the_temperature_of_p():
    """The first training pass mixes at tau_0, the next at tau_0 * anneal (anneal_every = 1)."""
    rec = Recurrence(cell="solstm", input_width=3, hidden_width=2,
                     second_order=SecondOrder(temperature=1.0, anneal=0.5, anneal_every=1))
    x = torch.randn(4, 3)
    logits = x @ rec.mixer.weight.detach().t()
    for tau in (1.0, 0.5, 0.25):
        with training_mode(True):
            alpha = rec.project(x)[:, -2:]
        torch.testing.assert_close(alpha, torch.softmax(logits / tau, -1))


def test_the_cpp_kernel_or_the_reference_loop_runs_it():
    rec = Recurrence(cell="solstm", input_width=3, hidden_width=2)
    reasons = kernels.explain(rec.problem_for(torch.tensor([3, 2])))
    assert reasons["cpp-onednn"].startswith("cannot: cell 'solstm' mixes several cells")
    assert rec.kernel_for(torch.tensor([3, 2])).kernel in ("cpp", "reference")
    assert rec.kernel_for(torch.tensor([3, 2]), device=torch.device("meta")).kernel == "reference"
    with kernels.use("torch"), pytest.raises(ValueError, match="'solstm' mixes several cells"):
        rec(torch.randn(1, 3, 3), torch.tensor([3]))


@pytest.mark.parametrize("options,message", [
    (dict(cells=0), r"solstm_cells .* integer >= 1, got 0"),
    (dict(cells=1.5), r"solstm_cells .* integer >= 1, got 1.5"),
    (dict(temperature=0.0), r"solstm_temperature .* number > 0, got 0.0"),
    (dict(temperature=-1), r"solstm_temperature .* number > 0, got -1"),
    (dict(anneal=1.5), r"solstm_anneal .* in \(0, 1\], got 1.5"),
    (dict(anneal=0), r"solstm_anneal .* in \(0, 1\], got 0"),
    (dict(anneal_every=0), r"solstm_anneal_every .* integer >= 1, got 0"),
])
def test_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        Recurrence(cell="solstm", input_width=3, hidden_width=2,
                   second_order=SecondOrder(**options))


@pytest.mark.parametrize("args,message", [
    ({"solstm_cells": 0}, r"solstm_cells must be an integer >= 1, got 0"),
    ({"solstm_temperature": 0}, r"solstm_temperature must be a number > 0, got 0"),
    ({"solstm_anneal": 1.1}, r"solstm_anneal must be a number in \(0, 1\], got 1.1"),
    ({"solstm_anneal_every": -2}, r"solstm_anneal_every must be an integer >= 1, got -2"),
])
def test_bad_config_values_are_named(args, message):
    config = Config({"model": {"@architectures": RECURRENT_ENCODER_V2, "width": 8,
                               "cell": "solstm", **args}})
    with pytest.raises(ValueError, match=message) as err:
        registry.resolve(config)
    assert RECURRENT_ENCODER_V2 in str(err.value)


def test_the_architectures_build_it():
    v2 = registry.resolve(Config({"model": {
        "@architectures": RECURRENT_ENCODER_V2, "width": 8, "cell": "solstm", "solstm_cells": 3,
        "solstm_anneal_every": 7}}))["model"]
    rec = recurrences(v2)[0]
    assert rec.mixer.options == SecondOrder(cells=3, anneal_every=7)
    assert rec.weight_x.shape == (3 * 4 * 4, 8)
    v1 = registry.resolve(Config({"model": {"@architectures": RECURRENT_ENCODER, "width": 8,
                                            "cell": "solstm"}}))["model"]
    assert recurrences(v1)[0].mixer.options == SecondOrder()


def test_old_v2_configs_fill_with_the_defaults():
    filled = registry.fill(Config({"model": {"@architectures": RECURRENT_ENCODER_V2,
                                             "width": 8}}))["model"]
    assert (filled["cell"], filled["solstm_cells"]) == ("elstm", 2)


def test_the_label_recurrence_refuses_it():
    with pytest.raises(ValueError, match="'solstm' cannot read previous labels"):
        LabelRecurrentLabeller(variant="i+e-rnn", direction="forward", cell="solstm",
                                input_width=4, width=4, n_labels=3)


# the tests' small tagger + parser pipeline (tests/pipeline_utils.py) on the second-order cell
SOLSTM = {"solstm": '@architectures = "spacy-elstm.RecurrentEncoder.v2"\nwidth = 32\n'
                    'cell = "solstm"\nsolstm_cells = 2\nsolstm_anneal = 0.5\n'
                    'solstm_anneal_every = 2'}


def test_a_pipeline_trains_saves_and_loads(tmp_path):
    nlp, _ = trained_nlp("solstm", n_iter=5, encoders=SOLSTM)
    examples = make_examples(nlp)
    rec = recurrences(nlp.get_pipe("tok2vec").model)[0]
    assert int(rec.mixer.passes) == 5 and rec.mixer.temperature == 0.25
    texts = ["I like ham", "Eat green eggs"]

    def tag_scores(pipeline):
        docs = [pipeline.make_doc(t) for t in texts]
        return pipeline.get_pipe("tagger").predict(list(pipeline.get_pipe("tok2vec").pipe(docs)))

    before = tag_scores(nlp)
    nlp.to_disk(tmp_path / "model")
    fresh = spacy.util.load_model_from_config(nlp.config, auto_fill=True)
    fresh.initialize(lambda: examples)
    assert not all((a == b).all() for a, b in zip(tag_scores(fresh), before))
    loaded = spacy.load(tmp_path / "model")
    for a, b in zip(tag_scores(loaded), before):
        assert (a == b).all()
    loaded_rec = recurrences(loaded.get_pipe("tok2vec").model)[0]
    assert int(loaded_rec.mixer.passes) == 5


def test_fill_config_and_debug_config(tmp_path):
    from spacy.cli.debug_config import debug_config
    from spacy.cli.init_config import fill_config

    nlp = spacy.blank("en")
    corpus = tmp_path / "corpus.spacy"
    DocBin(docs=[Doc(nlp.vocab, words=w, tags=t, heads=h, deps=d)
                 for w, t, h, d in TRAIN]).to_disk(corpus)
    (tmp_path / "base.cfg").write_text(CONFIG.format(encoder=SOLSTM["solstm"]))
    fill_config(tmp_path / "filled.cfg", tmp_path / "base.cfg")
    filled = spacy.util.load_config(tmp_path / "filled.cfg")
    encode = filled["components"]["tok2vec"]["model"]["encode"]
    assert (encode["cell"], encode["solstm_cells"], encode["solstm_temperature"]) == (
        "solstm", 2, 1.0)
    debug_config(tmp_path / "filled.cfg", overrides={"paths.train": str(corpus),
                                                     "paths.dev": str(corpus)})
