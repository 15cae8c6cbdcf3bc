"""The bounded Dyck-2 page tabulates what `spacy-elstm dyck` wrote, seeds added up."""
import json

from lab.report.dyck import dyck_section


def _model(m, cell, seed, wcpa, ppl):
    test = {"ppl": ppl, "wcpa": wcpa, "wcpa_10": wcpa, "accuracy": 0.9,
            "ldpa": {"1": [1.0, 50], "3": [wcpa, 12], "40": [0.0, 1]}}
    return {"m": m, "cell": cell, "seed": seed, "params": 1234, "epochs": 5, "best_epoch": 4,
            "train_seconds": 10.0 * (seed + 1), "history": [], "dev": test, "test": test}


def _file(seeds, models):
    settings = {"ms": [6], "cells": ["lstm", "elstm", "solstm"], "seeds": seeds, "train": 100,
                "dev": 10, "test": 10, "min_length": 2, "max_length": 20, "p_open": 0.5,
                "embedding": 30, "hidden_per_m": 3, "solstm_cells": 2, "anneal": 0.9,
                "batch_size": 10, "learn_rate": 0.01, "epochs": 5, "patience": 3,
                "stop_after": 6, "clip": 5.0}
    return {"settings": settings, "data": {}, "runs": models, "threads": 1}


def test_seeds_of_two_files_add_up_and_stand_beside_the_paper(tmp_path):
    folder = tmp_path / "dyck"
    folder.mkdir()
    (folder / "dyck.json").write_text(json.dumps(_file([0], [
        _model(6, "lstm", 0, 0.5, 2.7), _model(6, "solstm", 0, 0.7, 2.6)])))
    (folder / "dyck-seed1.json").write_text(json.dumps(_file([1], [
        _model(6, "lstm", 1, 0.7, 2.9), _model(6, "solstm", 1, 0.9, 2.8)])))
    (folder / "other.json").write_text(json.dumps({"not": "a run"}))  # ignored
    text, plots = dyck_section(folder)
    rows = [line for line in text.splitlines() if line.startswith("| 6 | ")]
    # mean ± sd over the two seeds: WCPA (0.5, 0.7) and (0.7, 0.9), ppl (2.7, 2.9), (2.6, 2.8)
    assert rows[0].split(" | ")[1:9] == ["lstm", "0, 1", "1,234", "4/5, 4/5", "2.800 ± 0.141",
                                        "2.800 ± 0.141", "0.600 ± 0.141", "0.600 ± 0.141"]
    assert rows[1].startswith("| 6 | solstm | 0, 1 |")
    # the paper's m = 6: attention 0.875 against baseline 0.857 on test WCPA (better),
    # 2.530 against 2.533 on perplexity (better); ours 0.8 against 0.6, 2.7 against 2.8
    assert ("On test WCPA the paper's second-order model is better than its baseline (0.875 "
            "against 0.857), ours is better than the LSTM (0.800 against 0.600): the same way."
            ) in text
    # 2.7 against 2.8 is within the larger sd over seeds (0.141): level
    assert ("On test perplexity the paper's second-order model is better than its baseline "
            "(2.53 against 2.533), ours is level with the LSTM (2.700 against 2.800): not the "
            "same way.") in text
    assert "| 8 | Attention LSTM | 8.6M | 2.612 | 2.611 | 0 | 0.667 |" in text
    # one plot per m: the first seed's LDPA at the distances seen at least 10 times
    assert plots == {"dyck-ldpa-m6.png": ({"lstm": ([1, 3], [1.0, 0.5]),
                                           "solstm": ([1, 3], [1.0, 0.7])},
                                          "closing distance",
                                          "test LDPA, m = 6 (distances seen >= 10 times)", False)}


def test_no_folder_no_page(tmp_path):
    assert dyck_section(tmp_path / "dyck") is None


def test_files_of_one_model_each_add_up_and_other_training_settings_stand_apart(tmp_path):
    folder = tmp_path / "dyck"
    folder.mkdir()
    for m, cell in ((4, "solstm"), (4, "lstm"), (6, "lstm")):
        data = _file([0], [_model(m, cell, 0, 0.5, 2.7)])
        data["settings"].update(ms=[m], cells=[cell])
        (folder / f"paper-m{m}-{cell}.json").write_text(json.dumps(data))
    other = _file([0], [_model(4, "lstm", 0, 0.1, 3.0)])
    other["settings"]["learn_rate"] = 0.001
    (folder / "other-rate.json").write_text(json.dumps(other))
    text, plots = dyck_section(folder)
    assert text.count("## Ours") == 2
    # other-rate.json sorts first
    assert "## Ours (1): 100 training strings up to 20 symbols, Adam at 0.001" in text
    merged = text.split("## Ours (2): 100 training strings up to 20 symbols, Adam at 0.01")[1]
    merged = merged.split("## The paper's")[0]
    # one table, the cells in the package's order whatever order the files came in
    assert [line.split(" | ")[:2] for line in merged.splitlines()
            if line.startswith(("| 4 | ", "| 6 | "))] == [["| 4", "lstm"], ["| 4", "solstm"],
                                                          ["| 6", "lstm"]]
    assert sorted(plots) == ["dyck-ldpa-2-m4.png", "dyck-ldpa-2-m6.png", "dyck-ldpa-m4.png"]
    # one seed of each: the numbers, no verdict (no spread over seeds to judge by)
    assert ("On test WCPA the paper's second-order model is worse than its baseline (0.999 "
            "against 1), ours 0.500 against the LSTM's 0.500: one seed, too few to call either "
            "way.") in merged
    assert "level with" not in merged and "the same way" not in merged
