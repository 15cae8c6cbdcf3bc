"""Word-level language models: text, model, training with checkpoints and
resuming, perplexity, the command line, and the bidirectional leak."""
import json
import random

import pytest
import torch
from thinc.api import Config
from typer.testing import CliRunner

from spacy_elstm.pytorch.language_model import LanguageModel
from spacy_elstm.lm import training as lm_module
from spacy_elstm.cli.app import app
from spacy_elstm.lm.training import Settings, evaluate, perplexity, train
from spacy_elstm.lm.data import TextFormatError, Vocab, batchify, segments


def write_texts(folder, lines_per_file=(60, 12, 12), seed=0, random_words=False):
    """Small texts in the PTB format: a grammar of a few patterns (predictable),
    or uniformly random words (unpredictable)."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(12)]
    paths = []
    for name, n in zip(("train", "valid", "test"), lines_per_file):
        lines = []
        for _ in range(n):
            if random_words:
                lines.append(" ".join(rng.choice(words) for _ in range(8)))
            else:
                a = rng.randrange(4)
                lines.append(" ".join(words[(a + k) % 12] for k in range(6)) + " <unk>")
        path = folder / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def settings_for(paths, **training):
    config = {"paths": dict(zip(("train", "valid", "test"), map(str, paths))),
              "model": {"cell": "elstm", "width": 16, "depth": 1, "period": 3},
              "training": {"batch_size": 4, "bptt": 5, "epochs": 2, "learn_rate": 1.0,
                           "decay_after": 1, "eval_batch_size": 2, "checkpoint_every": 4,
                           **training}}
    return Settings.from_config(config)


def test_text_gets_eos_and_vocab_in_order(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(" b a <unk>\n\n a c \n")
    vocab = Vocab.from_file(path)
    assert vocab.words == ["b", "a", "<unk>", "<eos>", "c"]
    other = tmp_path / "o.txt"
    other.write_text("a zzz\n")
    assert vocab.encode_file(other).tolist() == [1, 2, 3]  # zzz -> <unk>


@pytest.mark.parametrize("content,message", [
    ("", "no words"),
    ("a b\x00\n", r":1: a NUL byte"),
    ("a <eos> b\n", r":1: '<eos>' inside a line"),
])
def test_bad_text_names_file_and_line(tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(TextFormatError, match=message):
        Vocab.from_file(path)


def test_a_non_utf8_text_names_file_and_line(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("a b\ncaf\u00e9 c\n".encode("latin-1"))
    with pytest.raises(TextFormatError, match=r"latin1\.txt:2: not UTF-8 \(byte 0xe9 at column 4\)"):
        Vocab.from_file(path)


def test_a_byte_order_mark_is_skipped(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfa b\n")
    assert Vocab.from_file(path).words == ["a", "b", "<eos>"]


def _lm_config(tmp_path, paths):
    config = tmp_path / "lm.cfg"
    Config({"paths": dict(zip(("train", "valid", "test"), map(str, paths))),
            "model": {"cell": "gru", "width": 8, "depth": 1},
            "training": {"batch_size": 4, "bptt": 5, "epochs": 1}}).to_disk(config)
    return config


def test_lm_train_on_a_latin1_file_names_it(tmp_path):
    paths = write_texts(tmp_path)
    paths[0].write_bytes(paths[0].read_bytes() + "na\u00efve\n".encode("latin-1"))
    result = CliRunner().invoke(app, ["lm", "train", str(_lm_config(tmp_path, paths)),
                                      str(tmp_path / "run"), "--no-progress"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    n_lines = len(paths[0].read_bytes().splitlines())
    assert f"{paths[0]}:{n_lines}: not UTF-8" in result.output
    assert not (tmp_path / "run" / "checkpoint.pt").exists()


def test_a_truncated_checkpoint_names_the_file(tmp_path):
    paths = write_texts(tmp_path)
    config = _lm_config(tmp_path, paths)
    runner = CliRunner()
    assert runner.invoke(app, ["lm", "train", str(config), str(tmp_path / "run"),
                               "--no-progress"]).exit_code == 0
    for name in ("model-best.pt", "checkpoint.pt"):
        path = tmp_path / "run" / name
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    result = runner.invoke(app, ["lm", "evaluate", str(tmp_path / "run" / "model-best.pt"),
                                 str(paths[2])])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert f"{tmp_path / 'run' / 'model-best.pt'}: cannot read this checkpoint" in result.output
    assert "truncated" in result.output and len(result.output.strip().splitlines()) == 1
    result = runner.invoke(app, ["lm", "train", str(config), str(tmp_path / "run"),
                                 "--no-progress", "--resume"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert f"{tmp_path / 'run' / 'checkpoint.pt'}: cannot read this checkpoint" in result.output
    with pytest.raises(ValueError, match="not a spacy-elstm language-model checkpoint"):
        torch.save({"x": 1}, tmp_path / "other.pt")
        lm_module.load_model(tmp_path / "other.pt")


def test_unknown_word_without_unk_is_an_error(tmp_path):
    (tmp_path / "a.txt").write_text("a b\n")
    (tmp_path / "b.txt").write_text("a\nb c\n")
    with pytest.raises(TextFormatError, match=r"b.txt:2: 'c' is not in the vocabulary"):
        Vocab.from_file(tmp_path / "a.txt").encode_file(tmp_path / "b.txt")


def test_batches_are_continuous_rows_and_segments_cover_every_target():
    stream = torch.arange(23)
    data = batchify(stream, 3)
    assert data.tolist()[1][:2] == [7, 8] and data.shape == (3, 7)
    targets = torch.cat([t for _, _, t in segments(data, 4)], dim=1)
    inputs = torch.cat([x for _, x, _ in segments(data, 4)], dim=1)
    assert torch.equal(targets, data[:, 1:]) and torch.equal(inputs, data[:, :-1])
    assert [s for s, _, _ in segments(data, 4)] == [0, 4]
    with pytest.raises(ValueError, match="too short"):
        batchify(torch.arange(5), 3)


@pytest.mark.parametrize("cell", ["elstm", "elstm2", "lstm", "gru", "srn"])
def test_segments_with_carried_state_equal_one_pass(cell):
    torch.manual_seed(0)
    model = LanguageModel(vocab_size=30, cell=cell, width=8, depth=2, period=3).double().eval()
    tokens = torch.randint(0, 30, (3, 11))
    whole, end = model(tokens)
    first, state = model(tokens[:, :4])
    second, state = model(tokens[:, 4:], state, start=4)
    torch.testing.assert_close(torch.cat([first, second], 1), whole)
    torch.testing.assert_close(state[-1][0], end[-1][0])


def test_training_learns_and_writes_metrics(tmp_path):
    paths = write_texts(tmp_path)
    metrics = train(settings_for(paths, epochs=4), tmp_path / "run", progress=False,
                    log=lambda _: None)
    written = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert written["test_ppl"] == pytest.approx(metrics["test_ppl"])
    assert [r["epoch"] for r in written["history"]] == [1, 2, 3, 4]
    assert [r["learn_rate"] for r in written["history"]] == [1.0, 0.5, 0.25, 0.125]
    vocab_size = written["vocab_size"]
    # the grammar: a line's first word is one of 4, the rest follow from it
    assert written["valid_ppl"] < vocab_size / 3
    assert evaluate(tmp_path / "run" / "model-best.pt", paths[2], batch_size=2,
                    bptt=5) == pytest.approx(written["test_ppl"])


def test_perplexity_counts_every_word_once(tmp_path):
    paths = write_texts(tmp_path)
    model = LanguageModel(vocab_size=14, cell="lstm", width=4, depth=1)
    with torch.no_grad():  # a model that predicts the uniform distribution
        model.decoder.weight.zero_()
        model.decoder.bias.zero_()
    stream = Vocab.from_file(paths[0]).encode_file(paths[1])
    assert perplexity(model, stream, 2, 5) == pytest.approx(14.0)


def test_an_interrupted_run_resumes_where_it_stopped(tmp_path, monkeypatch):
    paths = write_texts(tmp_path)
    settings = settings_for(paths)
    straight = train(settings, tmp_path / "a", progress=False, log=lambda _: None)
    real, calls = lm_module.segment_loss, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 13:  # inside epoch 2, after the checkpoint at update 12
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(lm_module, "segment_loss", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train(settings, tmp_path / "b", progress=False, log=lambda _: None)
    monkeypatch.setattr(lm_module, "segment_loss", real)
    saved = torch.load(tmp_path / "b" / "checkpoint.pt", weights_only=False)
    assert saved["run"]["updates"] == 12
    with pytest.raises(ValueError, match="holds a run already"):
        train(settings, tmp_path / "b", progress=False, log=lambda _: None)
    resumed = train(settings, tmp_path / "b", resume=True, progress=False, log=lambda _: None)
    for a, b in zip(resumed["history"], straight["history"]):
        assert a["train_ppl"] == pytest.approx(b["train_ppl"], rel=1e-6)
        assert a["valid_ppl"] == pytest.approx(b["valid_ppl"], rel=1e-6)
    assert resumed["test_ppl"] == pytest.approx(straight["test_ppl"], rel=1e-6)
    other = settings_for(paths, learn_rate=0.5)
    with pytest.raises(ValueError, match="other settings"):
        train(other, tmp_path / "b", resume=True, progress=False, log=lambda _: None)


@pytest.mark.parametrize("section,key,value,message", [
    ("model", "colour", 1, r"Unknown \[model\] key\(s\) \['colour'\]: allowed are cell, width"),
    ("training", "optimizer", "rmsprop", "Unknown optimizer 'rmsprop': choose one of 'sgd', 'adam', 'adagrad'"),
    ("training", "bptt", 0, r"bptt must be >= 1"),
    ("model", "width", "wide", r"\[model\] width must be int, got 'wide'"),
])
def test_bad_settings_name_the_value_and_the_allowed_ones(tmp_path, section, key, value, message):
    config = {"paths": {"train": "a", "valid": "b", "test": "c"}, section: {key: value}}
    with pytest.raises(ValueError, match=message):
        Settings.from_config(config)


def test_unknown_cell_is_named(tmp_path):
    settings = settings_for(write_texts(tmp_path))
    bad = Settings(settings.train, settings.valid, settings.test,
                   lm_module.ModelSettings(cell="tree"), settings.training)
    with pytest.raises(ValueError, match="Unknown cell 'tree': choose one of 'elstm'"):
        train(bad, tmp_path / "run", progress=False, log=lambda _: None)


def test_shipped_configs_parse():
    from pathlib import Path

    configs = sorted(Path(__file__).parent.parent.joinpath("configs", "lm").glob("*.cfg"))
    assert configs
    for path in configs:
        settings = Settings.from_config(Config().from_disk(path))
        assert settings.training.epochs >= 1


def test_command_line_trains_with_overrides_and_evaluates(tmp_path):
    paths = write_texts(tmp_path)
    config = tmp_path / "lm.cfg"
    Config({"paths": dict(zip(("train", "valid", "test"), map(str, paths))),
            "model": {"cell": "gru", "width": 8, "depth": 1},
            "training": {"batch_size": 4, "bptt": 5, "epochs": 3}}).to_disk(config)
    runner = CliRunner()
    result = runner.invoke(app, ["lm", "train", str(config), str(tmp_path / "run"),
                                 "--no-progress", "--training.epochs", "1"])
    assert result.exit_code == 0, result.output
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert len(metrics["history"]) == 1 and metrics["settings"]["model"]["cell"] == "gru"
    result = runner.invoke(app, ["lm", "evaluate", str(tmp_path / "run" / "model-best.pt"),
                                 str(paths[2]), "--batch-size", "10", "--bptt", "5"])
    assert result.exit_code == 0 and f"perplexity {metrics['test_ppl']:.2f}" in result.output
    result = runner.invoke(app, ["lm", "train", str(config), str(tmp_path / "run2"),
                                 "--model.cell", "tree"])
    assert result.exit_code == 1 and "Unknown cell 'tree'" in result.output


def test_a_bidirectional_model_reads_the_word_it_predicts(tmp_path):
    """On uniformly random words no next-word model can beat the vocabulary
    size; the bidirectional one gets far below it by reading the answer."""
    paths = write_texts(tmp_path, lines_per_file=(150, 20, 20), random_words=True)
    runs = {}
    for bidirectional in (False, True):
        settings = settings_for(paths, epochs=10, learn_rate=1.0, decay_after=10)
        settings = Settings(settings.train, settings.valid, settings.test,
                            lm_module.ModelSettings(cell="lstm", width=32, depth=1,
                                                    bidirectional=bidirectional),
                            settings.training)
        runs[bidirectional] = train(settings, tmp_path / str(bidirectional), progress=False,
                                    log=lambda _: None)["test_ppl"]
    # 8 random words of 12 and a predictable <eos> per line: at best 12 ** (8 / 9) = 9.1
    assert runs[False] > 8
    assert runs[True] < 4  # far below what any next-word model can reach


def test_report_tabulates_runs_seeds_and_the_leak(tmp_path):
    from lab.report.lm import lm_section

    paths = write_texts(tmp_path)
    folder = tmp_path / "metrics" / "lm"
    folder.mkdir(parents=True)
    results = {}
    for name, seed, bidirectional in (("elstm", 0, False), ("elstm", 1, False),
                                      ("leak-both-ways", 0, True)):
        base = settings_for(paths, seed=seed, epochs=1)
        settings = Settings(base.train, base.valid, base.test,
                            lm_module.ModelSettings(cell="elstm", width=8, depth=1, period=3,
                                                    bidirectional=bidirectional),
                            base.training)
        out = tmp_path / f"{name}-{seed}"
        results[name, seed] = train(settings, out, progress=False, log=lambda _: None)
        (folder / f"{name}-seed{seed}.json").write_text((out / "metrics.json").read_text())
    text, _ = lm_section(folder)
    row = next(line for line in text.splitlines() if line.startswith("| elstm |"))
    tests = [results["elstm", s]["test_ppl"] for s in (0, 1)]
    mean = sum(tests) / 2
    assert "elstm, Ts = 3, 1 x 8, sgd" in row and "| 2 |" in row and f"{mean:.2f} ±" in row
    leak = next(line for line in text.splitlines() if line.startswith("| leak-both-ways |"))
    assert "reads both ways" in leak
    assert f"{results['leak-both-ways', 0]['test_ppl']:.2f}" in leak


def test_text_becomes_raw_text_for_spacy_pretrain(tmp_path):
    source = tmp_path / "t.txt"
    source.write_text(" the <unk> sat \n\n on N mats \n")
    result = CliRunner().invoke(app, ["lm", "jsonl", str(source), str(tmp_path / "o.jsonl")])
    assert result.exit_code == 0 and "2 lines" in result.output
    lines = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert lines == [{"text": "the unk sat"}, {"text": "on N mats"}]


def test_a_treebanks_sentences_become_raw_text_for_spacy_pretrain(tmp_path):
    """The EWT train text beside the PTB's for pretraining: each sentence's own
    text, with the spacing of its words; a broken file is refused by name."""
    source = tmp_path / "t.conllu"
    source.write_text("# text = Hi, you.\n"
                      "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\tSpaceAfter=No\n"
                      "2\t,\t,\tPUNCT\t,\t_\t1\tpunct\t_\t_\n"
                      "3\tyou\tyou\tPRON\tPRP\t_\t1\tvocative\t_\tSpaceAfter=No\n"
                      "4\t.\t.\tPUNCT\t.\t_\t1\tpunct\t_\t_\n\n"
                      "1\tGo\tgo\tVERB\tVB\t_\t0\troot\t_\t_\n\n")
    result = CliRunner().invoke(app, ["lm", "jsonl", str(source), str(tmp_path / "o.jsonl")])
    assert result.exit_code == 0 and "2 lines" in result.output, result.output
    lines = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert lines == [{"text": "Hi, you."}, {"text": "Go"}]
    source.write_text("1\tHi\n\n")
    result = CliRunner().invoke(app, ["lm", "jsonl", str(source), str(tmp_path / "p.jsonl")])
    assert result.exit_code == 1 and "t.conllu" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "p.jsonl").exists()


def test_compare_script_trains_copies_and_then_skips(tmp_path):
    """scripts/compare_lm.sh: a run's metrics land in metrics/lm/<run>-seed<N>.json;
    run again, a finished run is not trained again."""
    import shutil
    import subprocess
    from pathlib import Path

    script = Path(__file__).parent.parent / "scripts" / "compare_lm.sh"
    if shutil.which("spacy-elstm") is None:
        pytest.skip("the spacy-elstm command is not on PATH")
    paths = write_texts(tmp_path)
    config = tmp_path / "lm.cfg"
    Config({"paths": dict(zip(("train", "valid", "test"), map(str, paths))),
            "model": {"cell": "lstm", "width": 8, "depth": 1},
            "training": {"batch_size": 4, "bptt": 5, "epochs": 1}}).to_disk(config)
    command = ["bash", str(script), str(config), "3", "tiny=gru:1", "--", "--no-progress"]
    first = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert first.returncode == 0, first.stdout + first.stderr
    metrics = json.loads((tmp_path / "metrics" / "lm" / "tiny-seed3.json").read_text())
    assert metrics["settings"]["model"]["cell"] == "gru"
    assert metrics["settings"]["training"]["seed"] == 3
    again = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert again.returncode == 0 and "tiny (seed 3): done" in again.stdout
