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
                                     "no such pipeline folder or installed package.")


def test_response_takes_a_package_name(pipeline, tmp_path, monkeypatch):
    """An installed pipeline package, as `parse` and `score` take one."""
    import shutil

    import spacy

    package = tmp_path / "en_tiny"
    shutil.copytree(pipeline, package / "en_tiny-0.0.1")
    (package / "meta.json").write_text(json.dumps({"lang": "en", "name": "tiny",
                                                   "version": "0.0.1"}))
    monkeypatch.setattr(spacy.util, "is_package", lambda name: name == "en_tiny")
    monkeypatch.setattr(spacy.util, "get_package_path", lambda name: package)
    monkeypatch.setattr(spacy.util, "load_model_from_package", lambda name, **kwargs:
                        spacy.util.load_model_from_path(package / "en_tiny-0.0.1", **kwargs))
    result = invoke("response", "en_tiny", "She reads", "--output", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "out" / "response.json").read_text())["pipeline"] == "en_tiny"


@pytest.mark.parametrize("command,drawn", [
    (["memory", "response", "missing", "She reads"], "response.png"),
    (["memory", "among-bs"], "loss.png"),
    (["dyck", "OUT"], "NAME-ldpa.png"),
])
def test_without_matplotlib_the_plotting_commands_stop_first_in_one_line(command, drawn,
                                                                         tmp_path, monkeypatch):
    """matplotlib comes with the `project` extra, the command line's; without
    it the commands stop before any work, naming the install."""
    import sys
    import tomllib

    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(r.startswith("matplotlib") for r in extras["project"])
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` fails
    args = [str(tmp_path / "out") if a == "OUT" else a for a in command]
    result = CliRunner().invoke(app, args + (["--output", str(tmp_path / "out")]
                                             if command[0] == "memory" else []))
    assert result.exit_code == 1
    assert result.output == (f"spacy-elstm {' '.join(command[:2]) if command[0] == 'memory' else 'dyck'}: "
                             f"draws {drawn} with matplotlib, which is not installed: "
                             'pip install "spacy-elstm[project]"\n')
    assert not (tmp_path / "out").exists()


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


# the training options of the sweep: optimiser, warm start, T raised by a step, stop loss

from spacy_elstm.memory.among_bs import grow, make_optimizer, solved_through, sweep, train  # noqa: E402
from spacy_elstm.memory.grid import choose, grid  # noqa: E402


@pytest.mark.parametrize("kwargs,message", [
    ({"optimizer": "adamw"}, "Unknown optimizer 'adamw': choose one of 'adam', 'rmsprop', 'sgd'."),
    ({"step": -1}, "step must be an integer >= 0 (0: only the listed lengths), got -1."),
    ({"warm_start": True, "lengths": (20, 10)}, "With warm_start or step the lengths must "
                                                 "rise, got 20, 10."),
    ({"step": 1, "lengths": (10, 10)}, "With warm_start or step the lengths must rise, "
                                       "got 10, 10."),
    ({"stop_loss": 0.5}, "stop_loss must lie in (0, solved_loss = 0.01], got 0.5."),
])
def test_bad_training_options_are_refused(kwargs, message):
    with pytest.raises(ValueError) as err:
        Settings(**kwargs).check()
    assert str(err.value) == message


def test_step_trains_every_kth_t_and_the_listed_ones():
    assert Settings(lengths=(3, 6)).trained_lengths() == (3, 6)
    assert Settings(lengths=(3, 6), step=1).trained_lengths() == (3, 4, 5, 6)
    assert Settings(lengths=(3, 6), step=2).trained_lengths() == (3, 5, 6)


@pytest.mark.parametrize("name,kind", [("adam", torch.optim.Adam), ("rmsprop", torch.optim.RMSprop),
                                       ("sgd", torch.optim.SGD)])
def test_each_optimizer_trains(name, kind):
    optimizer = make_optimizer(name, [torch.nn.Parameter(torch.zeros(1))], 0.1)
    assert isinstance(optimizer, kind)
    assert name != "sgd" or optimizer.defaults["momentum"] == 0.9
    settings = Settings(cells=("lstm",), lengths=(3,), optimizer=name, max_updates=4)
    model, record = train("lstm", 3, 0, settings)
    assert record["updates"] == 4 and record["initial_loss"] != record["final_loss"]


def test_grow_keeps_the_weights_and_gives_new_positions_scale_1():
    torch.manual_seed(0)
    small = Detector(cell="elstm", length=3, hidden_width=2)
    with torch.no_grad():
        small.rnn.scale.fill_(2.0)
    big = grow(small, 5)
    assert big.length == 5 and big.rnn.period == 5
    assert big.rnn.scale.tolist() == [[2.0, 2.0]] * 3 + [[1.0, 1.0]] * 2
    assert torch.equal(big.rnn.weight_x, small.rnn.weight_x)
    assert torch.equal(big.read.weight, small.read.weight)
    assert grow(Detector(cell="lstm", length=3), 4).rnn.scale is None
    with pytest.raises(ValueError, match="cannot grow to the shorter T = 2"):
        grow(small, 2)


@pytest.mark.parametrize("cell", ["lstm", "elstm"])
def test_a_warm_start_from_a_solution_makes_no_update(cell):
    solution = solve(Detector(cell=cell, length=10))
    model, record = train(cell, 20, 0, Settings(cells=(cell,), lengths=(20,)), start=solution)
    assert record["start_T"] == 10 and record["updates"] == 0 and record["stop"] == "solved"
    assert record["solved"] and record["initial_loss"] == record["final_loss"] < 1e-6


def test_a_lower_stop_loss_trains_a_solved_model_on():
    solution = solve(Detector(cell="lstm", length=4))
    with torch.no_grad():  # a weaker read: solved (loss < 0.01) but above the stop loss
        solution.read.weight.mul_(0.06)
        solution.read.bias.mul_(0.06)
    settings = Settings(cells=("lstm",), lengths=(4,), stop_loss=1e-4, max_updates=50)
    _, record = train("lstm", 4, 0, settings, start=solution)
    assert 1e-4 < record["initial_loss"] < 0.01 and record["updates"] > 0
    _, unchanged = train("lstm", 4, 0, Settings(cells=("lstm",), lengths=(4,)), start=solution)
    assert unchanged["updates"] == 0


def test_a_warm_sweep_starts_each_t_from_the_previous_ts_model():
    settings = Settings(cells=("lstm", "elstm"), lengths=(3, 5), seeds=2, step=1,
                        warm_start=True, max_updates=2, samples=())
    runs = sweep(settings)["runs"]
    assert [(r["T"], r["start_T"]) for r in runs if r["cell"] == "elstm" and r["seed"] == 1] == \
        [(3, None), (4, 3), (5, 4)]
    scratch = sweep(Settings(cells=("lstm",), lengths=(3, 5), step=1, seeds=1, max_updates=2,
                             samples=()))["runs"]
    assert [(r["T"], r["start_T"]) for r in scratch] == [(3, None), (4, None), (5, None)]


def test_solved_through_is_the_last_t_before_the_first_failure():
    runs = [{"cell": "lstm", "seed": 0, "T": t, "solved": t != 5} for t in (3, 4, 5, 6)]
    assert solved_through(runs, "lstm", 0) == 4
    assert solved_through([dict(r, solved=False) for r in runs], "lstm", 0) is None


def test_choose_prefers_the_longest_t_then_all_then_speed():
    rows = [{"optimizer": "adam", "learn_rate": 0.05, "start": "scratch", "seeds": 5,
             "solved": {"20": 5, "40": 1}, "seconds": 10.0},
            {"optimizer": "sgd", "learn_rate": 0.01, "start": "warm", "seeds": 5,
             "solved": {"20": 3, "40": 4}, "seconds": 50.0},
            {"optimizer": "adam", "learn_rate": 0.01, "start": "warm", "seeds": 5,
             "solved": {"20": 4, "40": 4}, "seconds": 90.0}]
    assert choose(rows, (20, 40))["optimizer"] == "adam"
    rows[2]["solved"]["20"] = 3
    assert choose(rows, (20, 40))["optimizer"] == "sgd"


def test_the_grid_runs_the_lstm_under_every_combination():
    seen = []
    result = grid(Settings(cells=("gru",), lengths=(2, 4), step=1, seeds=1, max_updates=2),
                  ["adam", "sgd"], [0.01, 0.1], ["scratch", "warm"], on_run=seen.append)
    assert [(r["optimizer"], r["learn_rate"], r["start"]) for r in result["grid"]] == [
        (o, r, s) for o in ("adam", "sgd") for r in (0.01, 0.1) for s in ("scratch", "warm")]
    assert {r["cell"] for r in seen} == {"lstm"}
    runs = {r["start"]: [x["T"] for x in r["runs"]] for r in result["grid"][:2]}
    assert runs == {"scratch": [2, 4], "warm": [2, 3, 4]}
    assert set(result["chosen"]) == {"optimizer", "learn_rate", "start", "solved", "seeds"}
    with pytest.raises(ValueError, match="Unknown start 'cold': choose one of 'scratch', 'warm'."):
        grid(Settings(lengths=(2,)), ["adam"], [0.1], ["cold"])


def test_among_bs_writes_its_training_options(tmp_path):
    out = tmp_path / "run"
    result = invoke("among-bs", "--cells", "lstm", "--lengths", "3,5", "--seeds", "1",
                    "--max-updates", "2", "--optimizer", "sgd", "--learn-rate", "0.1",
                    "--warm-start", "--step", "1", "--stop-loss", "0.001", "--no-progress",
                    "--output", out)
    assert result.exit_code == 0, result.output
    data = json.loads((out / "among-bs.json").read_text())
    s = data["settings"]
    assert (s["optimizer"], s["warm_start"], s["step"], s["stop_loss"]) == ("sgd", True, 1, 0.001)
    assert [r["T"] for r in data["runs"]] == [3, 4, 5]
    assert "T=   4" not in result.output and "T=   5" in result.output  # the listed lengths
    assert sorted(p.name for p in (out / "models").iterdir()) == ["lstm-T3.pt", "lstm-T5.pt"]


def test_among_bs_grid_writes_the_choice(tmp_path):
    out = tmp_path / "grid"
    result = invoke("among-bs-grid", "--lengths", "2,3", "--seeds", "1", "--max-updates", "2",
                    "--optimizers", "adam,rmsprop", "--learn-rates", "0.05", "--no-progress",
                    "--output", out)
    assert result.exit_code == 0, result.output
    data = json.loads((out / "among-bs-grid.json").read_text())
    assert len(data["grid"]) == 4 and data["settings"]["cells"] == ["lstm"]
    assert "chosen: " in result.output
    assert len((out / "runs.jsonl").read_text().splitlines()) == 4 * 2  # T = 2, 3 each


@pytest.mark.parametrize("command,args,message", [
    ("among-bs", ["--optimizer", "adamw"],
     "Unknown optimizer 'adamw': choose one of 'adam', 'rmsprop', 'sgd'."),
    ("among-bs", ["--step", "-1"], "step must be an integer >= 0 (0: only the listed lengths), "
                                   "got -1."),
    ("among-bs", ["--warm-start", "--lengths", "20,10"],
     "With warm_start or step the lengths must rise, got 20, 10."),
    ("among-bs", ["--stop-loss", "0.5"], "stop_loss must lie in (0, solved_loss = 0.01], got 0.5."),
    ("among-bs-grid", ["--optimizers", "adam,adamw"],
     "Unknown optimizer 'adamw': choose one of 'adam', 'rmsprop', 'sgd'."),
    ("among-bs-grid", ["--learn-rates", "0.1,x"],
     "--learn-rates takes numbers separated by commas, got '0.1,x'."),
    ("among-bs-grid", ["--learn-rates", "0.1,-1"], "Every learning rate must be > 0, got -1.0."),
    ("among-bs-grid", ["--starts", "cold"], "Unknown start 'cold': choose one of 'scratch', 'warm'."),
])
def test_bad_training_options_are_one_line(command, args, message, tmp_path):
    result = invoke(command, *args, "--no-progress", "--output", tmp_path / "out")
    assert result.exit_code == 1
    assert result.output.strip() == f"spacy-elstm memory {command}: {message}"


def test_the_second_order_lstm_runs_among_bs_without_a_response(tmp_path):
    out = tmp_path / "run"
    result = invoke("among-bs", "--cells", "solstm,lstm", "--lengths", "10", "--seeds", "1",
                    "--max-updates", "2", "--no-progress", "--output", out)
    assert result.exit_code == 0, result.output
    data = json.loads((out / "among-bs.json").read_text())
    assert [r["cell"] for r in data["runs"]] == ["solstm", "lstm"]
    assert [r["cell"] for r in data["responses"]] == ["lstm"]
