"""`spacy-elstm memory`: the memory responses of the ELSTM paper (Eqs. 19, 4, 26,
27) against closed forms worked out by hand, the "A among Bs" data, the errors
of `memory response` on a pipeline, and a tiny `memory among-bs` run."""
import json
import math

import pytest
import torch
from typer.testing import CliRunner

from spacy_elstm.cli.app import app
from spacy_elstm.memory.among_bs import A, B, Detector, Settings, constant_loss, dataset
from spacy_elstm.memory.response import analyse, jacobian_norms, memory_response, trace
from spacy_elstm.pytorch.recurrence import Recurrence

X = [1.0, 0.0, 2.0, -1.0]  # one input feature per step


def sig(v):
    return 1 / (1 + math.exp(-v))


def hand_set(cell, values, recurrent=0.0, **extra):
    """A layer of one unit on one input feature: gate q's pre-activation is
    w_q x + b_q (+ recurrent * h_(t-1)), from ``values`` = {q: (w_q, b_q)}."""
    rnn = Recurrence(cell=cell, input_width=1, hidden_width=1, period=len(X)).double()
    with torch.no_grad():
        for q, (w, b) in values.items():
            block = rnn.spec.block(q, 1)
            rnn.weight_x[block] = w
            rnn.bias[block] = b
        rnn.weight_h.fill_(recurrent)
        for name, value in extra.items():
            getattr(rnn, name).copy_(torch.as_tensor(value, dtype=torch.float64))
    return rnn


def responses(rnn):
    x = torch.tensor(X, dtype=torch.float64).unsqueeze(1)
    with torch.no_grad():
        tr = trace(rnn, x)
    return tr, memory_response(rnn, tr)[:, 0].tolist()


LSTM = {"i": (0.5, 0.1), "f": (-0.3, 1.0), "g": (0.8, -0.2), "o": (0.4, 0.0)}


def lstm_closed_form(scale=(1.0, 1.0, 1.0, 1.0), forget=True):
    f = [sig(-0.3 * x + 1.0) if forget else 1.0 for x in X]
    written = [s * sig(0.5 * x + 0.1) * math.tanh(0.8 * x - 0.2) for s, x in zip(scale, X)]
    return [math.prod(f[k + 1:]) * written[k] for k in range(len(X))]


def test_lstm_response_is_eq_26_and_adds_up_to_the_cell_state():
    tr, found = responses(hand_set("lstm", LSTM))
    assert found == pytest.approx(lstm_closed_form(), abs=1e-12)
    # with c_0 = 0 the responses are the terms of c_T (Eq. 8)
    assert sum(found) == pytest.approx(float(tr.c[-1, 0]), abs=1e-12)


def test_elstm_response_is_eq_27_and_with_unit_scales_the_lstms():
    scale = [[2.0], [0.5], [1.5], [3.0]]
    _, found = responses(hand_set("elstm", LSTM, scale=scale))
    assert found == pytest.approx(lstm_closed_form([s[0] for s in scale]), abs=1e-12)
    # s_k = 1 (the initial value): the LSTM's response, with recurrent weights too
    elstm = hand_set("elstm", LSTM, recurrent=0.7)
    lstm = hand_set("lstm", LSTM, recurrent=0.7)
    assert responses(elstm)[1] == pytest.approx(responses(lstm)[1], abs=1e-12)


def test_elstm2_response_has_no_forget_product():
    values = {q: LSTM[q] for q in ("i", "g", "o")}
    scale = [[2.0], [0.5], [1.5], [3.0]]
    tr, found = responses(hand_set("elstm2", values, scale=scale))
    assert found == pytest.approx(lstm_closed_form([s[0] for s in scale], forget=False), abs=1e-12)
    assert sum(found) == pytest.approx(float(tr.c[-1, 0]), abs=1e-12)


def test_gru_response_is_eq_19_and_adds_up_to_the_output():
    values = {"r": (0.2, 0.0), "z": (0.6, 0.3), "n": (-0.9, 0.1)}
    tr, found = responses(hand_set("gru", values, bias_hn=[0.0]))
    z = [sig(0.6 * x + 0.3) for x in X]
    n = [math.tanh(-0.9 * x + 0.1) for x in X]
    expected = [math.prod(z[k + 1:]) * (1 - z[k]) * n[k] for k in range(len(X))]
    assert found == pytest.approx(expected, abs=1e-12)
    assert sum(found) == pytest.approx(float(tr.h[-1, 0]), abs=1e-12)


def test_srn_response_is_eq_4():
    _, found = responses(hand_set("srn", {"h": (1.5, -0.5)}, recurrent=0.6))
    expected = [0.6 ** (len(X) - 1 - k) * (1.5 * x - 0.5) for k, x in enumerate(X)]
    assert found == pytest.approx(expected, abs=1e-12)


def test_a_backward_layer_answers_in_the_sentences_order():
    torch.manual_seed(0)
    forward = Recurrence(cell="elstm", input_width=3, hidden_width=2, period=5).double()
    backward = Recurrence(cell="elstm", input_width=3, hidden_width=2, period=5,
                          reverse=True).double()
    backward.load_state_dict(forward.state_dict())
    x = torch.randn(5, 3, dtype=torch.float64)
    ours = analyse(backward, x)
    theirs = analyse(forward, x.flip(0))
    assert ours["output_position"] == 1 and theirs["output_position"] == 5
    assert torch.allclose(torch.tensor(ours["response"]), torch.tensor(theirs["response"]).flip(0))
    assert ours["jacobian_norm"] == pytest.approx(theirs["jacobian_norm"][::-1])


def test_jacobian_norms_are_autograds():
    torch.manual_seed(1)
    rnn = Recurrence(cell="lstm", input_width=3, hidden_width=4).double()
    x = torch.randn(6, 3, dtype=torch.float64)
    jac = torch.autograd.functional.jacobian(
        lambda v: rnn(v, torch.tensor([6]), flat=True)[-1], x)  # (4, 6, 3)
    expected = jac.pow(2).sum(dim=(0, 2)).sqrt()
    assert jacobian_norms(rnn, x).tolist() == pytest.approx(expected.tolist(), abs=1e-10)


@pytest.mark.parametrize("length", [2, 3, 10])
def test_among_bs_data_has_t_positives_and_one_negative(length):
    tokens, labels = dataset(length)
    assert tokens.shape == (length + 1, length)
    assert labels.tolist() == [1.0] * length + [0.0]
    positives = tokens[:length]
    assert ((positives == A).sum(dim=1) == 1).all()  # one A each ...
    assert sorted((positives == A).nonzero()[:, 1].tolist()) == list(range(length))  # ... once each
    assert (tokens[length] == B).all()
    assert constant_loss(length) == pytest.approx(
        float(torch.nn.functional.binary_cross_entropy(torch.full((length + 1,), length / (length + 1)), labels)))


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="Unknown cell 'lstmx'"):
        Settings(cells=("lstmx",)).check()
    with pytest.raises(ValueError, match="length T must be an integer >= 2"):
        Settings(lengths=(1,)).check()


def invoke(*args):
    return CliRunner().invoke(app, ["memory", *map(str, args)])


def test_tiny_among_bs_run_writes_json_and_plots(tmp_path):
    out = tmp_path / "run"
    result = invoke("among-bs", "--cells", "lstm,elstm", "--lengths", "3", "--seeds", "2",
                    "--max-updates", "3", "--no-progress", "--output", out)
    assert result.exit_code == 0, result.output
    data = json.loads((out / "among-bs.json").read_text())
    assert len(data["runs"]) == 4 and {r["cell"] for r in data["summary"]} == {"lstm", "elstm"}
    assert all(r["updates"] == 3 and len(r["losses"]) == r["epochs"] for r in data["runs"])
    assert (out / "loss.png").stat().st_size > 0
    # the detectors it saved answer `memory response`
    response = invoke("response", out / "models" / "elstm-T3.pt", "BAB",
                      "--output", tmp_path / "resp")
    assert response.exit_code == 0, response.output
    found = json.loads((tmp_path / "resp" / "response.json").read_text())
    assert found["tokens"] == ["B", "A", "B"] and len(found["scale"]) == 3
    assert (tmp_path / "resp" / "response.png").is_file()


def test_a_wider_among_bs_run_has_responses_per_unit(tmp_path):
    out = tmp_path / "run"
    result = invoke("among-bs", "--cells", "lstm,elstm", "--lengths", "10", "--seeds", "1",
                    "--max-updates", "7", "--hidden", "3", "--loss-every", "2", "--no-progress",
                    "--output", out)
    assert result.exit_code == 0, result.output
    data = json.loads((out / "among-bs.json").read_text())
    assert data["settings"]["hidden_width"] == 3 and data["settings"]["loss_every"] == 2
    for run in data["runs"]:  # 3 updates an epoch: 3 epochs, losses kept at epochs 1 and 3
        assert run["epochs"] == 3 and run["loss_epochs"] == [1, 3] and len(run["losses"]) == 2
    # the Fig. 5 sample of T = 10 (A at 9): a response per position and unit, its norm per position
    responses = {r["cell"]: r for r in data["responses"]}
    assert set(responses) == {"lstm", "elstm"}
    for r in responses.values():
        assert r["T"] == 10 and r["position"] == 9 and r["hidden_width"] == 3
        assert len(r["response"]) == 10 and all(len(row) == 3 for row in r["response"])
        assert r["response_norm"] == pytest.approx(
            [math.sqrt(sum(v * v for v in row)) for row in r["response"]], rel=1e-5)  # 6 digits
        assert len(r["read_weight"]) == 3
    assert all(len(f"{v:.6g}") >= len(repr(v)) for v in responses["lstm"]["response_norm"])
    assert len(responses["elstm"]["scale"]) == 10 and len(responses["elstm"]["scale"][0]) == 3
    assert (out / "response-T10.png").stat().st_size > 0 and (out / "loss.png").is_file()
    saved = torch.load(out / "models" / "elstm-T10.pt", weights_only=True)
    assert saved["hidden_width"] == 3


def test_among_bs_bad_hidden_is_one_line():
    result = invoke("among-bs", "--hidden", "0")
    assert result.exit_code == 1
    assert result.output.strip() == ("spacy-elstm memory among-bs: --hidden must be an "
                                     "integer >= 1, got 0.")


def test_among_bs_bad_lengths_are_one_line():
    result = invoke("among-bs", "--lengths", "10,x")
    assert result.exit_code == 1
    assert result.output.strip() == ("spacy-elstm memory among-bs: --lengths takes integers "
                                     "separated by commas, got '10,x'.")


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    from pipeline_utils import trained_nlp

    nlp, _ = trained_nlp("elstm", n_iter=2)
    path = tmp_path_factory.mktemp("nlp") / "elstm"
    nlp.to_disk(path)
    return path


def test_response_on_a_pipeline_layer(pipeline, tmp_path):
    result = invoke("response", pipeline, "She reads long books", "--direction", "backward",
                    "--output", tmp_path)
    assert result.exit_code == 0, result.output
    found = json.loads((tmp_path / "response.json").read_text())
    assert found["tokens"] == ["She", "reads", "long", "books"]
    assert found["direction"] == "backward" and found["output_position"] == 1
    assert len(found["response"]) == 4 and len(found["response"][0]) == 16  # width 32, two ways
    assert len(found["scale"]) == 4 and len(found["jacobian_norm"]) == 4
    assert (tmp_path / "response.png").is_file()


@pytest.mark.parametrize("args,message", [
    (["--layer", "1"], "--layer 1 does not exist: the encoder of 'tok2vec' has 1 layer(s), "
                       "choose 0..0."),
    (["--direction", "up"], "--direction 'up': choose 'forward' or 'backward'."),
    (["--component", "tagger"], "component 'tagger' holds no spacy-elstm recurrent encoder "
                                "(RecurrentEncoder or DBRNN); components with one: 'tok2vec'."),
    (["--component", "ner"], "the pipeline has no component 'ner': choose one of 'tok2vec', "
                             "'tagger', 'parser'."),
])
def test_response_errors_are_one_line(pipeline, tmp_path, args, message):
    result = invoke("response", pipeline, "She reads", *args, "--output", tmp_path)
    assert result.exit_code == 1
    assert result.output.strip() == f"spacy-elstm memory response: {message}"


def test_response_on_a_folder_that_is_no_pipeline(tmp_path):
    result = invoke("response", tmp_path / "missing", "She reads")
    assert result.exit_code == 1
    assert result.output.strip() == (f"spacy-elstm memory response: {tmp_path / 'missing'}: "
                                     "no such pipeline folder.")


@pytest.mark.parametrize("cell,gates", [("lstm", "recurrent"), ("elstm", "recurrent"),
                                        ("elstm", "input"), ("elstm2", "recurrent"),
                                        ("gru", "recurrent"), ("srn", "recurrent")])
@pytest.mark.parametrize("reverse", [False, True])
def test_the_trace_is_the_layers_own_forward_pass(cell, gates, reverse):
    torch.manual_seed(2)
    rnn = Recurrence(cell=cell, input_width=3, hidden_width=4, period=3, gates=gates,
                     reverse=reverse).double()
    if rnn.scale is not None:
        with torch.no_grad():
            rnn.scale.uniform_(0.5, 2.0)
    x = torch.randn(7, 3, dtype=torch.float64)
    with torch.no_grad():
        tr = trace(rnn, x)
        y = rnn(x, torch.tensor([7]), flat=True)
        mr = memory_response(rnn, tr)
    assert torch.allclose(tr.h.flip(0) if reverse else tr.h, y)
    if cell != "srn":  # the responses are the terms of the last state
        state = tr.c[-1] if tr.c is not None else tr.h[-1]
        assert torch.allclose(mr.sum(0), state)


# "A among Bs" is solvable at every T by construction: hand-set weights that
# hold the A's presence for any length, through the experiment's own Detector.
K = 10.0  # a saturating pre-activation: sigmoid(10) = 1 - 4.5e-5


def solve(detector, scale=None, state_bias=None):
    """Set ``detector``'s weights to the construction: embedding A -> (1, 0),
    B -> (0, 1); no recurrent weights; unit 0 writes +1 into its memory on an A
    and nothing on a B (its input gate open on A, shut on B, its candidate 0 on
    B), keeps it on B (forget gate saturated open; the GRU's update gate z), and
    shows it (output gate open); the affine map reads unit 0 with a threshold
    halfway between what it shows without and with an A. Every other unit is
    zero. ELSTMs: ``scale`` (T, N) and ``state_bias`` (N), if given, replace
    the initial s = 1 and b = 0 (the threshold then follows b and the
    smallest s)."""
    rnn = detector.rnn
    n = rnn.hidden_width
    with torch.no_grad():
        detector.embed.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0]]))
        for param in (rnn.weight_x, rnn.weight_h, rnn.bias, rnn.bias_hn):
            if param is not None:
                param.zero_()
        width = rnn.spec.n_gates * n
        for copy in range(rnn.weight_x.shape[0] // width):  # a second-order cell's S copies alike
            w, b = rnn.weight_x[copy * width:(copy + 1) * width], rnn.bias[copy * width:(copy + 1) * width]

            def unit0(gate):
                return rnn.spec.block(gate, n).start

            if rnn.cell == "gru":
                w[unit0("z"), 0], w[unit0("z"), 1] = -K, K  # replace h on A, keep it on B
                w[unit0("n"), 0] = K  # the candidate: 1 on A, 0 on B
            else:
                w[unit0("i"), 0], w[unit0("i"), 1] = K, -K
                w[unit0("g"), 0] = K
                b[unit0("o")] = K
                if rnn.spec.index("f") >= 0:
                    b[unit0("f")] = K
        low, high = 0.0, math.tanh(1.0)
        if rnn.scale is not None:
            if scale is not None:
                rnn.scale.copy_(scale)
            if state_bias is not None:
                rnn.state_bias.copy_(state_bias)
            s, bias = float(rnn.scale[:, 0].min()), float(rnn.state_bias[0])
            low, high = math.tanh(bias), math.tanh(bias + 0.9 * s)  # 0.9: sigmoid(K)^1000 > 0.95
        detector.read.weight.zero_()
        detector.read.weight[0, 0] = 200.0 / (high - low)
        detector.read.bias.fill_(-200.0 / (high - low) * (low + high) / 2)
    return detector


def whole_set_loss(detector, length):
    tokens, labels = dataset(length)
    with torch.no_grad():
        logits = detector(tokens)
    loss = float(torch.nn.functional.binary_cross_entropy_with_logits(logits, labels))
    return loss, ((logits > 0).float() == labels).all().item()


@pytest.mark.parametrize("cell", ["lstm", "elstm", "elstm2", "gru", "solstm"])
@pytest.mark.parametrize("length", [10, 100, 1000])
def test_hand_set_weights_solve_any_t(cell, length):
    detector = solve(Detector(cell=cell, length=length))
    loss, right = whole_set_loss(detector, length)
    assert right and loss < 1e-6, (loss, constant_loss(length))


@pytest.mark.parametrize("length", [10, 100, 1000])
def test_hand_set_weights_solve_any_t_with_any_positive_scaling_factors(length):
    """The ELSTM's learned form: s_k > 0 per position, any b inside tanh(c + b);
    eight units, the construction in the first."""
    gen = torch.Generator().manual_seed(length)
    detector = Detector(cell="elstm", length=length, hidden_width=8)
    scale = 0.5 + 1.5 * torch.rand(length, 8, generator=gen)  # in [0.5, 2)
    state_bias = 2 * torch.rand(8, generator=gen) - 1  # in [-1, 1)
    loss, right = whole_set_loss(solve(detector, scale, state_bias), length)
    assert right and loss < 1e-6


def test_without_a_saturated_forget_gate_the_construction_forgets():
    """The control: the forget gate at the package's initial bias (+1) lets
    the A at position 1 fade over T = 100, so the first positive is lost."""
    detector = solve(Detector(cell="lstm", length=100))
    with torch.no_grad():
        detector.rnn.bias[detector.rnn.spec.block("f", 1)] = 1.0
    loss, right = whole_set_loss(detector, 100)
    assert not right
