"""Every shipped config passes `spacy debug config` and `spacy init fill-config`
and builds its pipeline."""
from pathlib import Path

import pytest
import spacy
from spacy.cli.debug_config import debug_config
from spacy.cli.init_config import fill_config

ROOT = Path(__file__).parent.parent
CONFIGS = sorted((ROOT / "configs").glob("*.cfg"))
EXPERIMENTS = sorted((ROOT / "configs" / "experiments" / "encoders").glob("*.cfg"))
PTB_CONFIGS = sorted((ROOT / "configs" / "ptb").glob("*.cfg"))
SAMPLE = {"paths.train": str(ROOT / "assets/ud-ewt-sample/train.conllu"),
          "paths.dev": str(ROOT / "assets/ud-ewt-sample/dev.conllu")}


def test_the_configs_are_there():
    """The recommended pipelines at the top of configs/, the other encoders below
    configs/experiments/, and each in configs/README.md's index."""
    assert {p.stem for p in CONFIGS} == {"best_elstm", "shared_elstm", "shared_dbrnn",
                                         "shared_lstm", "shared_gru", "cnn", "elstm_brnn"}
    assert {p.stem for p in EXPERIMENTS} == {"elstm2_brnn", "dbrnn_elstm", "lstm_brnn",
                                             "gru_brnn", "elstm_brnn_v2", "shared_elstm2"}
    index = (ROOT / "configs" / "README.md").read_text()
    for path in sorted((ROOT / "configs").rglob("*")):
        if path.parent.name != "src" and "src" not in path.relative_to(ROOT / "configs").parts:
            if path.is_dir() or (path.parent == ROOT / "configs" and path.suffix == ".cfg"):
                name = path.relative_to(ROOT / "configs").as_posix()
                assert f"`{name}" in index, f"configs/README.md does not name {name}"


def test_the_shared_setting_configs_differ_from_shared_elstm_in_the_cell_only():
    best = spacy.util.load_config(ROOT / "configs" / "shared_elstm.cfg", interpolate=False)
    for cell in ("lstm", "gru", "elstm2"):
        folder = ROOT / "configs" / ("experiments/encoders" if cell == "elstm2" else "")
        config = spacy.util.load_config(folder / f"shared_{cell}.cfg", interpolate=False)
        encode = dict(config["components"]["tok2vec"]["model"]["encode"])
        assert encode.pop("cell") == cell
        want = dict(best["components"]["tok2vec"]["model"]["encode"])
        want.pop("cell")
        assert encode == want
        config["components"]["tok2vec"]["model"]["encode"]["cell"] = "elstm"
        assert config == best


def test_the_shared_dbrnn_has_shared_elstms_settings_on_the_dbrnn():
    best = spacy.util.load_config(ROOT / "configs" / "shared_elstm.cfg", interpolate=False)
    config = spacy.util.load_config(ROOT / "configs" / "shared_dbrnn.cfg", interpolate=False)
    encode = config["components"]["tok2vec"]["model"].pop("encode")
    want = best["components"]["tok2vec"]["model"].pop("encode")
    assert encode["@architectures"] == "spacy-elstm.DBRNNEncoder.v2"
    for key in ("width", "cell", "period", "gates", "dropout", "residual", "layer_norm",
                "projection", "input_dropout", "word_dropout"):
        assert encode[key] == want[key], key
    assert config == best


def checked_pipeline(path, tmp_path):
    """`spacy debug config` (it exits on an invalid config) and `spacy init
    fill-config` on ``path``; the filled config and the pipeline it builds."""
    debug_config(path, overrides=SAMPLE)
    filled = tmp_path / "filled.cfg"
    fill_config(filled, path)
    config = spacy.util.load_config(filled)
    return config, spacy.util.load_model_from_config(config, auto_fill=True, validate=True)


@pytest.mark.parametrize("path", CONFIGS + EXPERIMENTS, ids=lambda p: p.stem)
def test_config(path, tmp_path):
    config, nlp = checked_pipeline(path, tmp_path)
    assert nlp.pipe_names == ["tok2vec", "tagger", "morphologizer", "parser"]
    encode = config["components"]["tok2vec"]["model"]["encode"]
    expected = {"cnn": "spacy.MaxoutWindowEncoder.v2",
                "dbrnn_elstm": "spacy-elstm.DBRNNEncoder.v1",
                "elstm_brnn_v2": "spacy-elstm.RecurrentEncoder.v2",
                "best_elstm": "spacy-elstm.RecurrentEncoder.v2",
                "shared_elstm": "spacy-elstm.RecurrentEncoder.v2",
                "shared_lstm": "spacy-elstm.RecurrentEncoder.v2",
                "shared_gru": "spacy-elstm.RecurrentEncoder.v2",
                "shared_elstm2": "spacy-elstm.RecurrentEncoder.v2",
                "shared_dbrnn": "spacy-elstm.DBRNNEncoder.v2"}.get(
                    path.stem, "spacy-elstm.RecurrentEncoder.v1")
    assert encode["@architectures"] == expected


def test_the_v2_config_holds_the_v2_defaults():
    """configs/experiments/encoders/elstm_brnn_v2.cfg is RecurrentEncoder.v2 with its
    defaults, written out: when a default in spacy_elstm.architectures changes, so
    must the config."""
    from spacy_elstm import architectures as arch

    config = spacy.util.load_config(ROOT / "configs" / "experiments" / "encoders" / "elstm_brnn_v2.cfg",
                                    interpolate=False)
    encode = config["components"]["tok2vec"]["model"]["encode"]
    defaults = {"residual": arch.DEFAULT_RESIDUAL, "layer_norm": arch.DEFAULT_LAYER_NORM,
                "projection": arch.DEFAULT_PROJECTION, "dropout": arch.DEFAULT_DROPOUT,
                "input_dropout": arch.DEFAULT_INPUT_DROPOUT,
                "word_dropout": arch.DEFAULT_WORD_DROPOUT}
    assert {arg: encode[arg] for arg in defaults} == defaults
    v1 = spacy.util.load_config(ROOT / "configs" / "elstm_brnn.cfg", interpolate=False)
    v1_encode = dict(v1["components"]["tok2vec"]["model"]["encode"])
    assert {k: v for k, v in encode.items() if k not in defaults or k == "dropout"} == {
        **v1_encode, "@architectures": arch.RECURRENT_ENCODER_V2}


@pytest.mark.parametrize("path", PTB_CONFIGS, ids=lambda p: p.stem)
def test_ptb_config(path, tmp_path):
    """The Penn Treebank configs: one per encoder, a tagger and a parser."""
    filled = tmp_path / "filled.cfg"
    fill_config(filled, path)
    nlp = spacy.util.load_model_from_config(spacy.util.load_config(filled), auto_fill=True,
                                            validate=True)
    assert nlp.pipe_names == ["tok2vec", "tagger", "parser"]
    # every UD encoder but shared_elstm, whose encoder is best_elstm's
    assert {p.stem for p in PTB_CONFIGS} == {p.stem for p in CONFIGS + EXPERIMENTS} - {"shared_elstm"}


@pytest.mark.parametrize("path", sorted((ROOT / "configs" / "experiments" / "chars").glob("*.cfg")),
                         ids=lambda p: p.stem)
def test_character_input_config(path, tmp_path):
    _, nlp = checked_pipeline(path, tmp_path)
    assert nlp.pipe_names == ["tok2vec", "tagger", "morphologizer", "parser"]
    assert "CharacterEmbed" in path.read_text()
    tok2vec = nlp.get_pipe("tok2vec").model
    doc = nlp.make_doc("Words the model has never seen: zyxt.")
    tok2vec.initialize(X=[doc])
    assert tok2vec.predict([doc])[0].shape == (len(doc), tok2vec.get_dim("nO"))


def test_the_best_config_reads_characters_with_a_recurrent_layer(tmp_path):
    _, nlp = checked_pipeline(ROOT / "configs" / "best_elstm.cfg", tmp_path)
    assert nlp.pipe_names == ["tok2vec", "tagger", "morphologizer", "parser"]
    tok2vec = nlp.get_pipe("tok2vec").model
    doc = nlp.make_doc("Words the model has never seen: zyxt, and a very long word: "
                       "antidisestablishmentarianism.")
    tok2vec.initialize(X=[doc])
    assert tok2vec.predict([doc])[0].shape == (len(doc), tok2vec.get_dim("nO"))


# the parser's factory in each folder of variant pipelines (experiments/upos: spaCy's)
PARSER_FACTORY = {"biaffine": "elstm_biaffine_parser", "seqparse": "elstm_seq_parser",
                  "upos": "parser"}


@pytest.mark.parametrize("path", [p for folder in ("biaffine", "seqparse", "experiments/biaffine",
                                                   "experiments/upos")
                                  for p in sorted((ROOT / "configs" / folder).glob("*.cfg"))],
                         ids=lambda p: p.relative_to(ROOT / "configs").with_suffix("").as_posix())
def test_variant_pipeline_config(path, tmp_path):
    """Another parser, or a UPOS tagger of its own after the morphologizer (``*_upos``)."""
    _, nlp = checked_pipeline(path, tmp_path)
    upos = ["upos"] if path.stem.endswith("_upos") else []
    assert nlp.pipe_names == ["tok2vec", "tagger", "morphologizer", *upos, "parser"]
    assert nlp.get_pipe_meta("parser").factory == PARSER_FACTORY[path.parent.name]
    if upos:
        assert nlp.get_pipe_meta("upos").factory == "elstm_tagger"


@pytest.mark.parametrize("path,name", [("experiments/raw/best_elstm_as_written", "best_elstm"),
                                       ("experiments/raw/cnn_as_written", "cnn")])
def test_raw_text_config(path, name, tmp_path):
    """configs/raw/ before its text variants (experiments/raw/*_as_written): its base (one
    gold sentence per Doc) with the treebank's tokenizer and the character-level
    sentence splitter, both learning from the training corpus file, a
    lemmatizer, and a tok2vec that reads sentence by sentence (its embed and
    encode the base's), and nothing else changed."""
    config, nlp = checked_pipeline(ROOT / "configs" / f"{path}.cfg", tmp_path)
    assert nlp.pipe_names == ["elstm_senter", "tok2vec", "tagger", "morphologizer",
                              "lemmatizer", "parser"]
    assert type(nlp.tokenizer).__name__ == "TreebankTokenizer"
    raw = spacy.util.load_config(ROOT / "configs" / f"{path}.cfg", interpolate=False)
    base = spacy.util.load_config(ROOT / "configs" / f"{name}.cfg", interpolate=False)
    assert raw["corpora"]["train"]["gold_preproc"] is True
    assert raw["corpora"]["dev"]["gold_preproc"] is True
    for section in (raw["initialize"]["tokenizer"],
                    raw["initialize"]["components"]["elstm_senter"]):
        assert section["treebank"] == "${paths.train}"
    for key in ("components", "training", "corpora", "nlp", "initialize"):
        raw[key].pop("lemmatizer", None)
        raw[key].pop("elstm_senter", None)
    raw["initialize"]["components"].pop("elstm_senter")
    raw["nlp"]["pipeline"].remove("lemmatizer")
    raw["nlp"]["pipeline"].remove("elstm_senter")
    raw["nlp"]["tokenizer"] = base["nlp"]["tokenizer"]
    raw["initialize"]["tokenizer"] = base["initialize"]["tokenizer"]
    raw["training"]["score_weights"] = base["training"]["score_weights"]
    assert raw["components"]["tok2vec"]["model"]["@architectures"] == \
        "spacy-elstm.SentenceTok2Vec.v1"
    raw["components"]["tok2vec"]["model"]["@architectures"] = "spacy.Tok2Vec.v2"
    # line breaks inside training sentences (spaCy's whitespace augmentation)
    augmenter = raw["corpora"]["train"]["augmenter"]
    assert augmenter["@augmenters"] == "spacy.combined_augmenter.v1"
    assert augmenter["whitespace_level"] > 0 and "\n" in augmenter["whitespace_variants"]
    raw["corpora"]["train"]["augmenter"] = base["corpora"]["train"]["augmenter"]
    assert raw == base


@pytest.mark.parametrize("name", ["best_elstm", "cnn"])
def test_raw_text_on_documents_config(name, tmp_path):
    """configs/experiments/raw/*_documents.cfg: raw/* trained on documents, its
    tokenizer and sentence splitter learning from the training documents (as
    raw/* was when they ran: experiments/raw/best_elstm_wide_words, cnn_as_written)."""
    path = ROOT / "configs" / "experiments" / "raw" / f"{name}_documents.cfg"
    _, nlp = checked_pipeline(path, tmp_path)
    assert nlp.pipe_names[0] == "elstm_senter"
    config = spacy.util.load_config(path, interpolate=False)
    base = ("experiments/raw/best_elstm_wide_words" if name == "best_elstm"
            else f"experiments/raw/{name}_as_written")
    raw = spacy.util.load_config(ROOT / "configs" / f"{base}.cfg", interpolate=False)
    assert config["corpora"]["train"]["gold_preproc"] is False
    for section, of_raw in ((config["initialize"]["tokenizer"], raw["initialize"]["tokenizer"]),
                            (config["initialize"]["components"]["elstm_senter"],
                             raw["initialize"]["components"]["elstm_senter"])):
        assert section["treebank"] is None
        section["treebank"] = of_raw["treebank"]
    for split in ("train", "dev"):
        config["corpora"][split]["gold_preproc"] = True
    # its tok2vec reads a whole document, in training too (raw/*'s, sentence by sentence)
    assert config["components"]["tok2vec"]["model"]["@architectures"] == "spacy.Tok2Vec.v2"
    config["components"]["tok2vec"]["model"]["@architectures"] = \
        raw["components"]["tok2vec"]["model"]["@architectures"]
    assert config == raw


@pytest.mark.parametrize("name", ["best_elstm", "cnn"])
def test_raw_text_variants_config(name, tmp_path):
    """configs/raw/best_elstm.cfg and configs/raw/cnn.cfg: the raw config as it
    was (experiments/raw/*_as_written) trained with spacy-elstm's augmenter (a
    tenth of the sentences in lower case, a tenth without punctuation, the
    whitespace tokens as before), a lemmatizer whose edit trees read lower case
    first and the training data's lemmas looked up after it (issue 72), a senter
    whose word-level model reads word endings and whose models are each three of
    as many seeds, nothing else changed; its header says what the base's does,
    then what these add."""
    path = ROOT / "configs" / "raw" / f"{name}.cfg"
    base = f"experiments/raw/{name}_as_written"
    checked_pipeline(path, tmp_path)
    header = (ROOT / "configs" / f"{base}.cfg").read_text().split("# Generated from")[0]
    assert path.read_text().startswith(header + "# The tagger, morphologizer, lemmatizer")
    variant = spacy.util.load_config(path, interpolate=False)
    raw = spacy.util.load_config(ROOT / "configs" / f"{base}.cfg", interpolate=False)
    augmenter = dict(variant["corpora"]["train"]["augmenter"])
    assert augmenter.pop("@augmenters") == "spacy-elstm.text_variants_augmenter.v1"
    assert augmenter.pop("unpunctuated_level") == augmenter["lower_level"] == 0.1
    shipped = dict(raw["corpora"]["train"]["augmenter"])
    shipped.pop("@augmenters")
    assert augmenter == {**shipped, "lower_level": 0.1}
    variant["corpora"]["train"]["augmenter"] = raw["corpora"]["train"]["augmenter"]
    pipeline = variant["nlp"]["pipeline"]
    assert pipeline[pipeline.index("lemmatizer") + 1] == "elstm_lemma_lookup"
    pipeline.remove("elstm_lemma_lookup")
    assert variant["components"].pop("elstm_lemma_lookup") == {
        "factory": "elstm_lemma_lookup", "min_count": 1, "min_share": 0.9}
    assert variant["initialize"]["components"].pop("elstm_lemma_lookup") == {
        "treebank": "${paths.train}"}
    assert variant["components"]["lemmatizer"]["factory"] == "elstm_lemmatizer"
    assert raw["components"]["lemmatizer"]["factory"] == "trainable_lemmatizer"
    variant["components"]["lemmatizer"]["factory"] = "trainable_lemmatizer"
    senter = variant["components"]["elstm_senter"]
    assert [senter.pop(k) for k in ("word_suffix_chars", "char_models", "word_models")] == [3, 3, 3]
    assert variant == raw


def test_every_tagger_learns_a_tag_that_starts_with_an_exclamation_mark():
    """Vietnamese-VTB tags "!" as "!": spaCy's tagger reads a tag starting with
    its neg_prefix as a negative label ("" after the prefix: KeyError), so no
    shipped config may keep the default "!"."""
    from spacy.tokens import Doc
    from spacy.training import Example

    prefixes = set()
    for path in sorted((ROOT / "configs").rglob("*.cfg")):
        if "src" in path.relative_to(ROOT / "configs").parts:  # sources with slots
            continue
        config = spacy.util.load_config(path, interpolate=False)
        for name, component in config.get("components", {}).items():
            if component.get("factory") == "tagger":
                prefixes.add(component.get("neg_prefix", "!"))
    assert prefixes == {""}
    nlp = spacy.blank("xx")
    nlp.add_pipe("tagger", config={"neg_prefix": ""})
    doc = Doc(nlp.vocab, words=["Ồ", "!"], tags=["E", "!"])
    nlp.initialize(lambda: [Example(nlp.make_doc(doc.text), doc)])
    losses = nlp.update([Example(nlp.make_doc(doc.text), doc)])
    assert losses["tagger"] > 0
    default = spacy.blank("xx")
    default.add_pipe("tagger")  # spaCy's default: the failure this guards against
    default.initialize(lambda: [Example(default.make_doc(doc.text), doc)])
    with pytest.raises(KeyError):
        default.update([Example(default.make_doc(doc.text), doc)])
