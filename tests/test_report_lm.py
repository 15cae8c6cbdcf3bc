"""The language-modelling section tabulates what `spacy-elstm lm train` wrote."""
import json

from lab.report.lm import lm_section


def _run(cell, seed, test_ppl, *, bidirectional=False, epochs=3, best=2):
    history = [{"epoch": e, "learn_rate": 1.0, "train_ppl": 200.0 / e, "valid_ppl": 150.0 - e,
                "seconds": 100.0, "words": 1000 * e, "words_per_second": 1000.0 * e}
               for e in range(1, epochs + 1)]
    return {"settings": {"model": {"cell": cell, "period": 3, "depth": 2, "width": 200,
                                   "bidirectional": bidirectional},
                         "training": {"optimizer": "sgd", "learn_rate": 0.5, "seed": seed}},
            "history": history, "best_epoch": best, "valid_ppl": 148.0, "test_ppl": test_ppl,
            "train_seconds": 600.0, "machine": "cpu-x", "device": "cpu", "threads": 1}


def test_lm_runs_are_grouped_by_name_over_seeds(tmp_path):
    folder = tmp_path / "lm"
    folder.mkdir()
    for seed, ppl in [(0, 110.0), (1, 114.0)]:
        (folder / f"elstm-ts3-seed{seed}.json").write_text(json.dumps(_run("elstm", seed, ppl)))
    (folder / "leak-both-ways-seed0.json").write_text(
        json.dumps(_run("lstm", 0, 5.0, bidirectional=True, epochs=1, best=1)))
    (folder / "notes.json").write_text(json.dumps({"no": "history"}))  # not a run: ignored
    section, plots = lm_section(folder)
    assert list(plots) == ["lm-valid.png"]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    elstm = next(r for r in rows if r.startswith("| elstm-ts3 "))
    # two seeds, best epoch per seed, mean ± sd of the test perplexity, words/s the
    # mean over epochs (1,000, 2,000, 3,000), 10 minutes of training
    assert elstm.split(" | ")[1:9] == [
        "elstm, Ts = 3, 2 x 200, sgd at 0.5", "2", "3", "2, 2", "148.00 ± 0.00", "112.00 ± 2.83",
        "2,000", "10"]
    leak = next(r for r in rows if r.startswith("| leak-both-ways "))
    assert "reads both ways" in leak and "5.00" in leak
    assert section.index("| elstm-ts3 ") < section.index("#### The bidirectional leak") < \
        section.index("| leak-both-ways ")


def test_empty_lm_folder_gives_no_section(tmp_path):
    folder = tmp_path / "lm"
    folder.mkdir()
    assert lm_section(folder) is None
