"""The configs of every family are generated from configs/src by
scripts/generate_configs.py: the committed files are exactly what it writes,
and the members of a family differ in their blocks only."""
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
EXPERIMENTS = sorted((ROOT / "configs" / "experiments" / "encoders").glob("*.cfg"))
UD_CONFIGS = CONFIGS + EXPERIMENTS
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
    made = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.cfg")}
    committed = {p.relative_to(ROOT / "configs").as_posix()
                 for folder in {f.folder for f in gen.FAMILIES}
                 | {v.output.rpartition("/")[0] for v in gen.VARIANTS}
                 for p in (ROOT / "configs" / folder).glob("*.cfg")}
    assert made == committed - {f"{name}.cfg" for name in gen.HANDWRITTEN}
    for name in sorted(made):
        assert (tmp_path / name).read_bytes() == (ROOT / "configs" / name).read_bytes(), name


def test_every_family_has_the_members_it_names():
    made = gen.generate()
    assert {name for name in made if "/" not in name} == set(gen.RECOMMENDED)
    assert sorted(n.split("/")[-1] for n in made if n.startswith("experiments/encoders/")) == \
        sorted(gen.STUDY_ENCODERS)
    variants = {variant.output for variant in gen.VARIANTS}
    assert sorted(n.split("/")[1] for n in made if n.startswith("paper/") and n not in variants) \
        == sorted(gen.PAPER)
    assert sorted(n.split("/")[1] for n in made if n.startswith("labeller/")) == \
        sorted(gen.MACRO_TAGGERS + gen.TUNED_TAGGERS)
    for folder, members in (("experiments/chars", ["best_elstm", "cnn"]),
                            ("biaffine", ["best_elstm", "cnn", "shared_elstm"]),
                            ("seqparse", ["best_elstm", "cnn"])):
        assert sorted(n.split("/")[-1] for n in made if n.startswith(folder + "/")) == members
    ptb = {n.split("/")[1] for n in made if n.startswith("ptb/")}
    assert ptb == set(gen.RECOMMENDED + gen.STUDY_ENCODERS) - {"shared_elstm"}


def test_best_elstm_is_shared_elstm_with_the_character_rnn_beside_narrower_word_features():
    """best_elstm: shared_elstm's tok2vec with the character embedding beside its
    word features, which are 128 wide (issue 43), half the encoder's width."""
    best = spacy.util.load_config(ROOT / "configs" / "best_elstm.cfg", interpolate=False)
    shared = plain("best_elstm")
    embed = best["components"]["tok2vec"]["model"].pop("embed")
    assert embed["@architectures"] == "spacy-elstm.CharRecurrentEmbed.v1"
    assert embed["cell"] == "elstm"
    words = shared["components"]["tok2vec"]["model"].pop("embed")
    assert words["width"] == "${components.tok2vec.model.encode.width}"
    assert embed["words"] == {**words, "width": 128}
    assert best == shared


def test_the_wide_words_experiments_are_best_elstm_as_it_was():
    """best_elstm_wide_words (and its raw-text twin) differ from best_elstm and
    raw/best_elstm before its text variants (experiments/raw/best_elstm_as_written)
    in the word features' width only: as wide as the encoder (and the raw twin in
    its tok2vec, which reads a paragraph whole, as it did then)."""
    raw = "experiments/raw/best_elstm_as_written"
    for wide, now in (("experiments/speed/best_elstm_wide_words", "best_elstm"),
                      ("experiments/raw/best_elstm_wide_words", raw)):
        config = spacy.util.load_config(ROOT / "configs" / f"{wide}.cfg", interpolate=False)
        base = spacy.util.load_config(ROOT / "configs" / f"{now}.cfg", interpolate=False)
        assert base["components"]["tok2vec"]["model"]["embed"]["words"]["width"] == 128
        words = config["components"]["tok2vec"]["model"]["embed"]["words"]
        assert words["width"] == "${components.tok2vec.model.encode.width}"
        words["width"] = 128
        if now == raw:
            assert base["components"]["tok2vec"]["model"]["@architectures"] == \
                "spacy-elstm.SentenceTok2Vec.v1"
            config["components"]["tok2vec"]["model"]["@architectures"] = \
                "spacy-elstm.SentenceTok2Vec.v1"
        assert config == base


def plain(name):
    """The config on configs/src/base.cfg with the encoder ``name``: its own,
    except for best_elstm (on configs/src/charrnn.cfg), whose is shared_elstm."""
    name = "shared_elstm" if name == "best_elstm" else name
    folder = ROOT / "configs" / ("" if name in gen.RECOMMENDED else "experiments/encoders")
    return spacy.util.load_config(folder / f"{name}.cfg", interpolate=False)


def test_character_input_configs_differ_from_theirs_in_the_embedding_only():
    for path in sorted((ROOT / "configs" / "experiments" / "chars").glob("*.cfg")):
        chars = spacy.util.load_config(path, interpolate=False)
        words = plain(path.stem)
        embed = chars["components"]["tok2vec"]["model"].pop("embed")
        assert embed["@architectures"] == "spacy.CharacterEmbed.v2"
        del words["components"]["tok2vec"]["model"]["embed"]
        assert chars == words, path.stem


LEARN_RATE = ("training", "optimizer", "learn_rate", "initial_rate")


def same_pipeline(name: str) -> str:
    """The config below configs/ whose pipeline biaffine/<name> puts its parser on:
    best_elstm's as it was before issue 43 (word features as wide as the encoder)."""
    return "experiments/speed/best_elstm_wide_words.cfg" if name == "best_elstm" else f"{name}.cfg"


@pytest.mark.parametrize("folder,factory,architecture", [
    ("biaffine", "elstm_biaffine_parser", "spacy-elstm.BiaffineParser.v1"),
    ("seqparse", "elstm_seq_parser", "spacy-elstm.RecurrentTagger.v1")])
def test_parser_variants_differ_from_theirs_in_the_parser_only(folder, factory, architecture):
    """Each config of biaffine/ is configs/<name>.cfg with another parser (and
    biaffine/best_elstm, the search's setting, its parser reading the listener
    through a recurrent layer of its own, and its learning rate); each of
    seqparse/ is the config on configs/src/base.cfg with its encoder."""
    for path in sorted((ROOT / "configs" / folder).glob("*.cfg")):
        other = spacy.util.load_config(path, interpolate=False)
        words = (spacy.util.load_config(ROOT / "configs" / same_pipeline(path.stem), interpolate=False)
                 if folder == "biaffine" else plain(path.stem))
        parser = other["components"].pop("parser")
        assert parser["factory"] == factory
        assert parser["model"]["@architectures"] == architecture
        plain_parser = words["components"].pop("parser")
        tok2vec = parser["model"]["tok2vec"]
        if folder == "biaffine" and path.stem == "best_elstm":
            assert tok2vec["@layers"] == "chain.v1"
            assert list(tok2vec["*"]) == ["listener", "encode"]
            assert tok2vec["*"]["encode"]["@architectures"] == "spacy-elstm.RecurrentEncoder.v2"
            tok2vec = tok2vec["*"]["listener"]
            section = words
            for key in LEARN_RATE[:-1]:
                section = section[key]
            section[LEARN_RATE[-1]] = 0.002
        assert tok2vec == plain_parser["model"]["tok2vec"]
        assert parser["scorer"] == plain_parser["scorer"]
        assert other == words, path.stem


def test_the_biaffine_listener_experiment_is_best_elstm_without_the_parsers_own_layer():
    listener = spacy.util.load_config(
        ROOT / "configs" / "experiments" / "biaffine" / "best_elstm_listener.cfg", interpolate=False)
    best = spacy.util.load_config(ROOT / "configs" / "biaffine" / "best_elstm.cfg",
                                  interpolate=False)
    model = best["components"]["parser"]["model"]
    model["tok2vec"] = model["tok2vec"]["*"]["listener"]
    assert listener == best


@pytest.mark.parametrize("upos_path,best_path", [
    ("experiments/biaffine/best_elstm_upos.cfg", "biaffine/best_elstm.cfg"),
    ("experiments/upos/best_elstm_upos.cfg", "experiments/speed/best_elstm_wide_words.cfg")])
def test_the_upos_experiments_are_best_elstm_with_a_upos_tagger(upos_path, best_path):
    upos = spacy.util.load_config(ROOT / "configs" / upos_path, interpolate=False)
    best = spacy.util.load_config(ROOT / "configs" / best_path, interpolate=False)
    tagger = upos["components"].pop("upos")
    assert (tagger["factory"], tagger["attr"], tagger["overwrite"]) == ("elstm_tagger", "pos", True)
    assert tagger["model"]["tok2vec"] == best["components"]["tagger"]["model"]["tok2vec"]
    names = upos["nlp"]["pipeline"]
    assert names.index("morphologizer") < names.index("upos") < names.index("parser")
    names.remove("upos")
    assert upos == best


def test_the_biaffine_pretraining_config_is_best_elstm_with_separate_directions():
    """configs/pretrain/biaffine_best_elstm_next_word.cfg (a variant) is
    biaffine/best_elstm.cfg with separate directions in the shared encoder and
    elstm_next_word.cfg's raw text, pretraining corpus and [pretraining]."""
    pretrain = spacy.util.load_config(
        ROOT / "configs" / "pretrain" / "biaffine_best_elstm_next_word.cfg", interpolate=False)
    best = spacy.util.load_config(ROOT / "configs" / "biaffine" / "best_elstm.cfg",
                                  interpolate=False)
    plain_pretrain = spacy.util.load_config(
        ROOT / "configs" / "pretrain" / "elstm_next_word.cfg", interpolate=False)
    encode = pretrain["components"]["tok2vec"]["model"]["encode"]
    assert encode.pop("separate_directions") is True
    assert pretrain["paths"].pop("raw_text") is None
    assert pretrain["corpora"].pop("pretrain") == plain_pretrain["corpora"]["pretrain"]
    assert pretrain.pop("pretraining") == plain_pretrain["pretraining"]
    best.pop("pretraining", None)
    assert pretrain == best


def test_check_passes_on_the_committed_configs():
    result = run_script("--check")
    assert result.returncode == 0, result.stderr


@pytest.fixture
def copy(tmp_path):
    out = tmp_path / "configs"
    shutil.copytree(ROOT / "configs", out, ignore=shutil.ignore_patterns("src", "*.md"))
    return out


def test_check_fails_on_an_edited_config(copy):
    path = copy / "experiments" / "encoders" / "gru_brnn.cfg"
    edited = re.sub(r"(?m)^initial_rate = .*$", "initial_rate = 0.0123", path.read_text())
    assert edited != path.read_text()
    path.write_text(edited)
    result = run_script("--check", "--out", copy)
    assert result.returncode == 1
    assert "gru_brnn.cfg differs" in result.stderr
    assert path.read_text().count("initial_rate = 0.0123") == 1  # --check writes nothing


def test_check_fails_on_a_missing_or_extra_config(copy):
    (copy / "cnn.cfg").unlink()
    shutil.copy(copy / "elstm_brnn.cfg", copy / "lstm2_brnn.cfg")
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


@pytest.mark.parametrize("configs", [UD_CONFIGS, PTB_CONFIGS], ids=["ud", "ptb"])
def test_configs_differ_in_their_encoder_only(configs):
    # best_elstm's other base: test_best_elstm_is_shared_elstm_with_the_character_rnn...
    loaded = {p.stem: spacy.util.load_config(p, interpolate=False) for p in configs
              if p.parent.name == "ptb" or p.stem != "best_elstm"}
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
        assert f"configs/src/encoders/{path.stem}.cfg" in path.read_text().splitlines()[2]


@pytest.mark.parametrize(
    "source,text,message",
    [
        ("encoders/cnn.cfg", "# x\n\n[components.tok2vec.model.encode]\nwidth = 8\n\n[training]\nseed = 1\n",
         "may only set the encode section"),
        ("encoders/cnn.cfg", "[components.tok2vec.model.encode]\nwidth = 8\n", "no header comment"),
        ("encoders/cnn.cfg", "# x\n[components.tok2vec.model.embed]\nwidth = 8\n", "no \\[components"),
        ("encoders/x.cfg", "# x\n\n[components.tok2vec.model.encode]\nwidth = 8\n", "no family makes"),
        ("base.cfg", "[paths]\ntrain = null\n", "needs a slot line"),
        ("variants/experiments/upos/other.cfg", "# x\n\n[paths]\ndev = null\n", "no variant makes"),
        ("paper/pos_rnn.cfg", "# x\n\n{{ model }}\n[components.elstm_tagger]\n", "no block for the slot"),
        ("paper/pos_rnn.cfg", "# x\n{{ component }}\nelstm_tagger\n{{ score }}\nx = 1\n",
         "the base has no slot for"),
    ],
)
def test_sources_that_would_let_configs_drift_apart_are_refused(tmp_path, source, text, message):
    src = tmp_path / "src"
    shutil.copytree(ROOT / "configs" / "src", src)
    (src / source).write_text(text)
    with pytest.raises(gen.SourceError, match=message):
        gen.generate(src)
    assert run_script("--check", "--src", src, "--out", tmp_path).returncode == 2


def test_a_slot_inside_a_line_takes_one_line(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT / "configs" / "src", src)
    path = src / "paper" / "pos_rnn.cfg"
    path.write_text(path.read_text().replace("{{ component }}\nelstm_tagger\n",
                                             "{{ component }}\nelstm_tagger\nelstm_tagger\n"))
    with pytest.raises(gen.SourceError, match="must be one line, not 2"):
        gen.generate(src)


@pytest.mark.parametrize("family,member,section", [
    ("paper", "pos_brnn", ("components", "elstm_tagger")),
    ("paper", "dep_seq2seq", ("components", "elstm_seq_parser")),
    ("labeller", "dbrnn_tagger", ("components", "elstm_tagger", "model")),
])
def test_family_members_differ_from_another_in_their_blocks_only(family, member, section):
    """The paper configs differ in the component, its model and the score weights;
    the macro-taggers in the tagger's model."""
    first = {"paper": "pos_rnn", "labeller": "brnn_tagger"}[family]
    load = lambda name: spacy.util.load_config(ROOT / "configs" / family / f"{name}.cfg",  # noqa: E731
                                               interpolate=False)
    a, b = load(first), load(member)
    for config in (a, b):
        config["training"].pop("score_weights")
        node = config
        for key in section[:-1]:
            node = node[key]
        node.pop(section[-1], None)
        node.pop("elstm_tagger", None), node.pop("elstm_seq_parser", None)
        config["nlp"].pop("pipeline")
    assert a == b


BASE = """# the base

[paths]
train = null

[components]

[components.a]
factory = "tagger"

[components.a.model]
@architectures = "spacy.Tagger.v2"
nO = null

[components.a.model.tok2vec]
@layers = "chain.v1"

[components.a.model.tok2vec.*.one]
@architectures = "spacy.Tok2VecListener.v1"
width = 8

[training]
seed = 0
"""


def test_a_variant_merges_keys_replaces_another_function_and_adds_sections(tmp_path):
    source = tmp_path / "variant.cfg"
    source.write_text("## a note\n# the variant\n\n[paths]\ndev = null\ntrain = \"t\"\n\n"
                      "[components.a.model.tok2vec]\n@architectures = \"spacy.Tok2VecListener.v1\"\n"
                      "width = 8\n\n[components.b]\nfactory = \"parser\"\n")
    text = gen.apply_variant(BASE, source)
    assert text.startswith("# the variant\n\n[paths]\ntrain = \"t\"\ndev = null\n\n")
    config = spacy.util.load_config_from_str(text, interpolate=False)
    assert dict(config["components"]["a"]["model"]["tok2vec"]) == {
        "@architectures": "spacy.Tok2VecListener.v1", "width": 8}  # the chain's parts gone
    assert "*" not in text
    assert list(config["components"]) == ["a", "b"]  # b after the last of components' sections
    assert text.index("[components.b]") < text.index("[training]")


def test_a_variant_that_replaces_a_model_can_give_it_sections_under_a_star(tmp_path):
    """A "*" section has no header of its own: the subsections under it go after
    their grandparent's last section (as configs/paper/dep_convseq2seq.cfg's tok2vec)."""
    source = tmp_path / "variant.cfg"
    source.write_text("# v\n[components.a.model]\n@architectures = \"spacy.Tagger.v1\"\n"
                      "nO = null\n\n[components.a.model.tok2vec]\n@layers = \"chain.v1\"\n\n"
                      "[components.a.model.tok2vec.*.two]\n"
                      "@architectures = \"spacy.Tok2VecListener.v1\"\nwidth = 16\n")
    text = gen.apply_variant(BASE, source)
    config = spacy.util.load_config_from_str(text, interpolate=False)
    model = config["components"]["a"]["model"]
    assert model["@architectures"] == "spacy.Tagger.v1"
    assert list(model["tok2vec"]["*"]) == ["two"]  # the base's "one" went with its model
    assert text.index("[components.a.model.tok2vec.*.two]") < text.index("[training]")


def test_a_variant_of_several_bases_names_each_and_can_open_with_its_header(tmp_path):
    """``{base}`` in a variant's header is the base's name, and a line
    ``# {base header}`` the base's header up to its "# Generated from" line."""
    source = tmp_path / "variant.cfg"
    source.write_text("# {base header}\n# and more than configs/{base}.cfg\n"
                      "# Generated from the variant\n[paths]\ndev = null\n")
    base = BASE.replace("# the base\n", "# the base,\n# in two lines\n# Generated from it\n")
    text = gen.apply_variant(base, source, "raw/x")
    assert text.startswith("# the base,\n# in two lines\n# and more than configs/raw/x.cfg\n"
                           "# Generated from the variant\n\n[paths]\n")


@pytest.mark.parametrize("text,message", [
    ("[paths]\ndev = null\n", "needs a header comment"),
    ("# v\n[corpora.x]\npath = null\n", r"no parent section \[corpora\]"),
    ("# v\n[paths]\ndev\n", "sets no key"),
])
def test_a_variant_that_cannot_be_applied_is_refused(tmp_path, text, message):
    source = tmp_path / "variant.cfg"
    source.write_text(text)
    with pytest.raises(gen.SourceError, match=message):
        gen.apply_variant(BASE, source)


TOK2VEC_BASE = """[components]

[components.tok2vec]
factory = "tok2vec"

[components.tok2vec.model]
@architectures = "spacy.Tok2Vec.v2"

[components.tok2vec.model.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 8
attrs = ["NORM"]
rows = [100]
include_static_vectors = false

[components.tok2vec.model.encode]
@architectures = "spacy.MaxoutWindowEncoder.v2"
width = 8
depth = 1
window_size = 1
maxout_pieces = 2
"""


def test_a_variant_naming_a_function_of_the_same_arguments_keeps_the_base_s(tmp_path):
    """A drop-in (spacy-elstm.SentenceTok2Vec.v1 for spacy.Tok2Vec.v2, both of embed
    and encode) keeps the base's arguments and subsections, as configs/raw/'s tok2vec."""
    source = tmp_path / "variant.cfg"
    source.write_text("# v\n[components.tok2vec.model]\n"
                      "@architectures = \"spacy-elstm.SentenceTok2Vec.v1\"\n")
    text = gen.apply_variant(TOK2VEC_BASE, source)
    assert text == "# v\n\n" + TOK2VEC_BASE.replace('"spacy.Tok2Vec.v2"',
                                                    '"spacy-elstm.SentenceTok2Vec.v1"')
    # a subsection beside it is merged into the base's, as anywhere
    source.write_text(source.read_text() + "\n[components.tok2vec.model.embed]\nwidth = 16\n")
    config = spacy.util.load_config_from_str(gen.apply_variant(TOK2VEC_BASE, source),
                                             interpolate=False)
    assert config["components"]["tok2vec"]["model"]["embed"]["width"] == 16
    assert config["components"]["tok2vec"]["model"]["encode"]["depth"] == 1


def test_a_variant_naming_a_function_of_other_arguments_replaces_the_base_s(tmp_path):
    source = tmp_path / "variant.cfg"
    source.write_text("# v\n[components.tok2vec.model]\n"
                      "@architectures = \"spacy.Tok2VecListener.v1\"\nwidth = 8\n")
    config = spacy.util.load_config_from_str(gen.apply_variant(TOK2VEC_BASE, source),
                                             interpolate=False)
    assert dict(config["components"]["tok2vec"]["model"]) == {
        "@architectures": "spacy.Tok2VecListener.v1", "width": 8}
