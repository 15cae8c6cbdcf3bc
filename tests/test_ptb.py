"""The Penn Treebank converters: trees and `.dp` files read strictly, empty
elements dropped, spacing rebuilt, head rules and labels, splits, and the
outputs written whole or not at all. On the hand-written files in
tests/fixtures/ptb (see its README)."""
import json
import shutil
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin
from typer.testing import CliRunner

from spacy_elstm.treebanks import headrules
from spacy_elstm.cli.app import app
from spacy_elstm.treebanks.ptb import (TreebankFormatError, parse_split, read_dependencies,
                                   read_split, read_trees, split_label)
from spacy_elstm.treebanks.ptb_conversion import agreement, convert_splits

FIXTURES = Path(__file__).parent / "fixtures" / "ptb"
SAID = ["Ms.", "Lee", "said", "the", "firm", "'s", "plan", "does", "n't", "work", "in",
        "winter", "-LRB-", "months", "-RRB-", "."]


def write(folder, name, text):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf8")
    return path


@pytest.fixture
def treebank(tmp_path):
    folder = tmp_path / "treebank"
    shutil.copytree(FIXTURES, folder)
    return folder


def test_empty_elements_and_the_constituents_they_empty_are_dropped():
    first, second, third = read_trees(FIXTURES / "wsj_0001.mrg")
    assert first.words == SAID
    assert first.tags[12:15] == ["-LRB-", "NNS", "-RRB-"]  # spelled as the treebank does
    # sentence 2: the trace subject, NP-SBJ-3 (an empty NP and an SBAR holding an
    # empty S) and the topicalisation trace under "said" are all gone
    assert second.words == ["``", "We", "expect", "to", "grow", "5", "%", ",", "''", "said",
                            "Jones", "."]
    expect = second.tree.children[1].children[1]
    assert [c.label for c in expect.children] == ["VBP", "S"]
    assert [c.label for c in expect.children[1].children] == ["VP"]
    said = second.tree.children[4]
    assert said.label == "VP" and [c.label for c in said.children] == ["VBD"]
    assert "-NONE-" not in third.tags and "*T*-1" not in third.words
    assert first.sent_id == "wsj_0001-1" and (first.line, second.line, third.line) == (1, 15, 34)


def test_labels_lose_function_tags_and_indices_but_keep_the_functions():
    assert split_label("NP-SBJ-1") == ("NP", frozenset({"SBJ"}))
    assert split_label("PP-LOC-CLR") == ("PP", frozenset({"LOC", "CLR"}))
    assert split_label("NP=2") == ("NP", frozenset())
    assert split_label("-LRB-") == ("-LRB-", frozenset())
    assert split_label("-NONE-") == ("-NONE-", frozenset())
    topic = read_trees(FIXTURES / "wsj_0001.mrg")[1].tree.children[1]
    assert topic.label == "S" and topic.functions == {"TPC"}


@pytest.mark.parametrize("index,text", [
    (0, "Ms. Lee said the firm's plan doesn't work in winter -LRB-months-RRB-."),
    (1, "``We expect to grow 5%,'' said Jones."),
    (2, "Sales and profits rose to $3 million, which pleased investors."),
])
def test_spacing_reads_naturally(treebank, tmp_path, index, text):
    convert_splits(treebank, [parse_split("all=1")], "mrg", tmp_path / "out", n_sents=1)
    docs = list(DocBin().from_disk(tmp_path / "out" / "all.spacy").get_docs(spacy.blank("en").vocab))
    assert docs[index].text == text + " "
    conllu = (tmp_path / "out" / "all.conllu").read_text(encoding="utf8")
    assert f"# text = {text}\n" in conllu


def test_head_rules_and_labels_of_the_hand_written_trees():
    expected = [
        ([2, 3, 0, 6, 6, 7, 8, 3, 8, 8, 10, 11, 14, 12, 14, 3],
         ["compound", "nsubj", "ROOT", "det", "possessor", "poss", "nsubj", "ccomp", "neg", "vc",
          "tmod", "pobj", "punct", "dep", "punct", "punct"]),
        ([10, 3, 10, 5, 3, 7, 5, 10, 10, 0, 10, 10],
         ["punct", "nsubj", "ccomp", "aux", "ccomp", "nummod", "advmod", "punct", "punct", "ROOT",
          "nsubj", "punct"]),
        ([3, 3, 4, 0, 4, 8, 8, 5, 4, 4, 10, 11, 4],
         ["conj", "cc", "nsubj", "ROOT", "advmod", "dep", "nummod", "pobj", "punct", "advmod",
          "sub", "dobj", "punct"]),
    ]
    for sentence, (heads, labels) in zip(read_trees(FIXTURES / "wsj_0001.mrg"), expected):
        deps = headrules.convert(sentence)
        assert deps.heads == heads, sentence.sent_id
        assert deps.labels == labels, sentence.sent_id
        assert set(labels) <= set(headrules.LABELS)


def test_agreement_with_the_hand_written_dp_files(tmp_path):
    result = agreement(FIXTURES, FIXTURES, [parse_split("a=1"), parse_split("b=2")])
    assert result["all"]["words"] == 16 + 12 + 13 + 3
    assert result["all"]["agreement"] == 100.0
    # one head changed in the .dp: the agreement says so
    folder = tmp_path / "dp"
    shutil.copytree(FIXTURES, folder)
    path = folder / "wsj_0002.dp"
    path.write_text("It\tPRP\t2\nworked\tVBD\t0\n.\t.\t1\n", encoding="utf8")
    result = agreement(FIXTURES, folder, [parse_split("all=1-2")])
    assert result["all"]["words"] == 44 and result["all"]["agreement"] == pytest.approx(100 * 43 / 44)
    assert result["all"]["whole_sentences"] == pytest.approx(75.0)


def test_agreement_refuses_files_that_hold_other_words(tmp_path):
    folder = tmp_path / "dp"
    write(folder, "wsj_0002.dp", "It\tPRP\t2\nfailed\tVBD\t0\n.\t.\t2\n")
    with pytest.raises(TreebankFormatError, match=r"wsj_0002.dp, line 1: sentence 1 differs"):
        agreement(FIXTURES, folder, [parse_split("b=2")])


def test_dp_files_read_as_trees():
    sentences = read_dependencies(FIXTURES / "wsj_0001.dp")
    assert [len(s.words) for s in sentences] == [16, 12, 13]
    assert sentences[0].words == SAID
    assert sentences[1].lines[0] == 18


@pytest.mark.parametrize("text,where,message", [
    ("( (S (NP (DT The) (NN dog)) (VP (VBD ran)) (. .) )\n", "line 1", "never closed"),
    ("( (S (NP (DT The) (NN dog))\n  (VP (VBD ran)) (. .) )))\n", "line 2", "no '\\(' open"),
    ("( (S (NP (DT The) (NN dog) (VP (VBD ran)) (. .) ))\n( (S (NP (PRP It)) (VP (VBD ran)) ))\n",
     "line 1", "never closed"),
    ("( (S (NP (DT The) dog) (VP (VBD ran)) ))\n", "line 1", "word .'dog'. beside constituents"),
    ("( (S (NP (The)) (VP (VBD ran)) ))\n", "line 1", "empty constituent"),
    ("dog ( (S (NP (PRP It)) (VP (VBD ran)) ))\n", "line 1", "text outside brackets"),
    ("( (S (NP (PRP It)) (VP (VBD ran)) ) (S (NP (PRP It)) (VP (VBD ran)) ))\n", "line 1",
     "holds 2 constituents"),
    ("\n( (S (NP-SBJ (-NONE- *-1)) (VP (-NONE- *?*)) ))\n", "line 2", "no words"),
])
def test_malformed_trees_name_file_line_and_reason(tmp_path, text, where, message):
    path = write(tmp_path, "wsj_0001.mrg", text)
    with pytest.raises(TreebankFormatError, match=rf"wsj_0001.mrg, {where}: .*{message}"):
        read_trees(path)


@pytest.mark.parametrize("text,where,message", [
    ("A\tDT\t2\nb\tNN\t3\nc\tVBD\t1\nd\t.\t0\n", "line 1", "words 1, 2, 3 form a cycle"),
    ("ok\tUH\t0\n\nA\tDT\t2\nb\tNN\t1\n", "line 3", "0 words have HEAD 0"),
    ("A\tDT\t0\nb\tNN\t0\n", "line 2", "2 words have HEAD 0"),
    ("A\tDT\t2\nb\tNN\t2\n", "line 2", "its own head"),
    ("A\tDT\t5\nb\tNN\t0\n", "line 1", "HEAD must be an integer in 0..2, got '5'"),
    ("A\tDT\nb\tNN\t0\n", "line 1", "expected 3 tab-separated columns"),
])
def test_malformed_dp_files_name_file_line_and_reason(tmp_path, text, where, message):
    path = write(tmp_path, "wsj_0001.dp", text)
    with pytest.raises(TreebankFormatError, match=rf"wsj_0001.dp, {where}: .*{message}"):
        read_dependencies(path)


def test_convert_writes_conllu_and_spacy_per_split(treebank, tmp_path):
    out = tmp_path / "out"
    summary = convert_splits(treebank, [parse_split("train=1"), parse_split("test=2")], "mrg", out)
    assert summary["train"]["sentences"] == 3 and summary["test"]["words"] == 3
    assert summary["train"]["labels"]["root"] == 3
    vocab = spacy.blank("en").vocab
    (doc,) = DocBin().from_disk(out / "train.spacy").get_docs(vocab)  # 3 sentences, 10 a Doc
    assert [t.tag_ for t in doc][:3] == ["NNP", "NNP", "VBD"]
    assert [t.dep_ for t in doc][:3] == ["compound", "nsubj", "ROOT"]
    assert [t.head.i for t in doc][:3] == [1, 2, 2]
    assert len(list(doc.sents)) == 3
    first = (out / "train.conllu").read_text(encoding="utf8").split("\n")
    assert first[:3] == ["# sent_id = wsj_0001-1",
                         "# text = Ms. Lee said the firm's plan doesn't work in winter -LRB-months-RRB-.",
                         "1\tMs.\t_\t_\tNNP\t_\t2\tcompound\t_\t_"]


def test_dp_files_convert_with_one_placeholder_relation(treebank, tmp_path):
    convert_splits(treebank, [parse_split("all=1-2")], "dp", tmp_path / "out", n_sents=1)
    docs = list(DocBin().from_disk(tmp_path / "out" / "all.spacy").get_docs(spacy.blank("en").vocab))
    assert len(docs) == 4
    assert {t.dep_ for doc in docs for t in doc} == {"dep", "ROOT"}
    assert [t.head.i for t in docs[3]] == [1, 1, 1]


def test_a_bad_file_leaves_no_output_at_all(treebank, tmp_path):
    write(treebank, "wsj_0002.mrg", "( (S (NP (PRP It)) (VP (VBD worked)) (. .) )\n")
    out = tmp_path / "out"
    with pytest.raises(TreebankFormatError, match=r"wsj_0002.mrg, line 1: unbalanced brackets"):
        convert_splits(treebank, [parse_split("train=1"), parse_split("test=2")], "mrg", out)
    assert not out.exists() or not any(out.iterdir())


def test_splits_pick_files_and_sections(tmp_path):
    assert parse_split("train=1-159").holds(159) and not parse_split("train=1-159").holds(160)
    sections = parse_split("test=22-24,00", unit="section")
    assert sections.holds(2201) and sections.holds(1) and not sections.holds(2101)
    for bad in ["train", "train=5-1", "train=a-b", "=1-2"]:
        with pytest.raises(ValueError):
            parse_split(bad)
    wsj = tmp_path / "wsj"
    for section, number in [("00", "0001"), ("22", "2201"), ("23", "2301")]:
        shutil.copy(FIXTURES / "wsj_0002.mrg", write(wsj / section, "x", "").parent / f"wsj_{number}.mrg")
    assert len(read_split(wsj, parse_split("dev=22-23", "section"), "mrg")) == 2
    with pytest.raises(TreebankFormatError, match=r"section\(s\) 21, 24 .*LDC99T42"):
        read_split(wsj, parse_split("test=21-24", "section"), "mrg")
    with pytest.raises(TreebankFormatError, match="no wsj_\\*.mrg files in split 'x'"):
        read_split(wsj, parse_split("x=5-9"), "mrg")


def test_command_line(treebank, tmp_path):
    runner = CliRunner()
    out, summary = tmp_path / "out", tmp_path / "data.json"
    result = runner.invoke(app, ["ptb", "trees", str(treebank), str(out), "--split", "train=1",
                                 "--split", "dev=2", "--summary", str(summary)])
    assert result.exit_code == 0, result.output
    assert {p.name for p in out.iterdir()} == {"train.conllu", "train.spacy", "dev.conllu", "dev.spacy"}
    assert json.loads(summary.read_text())["splits"]["dev"]["first_file"] == "wsj_0002"
    agreement_file = tmp_path / "agreement.json"
    result = runner.invoke(app, ["ptb", "agreement", str(treebank), str(treebank), "--output",
                                 str(agreement_file), "--split", "all=1-2"])
    assert result.exit_code == 0, result.output
    assert "100.00% of 44 words" in result.output
    write(treebank, "wsj_0002.dp", "It\tPRP\t3\nworked\tVBD\t0\n.\t.\t1\n")
    result = runner.invoke(app, ["ptb", "dependencies", str(treebank), str(tmp_path / "dp"),
                                 "--split", "all=1-2"])
    assert result.exit_code == 1
    assert "wsj_0002.dp, line 1: the heads of words 1, 3 form a cycle" in result.output
    assert not (tmp_path / "dp" / "all.spacy").exists()


def test_packaged_pipelines_carry_the_penn_treebank_terms(tmp_path):
    import subprocess
    import sys

    root = Path(__file__).parent.parent
    spacy.blank("en").to_disk(tmp_path / "model")
    licence = root / "assets" / "penn-treebank" / "LICENSE.txt"
    result = subprocess.run([sys.executable, str(root / "scripts" / "prepare_package.py"),
                             str(tmp_path / "model"), str(tmp_path / "package"), str(licence),
                             "--treebank", "ptb-sample"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    meta = json.loads((tmp_path / "package" / "meta.json").read_text())
    assert meta["license"] == "LDC; non-commercial use only"
    assert [s["name"] for s in meta["sources"]] == [
        "Penn Treebank WSJ, NLTK's 10% sample (treebank, dependency_treebank)"]
    assert "non-commercial use only" in (tmp_path / "package" / "LICENSE").read_text()


def test_ptb_workflows_take_the_gpu_and_the_wsj_is_user_supplied():
    import srsly

    project = srsly.read_yaml(Path(__file__).parent.parent / "project.yml")
    commands = {c["name"]: c for c in project["commands"]}
    steps = [commands[name] for name in project["workflows"]["ptb-sample"] + project["workflows"]["ptb"]]
    # each trains and scores (spacy evaluate, gold tokenisation) by scripts/train_and_score.py
    lines = [line for c in steps for line in c["script"] if "train_and_score.py" in line]
    assert len(lines) == 2 + 2
    assert all("--gpu-id ${vars.gpu}" in line for line in lines)
    (wsj,) = [a for a in project["assets"] if a["dest"] == "${vars.ptb_wsj}"]
    assert "url" not in wsj and "LDC99T42" in wsj["description"]


def test_outputs_replace_old_ones_only_when_all_are_complete(treebank, tmp_path, monkeypatch):
    from spacy_elstm.treebanks import ptb_conversion as ptbconvert

    out = tmp_path / "out"
    splits = [parse_split("train=1"), parse_split("test=2")]
    convert_splits(treebank, splits, "mrg", out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    original, calls = ptbconvert.conllu_to_spacy, []

    def fail_on_the_second(path, output_dir, n_sents):
        calls.append(path.name)
        if len(calls) == 2:
            raise OSError("disk full")
        return original(path, output_dir, n_sents)

    monkeypatch.setattr(ptbconvert, "conllu_to_spacy", fail_on_the_second)
    with pytest.raises(OSError, match="disk full"):
        convert_splits(treebank, splits, "dp", out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # no scratch left either


@pytest.mark.slow
def test_spacy_train_on_converted_trees(treebank, tmp_path):
    """The hand-written trees, converted, train configs/ptb/elstm_brnn.cfg for a
    few steps, and the pipeline tags and parses with PTB tags and the head-rule labels."""
    import subprocess
    import sys

    root = Path(__file__).parent.parent
    convert_splits(treebank, [parse_split("train=1-2"), parse_split("dev=1-2")], "mrg",
                   tmp_path / "corpus")
    result = subprocess.run(
        [sys.executable, "-m", "spacy", "train", str(root / "configs" / "ptb" / "elstm_brnn.cfg"),
         "--output", str(tmp_path / "model"), "--paths.train", str(tmp_path / "corpus" / "train.spacy"),
         "--paths.dev", str(tmp_path / "corpus" / "dev.spacy"), "--training.max_steps", "6",
         "--training.eval_frequency", "3", "--components.parser.min_action_freq", "1"],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    nlp = spacy.load(tmp_path / "model" / "model-last")
    assert set(nlp.get_pipe("tagger").labels) == {t for s in read_trees(FIXTURES / "wsj_0001.mrg")
                                                  for t in s.tags} | {"PRP", "VBD", "."}
    assert "nsubj" in nlp.get_pipe("parser").labels
    doc = nlp("Ms. Lee said it worked .")
    assert all(t.tag_ for t in doc) and doc.has_annotation("DEP")
