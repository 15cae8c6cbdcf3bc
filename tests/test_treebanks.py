"""Any UD treebank through the project: its folder found by UD's file names,
the language spaCy builds it in (xx where spaCy has none), its conversion, the
training options it sets, its package named for it with its own licence, and
the project's one variable."""
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
import srsly
from spacy.util import load_config, load_model_from_config
from thinc.api import ConfigValidationError
from typer.testing import CliRunner

from spacy_elstm.cli.app import app
from spacy_elstm.treebanks.conllu_reader import read_conllu
from spacy_elstm.treebanks.ud_folder import (TreebankFolderError, find_treebank, language_note,
                                             own_components, own_tokenizer_settings,
                                             spacy_language, treebank_notes)
from spacy_elstm.treebanks.ud_splits import held_out_start

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "assets" / "ud-ewt-sample"
RAW_CONFIG = ROOT / "configs" / "raw" / "best_elstm.cfg"
runner = CliRunner()


def ud_folder(tmp_path: Path, folder: str, stem: str, splits=("train", "dev", "test"),
              xpos: bool = True, lemmas: bool = True, forms: bool = True) -> Path:
    """A treebank folder of the committed EWT sample's first sentences under UD's
    names (without XPOS, lemmas or forms: every word's `_`)."""
    path = tmp_path / folder
    path.mkdir()
    text = (SAMPLE / "dev.conllu").read_text(encoding="utf8")
    if not xpos:
        text = re.sub(r"^(\d+\t(?:[^\t]*\t){3})[^\t]*", r"\1_", text, flags=re.M)
    if not lemmas:
        text = re.sub(r"^(\d+\t[^\t]*\t)[^\t]*", r"\1_", text, flags=re.M)
    if not forms:
        text = re.sub(r"^([\d-]+\t)[^\t]*", r"\1_", text, flags=re.M)
    sentences = text.split("\n\n")[:12]
    for split in splits:
        (path / f"{stem}-ud-{split}.conllu").write_text("\n\n".join(sentences) + "\n\n",
                                                         encoding="utf8")
    (path / "LICENSE.txt").write_text("Licensed under Creative Commons Attribution-NonCommercial-"
                                      "ShareAlike 3.0.\n", encoding="utf8")
    return path


def test_a_folder_s_language_comes_from_its_file_names(tmp_path):
    uyghur = find_treebank(ud_folder(tmp_path, "UD_Uyghur-UDT", "ug_udt"))
    assert (uyghur.code, uyghur.stem, uyghur.lang) == ("ug", "ug_udt", "xx")
    assert uyghur.files["dev"].name == "ug_udt-ud-dev.conllu"
    assert uyghur.package_stem() == "ug_udt"  # the code kept under spaCy's xx prefix
    turkish = find_treebank(ud_folder(tmp_path, "UD_Turkish-IMST", "tr_imst"))
    assert (turkish.lang, turkish.package_stem()) == ("tr", "imst")
    assert "no language class for 'ug'" in language_note(uyghur)
    assert "'tr'" in language_note(turkish)


@pytest.mark.parametrize("code, lang", [("en", "en"), ("el", "el"), ("cop", "xx"),
                                        ("lzh", "xx"), ("wo", "xx"), ("cy", "xx"),
                                        ("zh", "xx"), ("ja", "xx"), ("ko", "ko"),
                                        ("vi", "vi"), ("ar", "ar")])
def test_spacy_s_class_where_it_has_one_else_xx(code, lang):
    assert spacy_language(code) == lang


def test_a_class_whose_own_morphologizer_takes_other_settings_is_not_used(tmp_path):
    """Japanese's class builds its morphologizer with a factory of its own, which
    has no label_smoothing: the raw config cannot be built in it, and is built as xx."""
    assert own_components("ja") == ("morphologizer",)
    assert own_components("en") == ()  # its own lemmatizer takes spaCy's settings
    config = load_config(RAW_CONFIG, overrides={"nlp.lang": "ja"})
    with pytest.raises(ConfigValidationError, match="label_smoothing"):
        load_model_from_config(config, auto_fill=True, validate=True)
    japanese = find_treebank(ud_folder(tmp_path, "UD_Japanese-GSD", "ja_gsd"))
    assert (japanese.lang, japanese.package_stem()) == ("xx", "ja_gsd")
    assert "spaCy's class for 'ja' builds its own morphologizer" in language_note(japanese)
    config = load_config(RAW_CONFIG, overrides={"nlp.lang": japanese.lang})
    assert load_model_from_config(config, auto_fill=True, validate=True).lang == "xx"


def test_a_class_that_initialises_its_tokenizer_its_own_way_is_not_used(tmp_path):
    """Chinese's class gives [initialize.tokenizer] pkuseg's settings, which the
    treebank's tokenizer does not take: initialising the raw config in it fails,
    so a Chinese treebank is built as xx (Chinese-GSD, Chinese-GSDSimp ...)."""
    import spacy_elstm  # noqa: F401  (the tokenizer's registration)

    assert own_tokenizer_settings("zh") == ("pkuseg_model", "pkuseg_user_dict")
    assert own_tokenizer_settings("en") == () and own_tokenizer_settings("vi") == ()
    nlp = load_model_from_config(load_config(RAW_CONFIG, overrides={"nlp.lang": "zh"}),
                                 auto_fill=True, validate=True)
    with pytest.raises(ConfigValidationError, match="pkuseg_model"):
        nlp.initialize(lambda: [])
    chinese = find_treebank(ud_folder(tmp_path, "UD_Chinese-GSD", "zh_gsd"))
    assert (chinese.lang, chinese.package_stem()) == ("xx", "zh_gsd")
    assert ("spaCy's class for 'zh' initialises its own tokenizer with pkuseg_model, "
            "pkuseg_user_dict") in language_note(chinese)


def test_a_folder_without_a_train_or_test_split_is_named_with_what_it_lacks(tmp_path):
    folder = ud_folder(tmp_path, "UD_Welsh-CCG", "cy_ccg", splits=("train", "dev"))
    with pytest.raises(TreebankFolderError, match=r"UD_Welsh-CCG: no test split .*"
                                                  r"cy_ccg-ud-dev.conllu, cy_ccg-ud-train.conllu"):
        find_treebank(folder)
    only_test = ud_folder(tmp_path, "UD_Akuntsu-TuDeT", "aqz_tudet", splits=("test",))
    with pytest.raises(TreebankFolderError, match=r"no train split \(UD ships some treebanks "
                                                  r"with a test split alone"):
        find_treebank(only_test)
    with pytest.raises(TreebankFolderError, match="no such folder"):
        find_treebank(tmp_path / "UD_Nothing")


def sentence_blocks(path: Path):
    return [block for block in path.read_text(encoding="utf8").split("\n\n") if block.strip()]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """The cache derived splits are written to, empty."""
    monkeypatch.setenv("SPACY_ELSTM_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_treebank_without_a_dev_split_holds_one_out_from_the_end_of_train(tmp_path, cache):
    """As Kurmanji-MG or Buryat-BDT, which UD ships with train and test alone:
    dev is train's last tenth, from a document's start, and train the rest;
    the treebank's folder is only read, and a second reading writes nothing."""
    folder = tmp_path / "UD_Kurmanji-MG"
    folder.mkdir()
    (folder / "LICENSE.txt").write_text("CC BY-SA 4.0\n", encoding="utf8")
    train = folder / "kmr_mg-ud-train.conllu"
    train.write_text((SAMPLE / "train.conllu").read_text(encoding="utf8"), encoding="utf8")
    test = folder / "kmr_mg-ud-test.conllu"
    test.write_text((SAMPLE / "dev.conllu").read_text(encoding="utf8"), encoding="utf8")
    folder.chmod(0o555)
    try:
        treebank = find_treebank(folder)
        again = find_treebank(folder)
    finally:
        folder.chmod(0o755)
    assert treebank.files == again.files and sorted(p.name for p in folder.iterdir()) == [
        "LICENSE.txt", "kmr_mg-ud-test.conllu", "kmr_mg-ud-train.conllu"]
    assert {p.parent for p in treebank.files.values()} == {treebank.files["dev"].parent}
    assert treebank.files["dev"].parent.parent.parent == cache
    assert treebank.conllu_pattern.format(split="dev") == str(treebank.files["dev"])
    original = sentence_blocks(train)
    kept, held_out = sentence_blocks(treebank.files["train"]), sentence_blocks(treebank.files["dev"])
    assert kept + held_out == original  # every sentence once, in order, as written
    assert held_out[0].startswith("# newdoc") and 20 <= len(held_out) <= 80  # 400 sentences
    assert sentence_blocks(treebank.files["test"]) == sentence_blocks(test)
    notes = "\n".join(treebank_notes(treebank))
    assert (f"no dev split: dev is the last {len(held_out)} of its training split's 400 "
            "sentences (from where a document starts)") in notes
    result = runner.invoke(app, ["convert", str(folder), str(tmp_path / "corpus")])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "corpus").iterdir()) == [
        "kmr_mg-ud-dev.spacy", "kmr_mg-ud-test.spacy", "kmr_mg-ud-train.spacy"]


def test_a_split_in_parts_is_read_as_one_in_name_order(tmp_path, cache):
    """As Czech-PDT's train-ca, -ct, -ma and -va."""
    folder = ud_folder(tmp_path, "UD_Czech-PDT", "cs_pdt", splits=("dev", "test"))
    blocks = sentence_blocks(SAMPLE / "train.conllu")
    for part, start in (("ma", 100), ("ca", 0), ("va", 300)):
        (folder / f"cs_pdt-ud-train-{part}.conllu").write_text(
            "\n\n".join(blocks[start:start + 100]) + "\n\n", encoding="utf8")
    treebank = find_treebank(folder)
    assert sentence_blocks(treebank.files["train"]) == blocks[:200] + blocks[300:400]
    assert sentence_blocks(treebank.files["dev"]) == sentence_blocks(folder / "cs_pdt-ud-dev.conllu")
    assert ("its train split is in 3 files (cs_pdt-ud-train-ca.conllu, cs_pdt-ud-train-ma.conllu, "
            "cs_pdt-ud-train-va.conllu), read as one in that order") in "\n".join(treebank.derived)
    assert find_treebank(ud_folder(tmp_path, "UD_Wolof-WTB", "wo_wtb")).derived == ()


def test_a_byte_that_is_not_utf8_in_a_held_out_split_is_named_by_convert(tmp_path, cache):
    folder = ud_folder(tmp_path, "UD_Kurmanji-MG", "kmr_mg", splits=("train", "test"))
    train = folder / "kmr_mg-ud-train.conllu"
    train.write_bytes(train.read_bytes().replace(b"\n3\t", b"\n3\t\xff", 1))
    result = runner.invoke(app, ["convert", str(folder), str(tmp_path / "corpus")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "kmr_mg-ud-train.conllu, line" in result.output and "not UTF-8" in result.output
    assert b"\xff" in find_treebank(folder).files["train"].read_bytes()  # kept as it was


def sentences_marked(*markers):
    return [[f"# sent_id = {i}", *([marker] if marker else []), f"1\tw{i}" + "\t_" * 8]
            for i, marker in enumerate(markers)]


def test_the_held_out_dev_starts_at_the_nearest_document_else_paragraph_else_sentence():
    # 40 sentences: a tenth is 4, and a start 2 to 8 sentences from the end is near
    far = sentences_marked("# newdoc", *[None] * 39)
    assert held_out_start(far) == 36
    paragraphs = sentences_marked("# newdoc", *[None] * 33, "# newpar", *[None] * 5)
    assert held_out_start(paragraphs) == 34  # 6 held out from a paragraph's start
    documents = sentences_marked(*[None] * 34, "# newpar", "# newdoc id = d2", *[None] * 4)
    assert held_out_start(documents) == 35  # a document's start before a paragraph's
    assert held_out_start(sentences_marked(None, None)) == 1
    with pytest.raises(ValueError, match="UD_Tiny-One: no dev split, and 1 training sentence"):
        held_out_start(sentences_marked(None), "UD_Tiny-One")


def test_a_treebank_without_dev_and_one_training_sentence_is_refused(tmp_path, cache):
    folder = ud_folder(tmp_path, "UD_Tiny-One", "xx_one", splits=("train", "test"))
    train = folder / "xx_one-ud-train.conllu"
    train.write_text(train.read_text(encoding="utf8").split("\n\n")[0] + "\n\n", encoding="utf8")
    with pytest.raises(TreebankFolderError, match="UD_Tiny-One: no dev split, and 1 training "
                                                  "sentence.s.: too few to hold one out"):
        find_treebank(folder)
    assert not cache.exists() or not list(cache.rglob("*.conllu"))  # nothing written


def test_a_treebank_distributed_without_its_text_is_named_before_anything_trains(tmp_path):
    """UD ships a few treebanks with every form `_` (their text to be merged in
    from elsewhere): convert and find_treebank say so, naming the file."""
    folder = ud_folder(tmp_path, "UD_Japanese-BCCWJ", "ja_bccwj", forms=False)
    with pytest.raises(TreebankFolderError, match=r"ja_bccwj-ud-train.conllu: every word's "
                                                  r"form is `_`: .*without its text"):
        find_treebank(folder)
    result = runner.invoke(app, ["convert", str(folder), str(tmp_path / "corpus")])
    assert result.exit_code == 1
    assert "ja_bccwj-ud-train.conllu: every word's form is `_`" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "corpus").exists()
    empty = ud_folder(tmp_path, "UD_Welsh-CCG", "cy_ccg")
    (empty / "cy_ccg-ud-dev.conllu").write_text("# a comment only\n\n", encoding="utf8")
    with pytest.raises(TreebankFolderError, match=r"cy_ccg-ud-dev.conllu: no words"):
        find_treebank(empty)


def test_a_split_that_is_not_utf8_is_named_with_its_line_by_convert(tmp_path):
    folder = ud_folder(tmp_path, "UD_Uyghur-UDT", "ug_udt")
    train = folder / "ug_udt-ud-train.conllu"
    train.write_bytes(train.read_bytes().replace(b"\n3\t", b"\n3\t\xff", 1))
    result = runner.invoke(app, ["convert", str(folder), str(tmp_path / "corpus")])
    assert result.exit_code == 1
    assert "ug_udt-ud-train.conllu, line" in result.output and "not UTF-8" in result.output
    assert "Traceback" not in result.output


def test_convert_takes_a_treebank_folder_and_says_its_language_once(tmp_path):
    folder = ud_folder(tmp_path, "UD_Wolof-WTB", "wo_wtb")
    result = runner.invoke(app, ["convert", str(folder), str(tmp_path / "corpus")])
    assert result.exit_code == 0, result.output
    assert result.output.count("no language class for 'wo'") == 1
    assert sorted(p.name for p in (tmp_path / "corpus").iterdir()) == [
        "wo_wtb-ud-dev.spacy", "wo_wtb-ud-test.spacy", "wo_wtb-ud-train.spacy"]


def test_a_malformed_line_names_the_file_and_line_and_nothing_is_written(tmp_path):
    folder = ud_folder(tmp_path, "UD_Uyghur-UDT", "ug_udt")
    test = folder / "ug_udt-ud-test.conllu"
    lines = test.read_text(encoding="utf8").split("\n")
    bad = next(i for i, line in enumerate(lines) if line.startswith("3\t"))
    lines[bad] = "3\tتېكىست\tonly three columns"
    test.write_text("\n".join(lines), encoding="utf8")
    result = runner.invoke(app, ["convert", str(folder), str(tmp_path / "corpus")])
    assert result.exit_code == 1
    assert f"ug_udt-ud-test.conllu, line {bad + 1}" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "corpus").exists() or not list((tmp_path / "corpus").iterdir())


def test_train_and_score_takes_the_treebank_s_files_and_language(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import train_and_score
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    folder = ud_folder(tmp_path, "UD_Coptic-Scriptorium", "cop_scriptorium")
    runs, opts = train_and_score.parse(["configs/raw/cnn.cfg", "--metrics", "m", "--treebank",
                                        str(folder), "--seed", "2", "--", "--nlp.lang", "cop"])
    assert opts.corpus == "corpus/UD_Coptic-Scriptorium/cop_scriptorium-ud-{split}.spacy"
    assert opts.conllu == str(folder / "cop_scriptorium-ud-{split}.conllu")
    assert opts.train_conllu == str(folder / "cop_scriptorium-ud-train.conllu")
    # the treebank's language first, so that an override the user gives wins
    assert list(opts.overrides) == ["--nlp.lang", "xx", "--system.seed", "2", "--nlp.lang", "cop"]
    with pytest.raises(SystemExit, match="no such folder"):
        train_and_score.parse(["configs/raw/cnn.cfg", "--metrics", "m", "--treebank",
                               str(tmp_path / "UD_Missing")])


def test_a_treebank_without_xpos_has_the_tag_underscore_and_its_tagger_two_labels(tmp_path):
    """French-GSD's words have no XPOS: their tag is `_` (spaCy's converter gives
    them their UPOS, which a tagger then writes where the treebank has `_`),
    and the raw configs' whitespace augmentation adds spaCy's `_SP`, so the
    tagger has two labels and its label smoothing has something to smooth
    towards (one label alone, thinc refuses it)."""
    import spacy
    from spacy.tokens import Doc
    from spacy.training import Example
    from spacy.util import load_config, registry

    bare = ud_folder(tmp_path, "UD_French-GSD", "fr_gsd", xpos=False)
    docs = read_conllu(bare / "fr_gsd-ud-train.conllu")
    assert {t.tag_ for d in docs for t in d} == {"_"}
    augmenter = load_config(RAW_CONFIG)["corpora"]["train"]["augmenter"]
    augment = registry.resolve({"a": augmenter})["a"]
    nlp = spacy.blank("xx")
    random.seed(0)
    # as spacy.Corpus gives them with gold_preproc = true: the gold words as predicted
    examples = [e for d in docs for e in augment(nlp, Example(
        Doc(d.vocab, words=[t.text for t in d], spaces=[bool(t.whitespace_) for t in d]), d))]
    assert {t.tag_ for e in examples for t in e.reference} == {"_", "_SP"}
    for smoothing, labels in ((0.05, ["_"]), (0.05, ["_", "_SP"])):
        nlp = spacy.blank("xx")
        tagger = nlp.add_pipe("tagger", config={"label_smoothing": smoothing})
        chosen = [e for e in examples if {t.tag_ for t in e.reference} <= set(labels)]
        nlp.initialize(lambda: chosen)
        assert list(tagger.labels) == labels
        if len(labels) == 1:
            with pytest.raises(ValueError, match="label smoothing"):
                nlp.update(chosen)
        else:
            nlp.update(chosen)


def test_a_treebank_without_lemmas_trains_a_pipeline_without_the_components_that_set_them(
        tmp_path):
    """Maltese-MUDT's words have no lemmas: a lemmatizer would have no label
    to learn (spaCy's E143), so train_and_score leaves out of the pipeline the
    components whose factories assign lemmas, before the user's overrides."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import train_and_score
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    bare = ud_folder(tmp_path, "UD_Maltese-MUDT", "mt_mudt", lemmas=False)
    assert not find_treebank(bare).has_lemmas()
    assert find_treebank(ud_folder(tmp_path, "UD_English-EWT", "en_ewt")).has_lemmas()
    result = runner.invoke(app, ["convert", str(bare), str(tmp_path / "corpus")])
    assert result.exit_code == 0, result.output
    assert "UD_Maltese-MUDT: its training words have no lemmas" in result.output
    for config, pipeline in (("best_elstm", ["elstm_senter", "tok2vec", "tagger", "morphologizer",
                                            "parser"]),
                             ("cnn", ["elstm_senter", "tok2vec", "tagger", "morphologizer",
                                      "parser"])):
        run = train_and_score.Run(config, ROOT / "configs" / "raw" / f"{config}.cfg")
        _, opts = train_and_score.parse([str(run.config), "--metrics", "m", "--treebank",
                                         str(bare)])
        assert opts.no_lemmas
        assert train_and_score.run_overrides(run, opts) == [
            "--nlp.pipeline", json.dumps(pipeline), "--nlp.lang", "xx"]


def test_the_package_is_named_for_the_treebank_and_carries_its_licence(tmp_path):
    import spacy

    folder = ud_folder(tmp_path, "UD_Greek-GDT", "el_gdt")
    spacy.blank("el").to_disk(tmp_path / "model")
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "prepare_package.py"),
                             str(tmp_path / "model"), str(tmp_path / "package"),
                             "--treebank", str(folder), "--package-suffix", "elstm"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    meta = json.loads((tmp_path / "package" / "meta.json").read_text())
    assert (meta["lang"], meta["name"], meta["license"]) == ("el", "gdt_elstm", "CC BY-NC-SA 3.0")
    assert meta["sources"][-1]["url"] == "https://github.com/UniversalDependencies/UD_Greek-GDT"
    assert "NonCommercial" in (tmp_path / "package" / "LICENSE").read_text()


def test_the_licence_names_of_the_seven_treebanks_and_ewt():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from prepare_package import license_name
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert license_name((SAMPLE / "LICENSE.txt").read_text()) == "CC BY-SA 4.0"
    assert license_name("licensed under a Creative Commons Attribution 4.0 international "
                        "license") == "CC BY 4.0"
    assert license_name("Free for research use only.") == "see LICENSE"


def test_one_variable_takes_the_whole_treebank_through_the_project():
    project = srsly.read_yaml(ROOT / "project.yml")
    commands = {c["name"]: c for c in project["commands"]}
    for name in project["workflows"]["all"]:
        text = json.dumps([commands[name].get(key) for key in ("script", "deps", "outputs")])
        assert "en_ewt" not in text and "UD_English-EWT" not in text, name
    assert project["vars"]["treebank"] == "UD_English-EWT"  # the default stays EWT
    train = " ".join(commands["train"]["script"])
    assert "--treebank assets/${vars.treebank}" in train
    assert "training/${vars.treebank}" in train and "${vars.metrics_dir}/${vars.treebank}" in train
    assert "--treebank assets/${vars.treebank}" in " ".join(commands["package"]["script"])
    # every treebank the project names is fetched at a pinned commit with a checksum
    fetched = {a["dest"] for a in project["assets"] if "url" in a}
    for folder in ["UD_English-EWT", "UD_Vietnamese-VTB", "UD_Uyghur-UDT", "UD_Coptic-Scriptorium",
                   "UD_Classical_Chinese-Kyoto", "UD_Turkish-IMST", "UD_Greek-GDT", "UD_Wolof-WTB"]:
        names = {Path(d).name for d in fetched if d.startswith(f"assets/{folder}/")}
        assert "LICENSE.txt" in names and sum(n.endswith(".conllu") for n in names) == 3, folder
    for asset in project["assets"]:
        if "url" in asset and asset["dest"].startswith("assets/UD_"):
            assert len(asset["checksum"]) == 32
            assert "/main/" not in asset["url"] and "/master/" not in asset["url"]


@pytest.mark.parametrize("mark", ["؟", "،", "۔", "。", "！", "？", "，", "、", "।", "॥", "։", "·", "\u0387",
                                  ";", "።", "…", "?!", "...", "--", "—"])
def test_the_marks_that_end_or_divide_a_sentence_in_every_script(mark):
    from spacy_elstm.text.punctuation import is_sentence_mark

    assert is_sentence_mark(mark)


@pytest.mark.parametrize("word", ["%", "-", "/", "«", "»", "(", "\"", "long-term", "a.", "ئۇ", "我"])
def test_other_words_do_not_mark_sentences(word):
    from spacy_elstm.text.punctuation import is_sentence_mark

    assert not is_sentence_mark(word)


def test_text_in_another_script_is_punctuated_by_its_own_marks():
    import spacy
    from spacy.tokens import Doc

    from spacy_elstm.text.punctuation import has_no_punctuation

    vocab = spacy.blank("xx").vocab
    assert not has_no_punctuation(Doc(vocab, words=["سىز", "قەيەردە", "؟"]))
    assert not has_no_punctuation(Doc(vocab, words=["子", "曰", "。"]))
    assert has_no_punctuation(Doc(vocab, words=["سىز", "قەيەردە", "«", "ئۇ", "»"]))


def test_lower_case_is_a_variant_only_where_the_script_has_case():
    from spacy_elstm.text.training_text import Sentence, has_case

    def sentence(*words):
        return Sentence(list(words), [False] * len(words), [])

    assert has_case([sentence("Αυτό", "είναι", ";")])
    assert has_case([sentence("Bu", "kitap", "Ankara'da", ".")])
    assert not has_case([sentence("سىز", "قەيەردە", "NBA", "؟")])
    assert not has_case([sentence("子曰", "學而時習之", "。")])
    assert not has_case([sentence("123", ".")])


def test_caseless_text_has_no_lower_case_documents_and_cased_text_keeps_them():
    import spacy

    from spacy_elstm.text.training_text import varied_docs

    nlp = spacy.blank("xx")
    mixed = [nlp("NBA ۋە FIFA توغرىسىدا سۆزلىدى .") for _ in range(2000)]
    latin = [nlp("The NBA and FIFA spoke .") for _ in range(2000)]
    for doc in mixed + latin:
        for token in doc:
            token.is_sent_start = token.i == 0
    assert not any(d.text.islower() for d in varied_docs(mixed, seed=0))
    assert any("nba" in d.text for d in varied_docs(latin, seed=0))


def test_every_path_a_command_names_is_one_path_once_its_vars_are_filled():
    # confection reads a list item that is a variable alone, after one that ends in a
    # variable, as part of that one ("assets/UD_X, assets/conll2018-eval/...")
    from weasel.util import load_project_config

    project = load_project_config(ROOT, overrides={"vars.treebank": "UD_Wolof-WTB"})
    for command in project["commands"]:
        for path in command.get("deps", []) + command.get("outputs", []):
            assert ", " not in path and "${" not in path, (command["name"], path)


def test_a_lemma_the_treebank_leaves_out_is_not_learned_as_an_underscore(tmp_path):
    from spacy_elstm.treebanks.conllu_reader import read_conllu

    path = tmp_path / "ug_x-ud-train.conllu"
    path.write_text("# text = ئۇ _ كەلدى\n"
                    "1\tئۇ\t_\tPRON\t_\t_\t3\tnsubj\t_\t_\n"
                    "2\t_\t_\tPUNCT\t_\t_\t3\tpunct\t_\t_\n"
                    "3\tكەلدى\tكەل\tVERB\t_\t_\t0\troot\t_\t_\n\n", encoding="utf8")
    (doc,) = read_conllu(path)
    # left out: missing, so spaCy's lemmatizer neither learns a tree to "_" nor scores it
    assert [t.lemma_ for t in doc] == ["", "_", "كەل"]
