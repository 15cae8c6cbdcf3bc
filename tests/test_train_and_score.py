"""scripts/train_and_score.py, the train-and-score step of every study: which
runs a command line names, what each run calls, and that finished runs are
skipped (unless --force) so a stopped study resumes."""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "train_and_score.py"
_spec = importlib.util.spec_from_file_location("train_and_score", SCRIPT)
tas = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tas)


@pytest.fixture
def calls(monkeypatch):
    made = []
    monkeypatch.setattr(tas.subprocess, "run", lambda args, **kw: made.append(args))
    return made


def test_runs_are_named_by_file_or_by_name_and_a_folder_is_its_configs(monkeypatch):
    monkeypatch.chdir(ROOT)
    runs, _ = tas.parse(["configs/cnn.cfg", "seqparse-cnn=configs/seqparse/cnn.cfg",
                         "configs/experiments/chars", "--metrics", "m"])
    assert [(r.name, r.config.as_posix()) for r in runs] == [
        ("cnn", "configs/cnn.cfg"), ("seqparse-cnn", "configs/seqparse/cnn.cfg"),
        ("best_elstm", "configs/experiments/chars/best_elstm.cfg"),
        ("cnn", "configs/experiments/chars/cnn.cfg")]


def test_an_unknown_config_is_refused_before_anything_trains():
    result = subprocess.run([sys.executable, str(SCRIPT), "configs/cnn.cfg", "configs/nope.cfg",
                             "--metrics", "m"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 1 and "no config configs/nope.cfg" in result.stderr
    assert "===" not in result.stdout


def test_a_ud_run_trains_then_scores_dev_and_test_both_ways(calls, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    runs, opts = tas.parse(["configs/cnn.cfg", "--metrics", str(tmp_path / "m"), "--models",
                            str(tmp_path / "t"), "--steps", "10", "--gpu-id", "0",
                            "--", "--training.dropout", "0.3"])
    assert tas.train_and_score(runs[0], opts)
    train, *scores = [[str(a) for a in call] for call in calls]
    assert train[1:5] == ["-m", "spacy", "train", "configs/cnn.cfg"]
    assert train[train.index("--output") + 1] == str(tmp_path / "t" / "cnn")
    assert train[train.index("--paths.train_log") + 1] == str(tmp_path / "m" / "train-cnn.jsonl")
    assert train[-6:] == ["--training.max_steps", "10", "--gpu-id", "0", "--training.dropout", "0.3"]
    assert [s[s.index("--output") + 1] for s in scores] == [
        str(tmp_path / "m" / f"cnn-{name}") for name in
        ("dev.json", "dev.official.json", "test.json", "test.official.json")]
    assert "--gold-preproc" in scores[0] and "--gold-preproc" in scores[2]
    official = scores[1]
    assert official[1:4] == ["-m", "spacy_elstm", "score"]
    assert official[official.index("--train") + 1] == "assets/UD_English-EWT/en_ewt-ud-train.conllu"
    assert str(tmp_path / "t" / "cnn" / "model-best") in official
    # the whole `spacy train` timed, its initialisation included
    timed = json.loads((tmp_path / "m" / "train-cnn.time.json").read_text())
    assert timed["seconds"] >= 0 and timed["steps"] == 10 and timed["config"] == "configs/cnn.cfg"


def test_the_papers_runs_score_model_last_officially_on_gold_lemmas(calls, tmp_path):
    run = tas.Run("pos_rnn-gru", Path("configs/paper/pos_rnn.cfg"))
    _, opts = tas.parse(["configs/cnn.cfg", "--metrics", str(tmp_path), "--model-last",
                         "--gold-lemmas", "--no-evaluate", "--train-conllu", "none"])
    tas.train_and_score(run, opts)
    assert len(calls) == 3  # train, then dev and test officially
    for call in calls[1:]:
        call = [str(a) for a in call]
        assert "--gold-lemmas" in call and "--train" not in call
        assert str(Path("training") / "pos_rnn-gru" / "model-last") in call


def test_a_finished_run_is_skipped_unless_forced(calls, tmp_path):
    run = tas.Run("cnn", Path("configs/cnn.cfg"))
    _, opts = tas.parse(["configs/cnn.cfg", "--metrics", str(tmp_path), "--conllu", "none",
                         "--splits", "dev"])
    (tmp_path / "cnn-dev.json").write_text("{}")
    assert not tas.train_and_score(run, opts) and not calls
    assert tas.train_and_score(run, opts._replace(force=True)) and len(calls) == 2


def test_a_seed_other_than_0_trains_with_it_into_its_own_folder(tmp_path):
    _, opts = tas.parse(["configs/cnn.cfg", "--metrics", str(tmp_path / "parsers"), "--seed", "2",
                         "--", "--x.y", "1"])
    assert opts.metrics == tmp_path / "parsers-seed2"
    assert opts.models == Path("training-seed2")  # seeds that run at once keep their own models
    assert list(opts.overrides) == ["--system.seed", "2", "--x.y", "1"]
    _, opts = tas.parse(["configs/cnn.cfg", "--metrics", str(tmp_path / "parsers"),
                         "--models", str(tmp_path / "models")])
    assert opts.metrics == tmp_path / "parsers" and not opts.overrides
    assert opts.models == tmp_path / "models"


def test_a_ptb_run_reads_its_corpus_and_records_how_it_was_made(calls, tmp_path):
    _, opts = tas.parse(["configs/cnn.cfg", "--metrics", str(tmp_path), "--corpus",
                         "corpus/ptb/tag/{split}.spacy", "--conllu", "none", "--record"])
    tas.train_and_score(tas.Run("tag-cnn", Path("configs/ptb/cnn.cfg")), opts)
    train, dev, test, record = [[str(a) for a in call] for call in calls]
    assert "corpus/ptb/tag/train.spacy" in train and "corpus/ptb/tag/dev.spacy" in train
    assert "corpus/ptb/tag/test.spacy" in test
    assert record[1:] == ["scripts/run_record.py", str(Path("training") / "tag-cnn"),
                          str(tmp_path / "run-tag-cnn.json"), "--gpu-id", "-1"]


def test_raw_scores_come_beside_the_gold_ones_and_no_train_scores_only(calls, tmp_path):
    run = tas.Run("cnn", Path("configs/raw/cnn.cfg"))
    _, opts = tas.parse(["configs/raw/cnn.cfg", "--metrics", str(tmp_path / "m"), "--models",
                         str(tmp_path / "t"), "--splits", "dev", "--no-evaluate", "--raw",
                         "--no-train"])
    with pytest.raises(SystemExit, match="no trained pipeline"):
        tas.train_and_score(run, opts)
    (tmp_path / "t" / "cnn" / "model-best").mkdir(parents=True)
    assert tas.train_and_score(run, opts)
    official, raw = [[str(a) for a in call] for call in calls]  # no training
    assert "--raw" not in official and "--raw" in raw
    assert raw[raw.index("--output") + 1] == str(tmp_path / "m" / "cnn-dev.raw.json")
    assert raw[raw.index("--predictions") + 1].endswith("predictions-raw/en_ewt-ud-dev.conllu")
    assert tas.outputs(run, opts)[-1] == tmp_path / "m" / "cnn-dev.raw.json"
