"""configs/*.cfg are generated from configs/src by scripts/generate_configs.py:
the committed files are exactly what it writes, and they differ in their
encoder only."""
import copy as copying
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import spacy

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "scripts" / "generate_configs.py"
CONFIGS = sorted((ROOT / "configs").glob("*.cfg"))
PTB_CONFIGS = sorted((ROOT / "configs" / "ptb").glob("*.cfg"))
ENCODE = ("components", "tok2vec", "model", "encode")

_spec = importlib.util.spec_from_file_location("generate_configs", SCRIPT)
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)


def run_script(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)],
                          capture_output=True, text=True)


def test_committed_configs_are_what_the_generator_writes(tmp_path):
    assert gen.main(["--out", str(tmp_path)]) == 0
    written = sorted(tmp_path.glob("*.cfg"))
    assert [p.name for p in written] == [p.name for p in CONFIGS]
    for path in CONFIGS:
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name
    assert [p.name for p in sorted((tmp_path / "ptb").glob("*.cfg"))] == [
        p.name for p in CONFIGS if p.stem not in gen.EXCEPT["ptb"]]
    for path in PTB_CONFIGS:
        assert (tmp_path / "ptb" / path.name).read_bytes() == path.read_bytes(), path.name
    chars = sorted((ROOT / "configs" / "chars").glob("*.cfg"))
    assert [p.stem for p in chars] == sorted(gen.ONLY["chars"])
    for path in chars:
        assert (tmp_path / "chars" / path.name).read_bytes() == path.read_bytes(), path.name
    for folder in ("biaffine", "seqparse"):
        made = sorted((ROOT / "configs" / folder).glob("*.cfg"))
        assert [p.stem for p in made] == sorted(gen.ONLY[folder])
        for path in made:
            assert (tmp_path / folder / path.name).read_bytes() == path.read_bytes(), path.name


def test_best_elstm_is_shared_elstm_with_the_character_rnn_beside_its_word_features():
    best = spacy.util.load_config(ROOT / "configs" / "best_elstm.cfg", interpolate=False)
    shared = plain("best_elstm")
    embed = best["components"]["tok2vec"]["model"].pop("embed")
    assert embed["@architectures"] == "spacy-elstm.CharRecurrentEmbed.v1"
    assert embed["cell"] == "elstm"
    assert embed["words"] == shared["components"]["tok2vec"]["model"].pop("embed")
    assert best == shared


def plain(name):
    """The config on configs/src/base.cfg with the encoder ``name``: its own,
    except for best_elstm (on configs/src/charrnn.cfg), whose is shared_elstm."""
    path = ROOT / "configs" / f"{'shared_elstm' if name == 'best_elstm' else name}.cfg"
    return spacy.util.load_config(path, interpolate=False)


def test_character_input_configs_differ_from_theirs_in_the_embedding_only():
    for path in sorted((ROOT / "configs" / "chars").glob("*.cfg")):
        chars = spacy.util.load_config(path, interpolate=False)
        words = plain(path.stem)
        embed = chars["components"]["tok2vec"]["model"].pop("embed")
        assert embed["@architectures"] == "spacy.CharacterEmbed.v2"
        del words["components"]["tok2vec"]["model"]["embed"]
        assert chars == words, path.stem


@pytest.mark.parametrize("folder,factory,architecture", [
    ("biaffine", "elstm_biaffine_parser", "spacy-elstm.BiaffineParser.v1"),
    ("seqparse", "elstm_seq_parser", "spacy-elstm.RecurrentTagger.v1")])
def test_parser_variants_differ_from_theirs_in_the_parser_only(folder, factory, architecture):
    for path in sorted((ROOT / "configs" / folder).glob("*.cfg")):
        other = spacy.util.load_config(path, interpolate=False)
        words = plain(path.stem)
        parser = other["components"].pop("parser")
        assert parser["factory"] == factory
        assert parser["model"]["@architectures"] == architecture
        plain_parser = words["components"].pop("parser")
        assert parser["model"]["tok2vec"] == plain_parser["model"]["tok2vec"]
        assert parser["scorer"] == plain_parser["scorer"]
        assert other == words, path.stem


def test_check_passes_on_the_committed_configs():
    result = run_script("--check")
    assert result.returncode == 0, result.stderr


@pytest.fixture
def copy(tmp_path):
    out = tmp_path / "configs"
    shutil.copytree(ROOT / "configs", out, ignore=shutil.ignore_patterns("src"))
    return out


def test_check_fails_on_an_edited_config(copy):
    path = copy / "gru_brnn.cfg"
    edited = re.sub(r"(?m)^initial_rate = .*$", "initial_rate = 0.0123", path.read_text())
    assert edited != path.read_text()
    path.write_text(edited)
    result = run_script("--check", "--out", copy)
    assert result.returncode == 1
    assert "gru_brnn.cfg differs" in result.stderr
    assert path.read_text().count("initial_rate = 0.0123") == 1  # --check writes nothing


def test_check_fails_on_a_missing_or_extra_config(copy):
    (copy / "cnn.cfg").unlink()
    shutil.copy(copy / "lstm_brnn.cfg", copy / "lstm2_brnn.cfg")
    result = run_script("--check", "--out", copy)
    assert result.returncode == 1
    assert "cnn.cfg is missing" in result.stderr
    assert "lstm2_brnn.cfg has no source" in result.stderr


def test_check_fails_on_an_edited_or_extra_ptb_config(copy):
    path = copy / "ptb" / "cnn.cfg"
    path.write_text(path.read_text().replace("tag_acc = 0.34", "tag_acc = 0.5"))
    shutil.copy(path, copy / "ptb" / "cnn2.cfg")
    result = run_script("--check", "--out", copy)
    assert result.returncode == 1
    assert "ptb/cnn.cfg differs" in result.stderr and "ptb/cnn2.cfg has no source" in result.stderr


def test_writing_repairs_an_edited_config(copy):
    path = copy / "cnn.cfg"
    path.write_text(path.read_text().replace("patience = 1600", "patience = 1"))
    assert gen.main(["--out", str(copy)]) == 0
    assert path.read_bytes() == (ROOT / "configs" / "cnn.cfg").read_bytes()


def _without_encode(config):
    config = copying.deepcopy(config)
    del config[ENCODE[0]][ENCODE[1]][ENCODE[2]][ENCODE[3]]
    return config


@pytest.mark.parametrize("configs", [CONFIGS, PTB_CONFIGS], ids=["ud", "ptb"])
def test_configs_differ_in_their_encoder_only(configs):
    # best_elstm's other base: test_best_elstm_is_shared_elstm_with_the_character_rnn...
    loaded = {p.stem: spacy.util.load_config(p, interpolate=False) for p in configs
              if p.parent.name == "ptb" or p.stem not in gen.TOP_BASE}
    shared = {name: _without_encode(c) for name, c in loaded.items()}
    first = next(iter(shared.values()))
    for name, config in shared.items():
        assert config == first, name
    encoders = [c["components"]["tok2vec"]["model"]["encode"] for c in loaded.values()]
    assert all(a != b for i, a in enumerate(encoders) for b in encoders[i + 1:])


def test_ptb_configs_share_the_ud_configs_encoders_and_training():
    for path in PTB_CONFIGS:
        ptb = spacy.util.load_config(path, interpolate=False)
        ud = plain(path.stem)
        assert ptb["components"]["tok2vec"] == ud["components"]["tok2vec"], path.stem
        assert ptb["training"]["optimizer"] == ud["training"]["optimizer"], path.stem
        assert ptb["nlp"]["pipeline"] == ["tok2vec", "tagger", "parser"]
        assert f"configs/{path.stem}.cfg" in path.read_text().splitlines()[1]


@pytest.mark.parametrize(
    "source,text,message",
    [
        ("encoders/x.cfg", "# x\n\n[components.tok2vec.model.encode]\nwidth = 8\n\n[training]\nseed = 1\n",
         "may only set the encode section"),
        ("encoders/x.cfg", "[components.tok2vec.model.encode]\nwidth = 8\n", "no header comment"),
        ("encoders/x.cfg", "# x\n[components.tok2vec.model.embed]\nwidth = 8\n", "no \\[components"),
        ("base.cfg", "[paths]\ntrain = null\n", "needs the line"),
    ],
)
def test_sources_that_would_let_configs_drift_apart_are_refused(tmp_path, source, text, message):
    src = tmp_path / "src"
    shutil.copytree(ROOT / "configs" / "src", src)
    (src / source).write_text(text)
    with pytest.raises(gen.SourceError, match=message):
        gen.generate(src)
    assert run_script("--check", "--src", src, "--out", tmp_path).returncode == 2
