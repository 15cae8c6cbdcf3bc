"""The memory results page tabulates what `spacy-elstm memory among-bs` wrote."""
import json
from dataclasses import asdict

import pytest

from lab.report.memory import memory_section
from spacy_elstm.memory.among_bs import Settings, constant_loss, summarise


def _run(cell, length, seed, loss):
    return {"cell": cell, "T": length, "seed": seed, "epochs": 10, "updates": 30,
            "stop": "solved" if loss < 0.01 else "plateau", "final_loss": loss,
            "best_loss": loss, "accuracy": 1.0, "solved": loss < 0.01,
            "constant_loss": constant_loss(length), "seconds": 30.0, "losses": [loss]}


def _sweep(tmp_path):
    # the LSTM solves T = 10 with both seeds and T = 60 with one; the ELSTM both
    runs = [_run("lstm", 10, 0, 0.005), _run("lstm", 10, 1, 0.007),
            _run("lstm", 60, 0, 0.005), _run("lstm", 60, 1, 0.08),
            _run("elstm", 10, 0, 0.004), _run("elstm", 10, 1, 0.006),
            _run("elstm", 60, 0, 0.003), _run("elstm", 60, 1, 0.009)]
    response = {"cell": "elstm", "T": 10, "position": 9, "probability": 0.99,
                "response": [[0.1]] * 10, "scale": [[1.0]] * 10}
    settings = asdict(Settings(cells=("lstm", "elstm"), lengths=(10, 60), seeds=2))
    data = {"settings": settings, "runs": runs, "summary": summarise(runs),
            "responses": [response], "torch": "2.x", "threads": 1}
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "among-bs.json").write_text(json.dumps(data))
    return folder


def test_among_bs_table_verdict_and_plots(tmp_path):
    text, plots = memory_section(_sweep(tmp_path))
    rows = [line for line in text.splitlines() if line.startswith("| 60 |")]
    # solved counts per cell, then the loss mean ± sd [lowest, highest]
    assert rows == ["| 60 | 0.0836 | 1/2 | 2/2 | 0.043 ± 0.053 [0.005, 0.080] | "
                    "0.006 ± 0.004 [0.003, 0.009] |"]
    assert "- `lstm`: every seed solved every T up to 10; every T was solved by some seed." in text
    assert "- `elstm`: every seed solved every T up to 60;" in text
    assert "At T = 60, the paper's threshold: the LSTM solved 1 of 2 seeds, the ELSTM 2 of 2." in text
    assert ("Against the paper, this sweep does not reproduce the paper's gap: the longest T "
            "that some seed solved is the same for the ELSTM and the LSTM (60).") in text
    # each T afresh: each seed's longest T solved (the LSTM's seed 1 solved T = 10 only)
    assert "- `lstm`: 60, 10\n- `elstm`: 60, 60\n" in text
    assert set(plots) == {"memory-loss.png", "memory-response-T10.png", "memory-scale-T10.png"}
    assert set(plots["memory-loss.png"][0]) == {"lstm", "elstm", "constant guess"}


def test_no_sweep_no_section(tmp_path):
    assert memory_section(tmp_path) is None


def test_the_verdict_says_when_the_elstm_remembers_longer(tmp_path):
    folder = _sweep(tmp_path)
    data = json.loads((folder / "among-bs.json").read_text())
    for run in data["runs"]:
        if run["cell"] == "lstm" and run["T"] == 60:
            run.update(final_loss=0.08, solved=False)
    data["summary"] = summarise(data["runs"])
    (folder / "among-bs.json").write_text(json.dumps(data))
    text, _ = memory_section(folder)
    assert ("Against the paper, this sweep agrees with the paper in direction: the longest T "
            "that some seed solved is 60 for the ELSTM and 10 for the LSTM.") in text


def test_a_wider_sweep_gets_its_own_table_verdict_and_plots(tmp_path):
    folder = _sweep(tmp_path)  # the paper's one unit, in metrics/memory/among-bs.json
    data = json.loads((folder / "among-bs.json").read_text())
    data["settings"]["hidden_width"] = 8
    for run in data["runs"]:  # eight units: the LSTM fails at T = 60, the ELSTM does not
        if run["cell"] == "lstm" and run["T"] == 60:
            run.update(final_loss=0.08, solved=False)
    data["summary"] = summarise(data["runs"])
    data["responses"] = [{"cell": "elstm", "T": 10, "position": 9, "probability": 0.99,
                          "hidden_width": 8, "response": [[0.1] * 8] * 10,
                          "response_norm": [0.8] * 10, "scale": [[1.0] * 7 + [2.0]] * 10}]
    (folder / "hidden8").mkdir()
    (folder / "hidden8" / "among-bs.json").write_text(json.dumps(data))
    text, plots = memory_section(folder)
    one, eight = text.split("### A among Bs (Sec. 3.1, Table 2), hidden width 8")
    assert "### A among Bs (Sec. 3.1, Table 2), hidden width 1" in one
    assert "one layer of 1 unit," in one and "one layer of 8 units," in eight
    assert "written by `spacy-elstm memory among-bs --hidden 8`" in eight
    assert "| 60 | 0.0836 | 1/2 | 2/2 |" in one and "| 60 | 0.0836 | 0/2 | 2/2 |" in eight
    assert "does not reproduce the paper's gap" in one
    assert ("With 8 units:\n\n- `lstm`: every seed solved every T up to 10; the shortest T "
            "that no seed solved: 60.") in eight
    assert "agrees with the paper in direction: the longest T that some seed solved is 60 for " \
           "the ELSTM and 10 for the LSTM." in eight
    assert set(plots) == {"memory-loss.png", "memory-response-T10.png", "memory-scale-T10.png",
                          "memory-hidden8-loss.png", "memory-hidden8-response-T10.png",
                          "memory-hidden8-scale-T10.png"}
    assert "](memory-hidden8-response-T10.png)" in eight
    # a wider layer's response is drawn as its norm, its scaling factors as their mean
    lines, _, ylabel, _ = plots["memory-hidden8-response-T10.png"]
    assert list(lines.values())[0][1] == [0.8] * 10 and "norm" in ylabel
    assert plots["memory-hidden8-scale-T10.png"][0]["elstm"][1] == [pytest.approx(9 / 8)] * 10


def test_the_settings_grid_gets_its_table_and_choice(tmp_path):
    from spacy_elstm.memory.grid import choose

    folder = _sweep(tmp_path)
    settings = asdict(Settings(cells=("lstm",), lengths=(2, 20, 40), seeds=5, step=1,
                               stop_loss=0.001, samples=()))
    rows = [{"optimizer": "adam", "learn_rate": 0.01, "start": "warm", "seeds": 5,
             "solved": {"2": 4, "20": 5, "40": 5}, "solved_through": [40, 40, None, 40, 40],
             "updates": 1000, "seconds": 90.0,
             "runs": [{"seed": seed, "solved": seed != 2 or t > 2} for seed in range(5)
                      for t in range(2, 41)]},
            {"optimizer": "sgd", "learn_rate": 0.05, "start": "scratch", "seeds": 5,
             "solved": {"2": 5, "20": 0, "40": 0}, "solved_through": [2, 2, 2, 2, 2],
             "updates": 1000, "seconds": 30.0,
             "runs": [{"seed": seed, "solved": t == 2} for seed in range(5) for t in (2, 20, 40)]}]
    data = {"settings": settings, "optimizers": ["adam", "sgd"], "learn_rates": [0.01, 0.05],
            "starts": ["warm", "scratch"], "grid": rows, "chosen": choose(rows, (2, 20, 40)),
            "torch": "2.x", "threads": 1}
    (folder / "grid").mkdir()
    (folder / "grid" / "among-bs-grid.json").write_text(json.dumps(data))
    text, _ = memory_section(folder)
    grid, sweeps = text.split("### A among Bs (Sec. 3.1, Table 2), hidden width 1")
    assert "### Choosing the training settings on the LSTM alone" in grid
    assert ("`spacy-elstm memory among-bs-grid --lengths 2,20,40 --step 1 --seeds 5 "
            "--optimizers adam,sgd --learn-rates 0.01,0.05 --starts warm,scratch "
            "--max-updates 3000 --patience 1500 --stop-loss 0.001`") in grid
    assert ("| adam | 0.01 | warm | 4/5 | 5/5 | 5/5 | 40, 40, -, 40, 40 | "
            "39/39, 39/39, 38/39, 39/39, 39/39 | 1.5 |") in grid
    assert ("| sgd | 0.05 | scratch | 5/5 | 0/5 | 0/5 | 2, 2, 2, 2, 2 | "
            "1/3, 1/3, 1/3, 1/3, 1/3 | 0.5 |") in grid
    assert "210 runs, 2 minutes" in grid
    assert ("Chosen (most seeds solving T = 40, then most over all listed T, then the fastest): "
            "adam at 0.01, warm start: T = 2: 4/5, T = 20: 5/5, T = 40: 5/5. At T = 40, warm: at "
            "most 5 of 5 seeds (over 1 settings); scratch: at most 0 of 5 seeds (over 1 "
            "settings).") in grid


def test_a_sweep_with_t_raised_one_step_at_a_time(tmp_path):
    folder = _sweep(tmp_path)
    data = json.loads((folder / "among-bs.json").read_text())
    data["settings"].update(optimizer="sgd", learn_rate=0.01, warm_start=True, step=1,
                            stop_loss=0.001, lengths=[10, 60])
    # seed 0 of the LSTM solves T = 10 and 11 but not 12; seed 1 solves none
    data["runs"] += [_run("lstm", 11, 0, 0.005), _run("lstm", 12, 0, 0.3)]
    data["runs"][1].update(final_loss=0.3, solved=False)
    data["summary"] = summarise(data["runs"])
    (folder / "among-bs.json").write_text(json.dumps(data))
    text, _ = memory_section(folder)
    assert ("written by `spacy-elstm memory among-bs --optimizer sgd --learn-rate 0.01 "
            "--warm-start --step 1 --stop-loss 0.001`") in text
    assert "SGD with momentum 0.9 at 0.01" in text
    assert ("T is raised by 1 at a time from 10 to 60 (the table shows the listed T); each T's "
            "model starts from the same cell's and seed's model of the previous T.") in text
    assert [line.split(" |")[0] for line in text.splitlines() if line.startswith("| 1")] == \
        ["| 10"]  # T = 11 and 12 trained, not listed
    assert "- `lstm`: 11, - (3/4, 0/2)" in text and "- `elstm`: 60, 60 (2/2, 2/2)" in text


def test_the_protocol_sweep_is_one_table_per_setting_over_its_cells(tmp_path):
    folder = _sweep(tmp_path)
    data = json.loads((folder / "among-bs.json").read_text())
    data["settings"].update(warm_start=True, step=1, learn_rate=0.01)
    for cell in ("lstm", "elstm"):  # one piece per cell, as scripts/among_bs_sweep.sh writes
        piece = dict(data, settings=dict(data["settings"], cells=[cell]),
                     runs=[r for r in data["runs"] if r["cell"] == cell],
                     responses=[r for r in data["responses"] if r["cell"] == cell])
        piece["summary"] = summarise(piece["runs"])
        (folder / "protocol" / "h1-warm" / cell).mkdir(parents=True)
        (folder / "protocol" / "h1-warm" / cell / "among-bs.json").write_text(json.dumps(piece))
    text, plots = memory_section(folder)
    _, protocol = text.split("### A among Bs (Sec. 3.1, Table 2), hidden width 1: warm start, "
                             "T raised by 1, adam at 0.01")
    assert "`" + (folder / "protocol" / "h1-warm").as_posix() + "/<cell>/among-bs.json` " in protocol
    assert "spacy-elstm memory among-bs --cells <cell> --learn-rate 0.01 --warm-start --step 1`" \
        in protocol
    assert "| 60 | 0.0836 | 1/2 | 2/2 |" in protocol
    assert "- `lstm`: 60, 10 (2/2, 1/2)" in protocol and "- `elstm`: 60, 60 (2/2, 2/2)" in protocol
    assert {"memory-protocol-h1-warm-loss.png", "memory-protocol-h1-warm-response-T10.png",
            "memory-protocol-h1-warm-scale-T10.png"} <= set(plots)
