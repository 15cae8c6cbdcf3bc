"""Official scoring: the CoNLL-U writer, single-root trees, and scores from the
CoNLL 2018 evaluation script (where it is present: the project asset, or the
file $SPACY_ELSTM_CONLL18_EVAL names)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc
from spacy.vocab import Vocab

from spacy_elstm.treebanks.conllu_reader import read_conllu
from spacy_elstm.treebanks.conllu_writer import doc_to_conllu, single_root_tree
from spacy_elstm.treebanks.scoring import (METRICS, SCORER_ASSET, SCORER_ENV, ScoringError,
                                 find_scorer, load_scorer, official_scores, predict, read_gold,
                                 score, unseen_scores, write_conllu)

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "assets" / "ud-ewt-sample" / "dev.conllu"
TRAIN = ROOT / "assets" / "ud-ewt-sample" / "train.conllu"
PIPELINE = ROOT / "tests" / "fixtures" / "compat" / "brnn"
SCRIPT = Path(os.environ.get(SCORER_ENV) or ROOT / SCORER_ASSET)
needs_script = pytest.mark.skipif(
    not SCRIPT.is_file(),
    reason=f"the CoNLL 2018 evaluation script is not at {SCRIPT}: run `python -m spacy project "
           f"assets` or set {SCORER_ENV} to a copy of conll18_ud_eval.py")


def annotation(doc):
    return [(t.text, t.whitespace_, t.tag_, t.pos_, str(t.morph), t.lemma_, t.head.i, t.dep_)
            for t in doc]


def first_sentences(path, n, output):
    """The first n sentence blocks of a CoNLL-U file, comments and all."""
    blocks = path.read_text(encoding="utf8").split("\n\n")
    output.write_text("\n\n".join(blocks[:n]) + "\n\n", encoding="utf8")
    return output


@pytest.mark.parametrize("path", [DEV, TRAIN], ids=["dev", "train"])
@pytest.mark.parametrize("with_tokens", [True, False], ids=["multiword", "words-only"])
def test_written_gold_reads_back_as_the_gold(tmp_path, path, with_tokens):
    gold = read_gold(path)
    output = tmp_path / "gold.conllu"
    repaired = write_conllu(output, [s.doc for s in gold], gold if with_tokens else None)
    assert repaired == 0
    again = read_conllu(output)
    assert len(again) == len(gold)
    for sentence, doc in zip(gold, again):
        assert annotation(doc) == annotation(sentence.doc)
    text = output.read_text(encoding="utf8")
    multiword_lines = sum(len(s.multiword) for s in gold)
    assert multiword_lines > 0
    assert text.count("-") >= multiword_lines
    if with_tokens:
        assert text.startswith(f"# sent_id = {gold[0].sent_id}\n# text = ")
        assert sum(line.split("\t")[0].count("-") for line in text.splitlines()
                   if not line.startswith("#")) == multiword_lines


def test_extra_roots_are_attached_to_the_first():
    assert single_root_tree([0, 1, 2]) == ([0, 0, 0], [1, 2])
    assert single_root_tree([1, 1, 1]) == ([1, 1, 1], [])
    # words 0 and 1 form a cycle, word 2 is a root: the cycle is broken at word 0,
    # which is the first root, so word 2 goes under it
    assert single_root_tree([1, 0, 2]) == ([0, 0, 0], [0, 2])
    # a cycle and no root at all
    assert single_root_tree([1, 2, 0]) == ([0, 2, 0], [0])
    doc = Doc(Vocab(), words=["It", "rains", "Go", "home"], heads=[1, 1, 2, 2],
              deps=["nsubj", "ROOT", "ROOT", "obl"])
    text, repaired = doc_to_conllu(doc, one_sentence=True)
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    assert repaired == 1
    assert [(r[6], r[7]) for r in rows] == [("2", "nsubj"), ("0", "root"), ("2", "dep"), ("3", "obl")]
    # where the pipeline's sentences are kept, each root heads its own sentence
    text, repaired = doc_to_conllu(doc, doc_id="d1")
    assert repaired == 0
    assert text.startswith("# newdoc id = d1\n# sent_id = d1-1\n# text = It rains\n1\tIt")
    assert "# sent_id = d1-2\n# text = Go home\n1\tGo\t_\tX\t_\t_\t0\troot" in text  # no tagger: X


def test_a_doc_without_a_parse_gets_a_placeholder_tree():
    doc = Doc(Vocab(), words=["a", "b", "c"], spaces=[True, False, False])
    text, repaired = doc_to_conllu(doc)
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    assert repaired == 0
    assert [(r[6], r[7], r[9]) for r in rows] == [
        ("0", "root", "_"), ("1", "dep", "SpaceAfter=No"), ("1", "dep", "SpaceAfter=No")]


@pytest.fixture(scope="module")
def nlp():
    return spacy.load(PIPELINE)


@pytest.fixture
def gold20(tmp_path):
    return first_sentences(DEV, 20, tmp_path / "dev20.conllu")


def test_predictions_are_a_valid_file_on_the_gold_words(nlp, gold20, tmp_path):
    gold = read_gold(gold20, nlp.vocab)
    assert len(gold) == 20
    docs, seconds = predict(nlp, gold)
    assert seconds > 0
    output = tmp_path / "predicted.conllu"
    repaired = write_conllu(output, docs, gold)
    assert repaired == sum(sum(t.head.i == t.i for t in doc) - 1 for doc in docs)
    predicted = read_conllu(output)  # strict: one root, no cycle, heads in range
    assert [[t.text for t in d] for d in predicted] == [[t.text for t in s.doc] for s in gold]
    assert [[t.whitespace_ for t in d] for d in predicted] == [
        [t.whitespace_ for t in s.doc] for s in gold]
    sentences = output.read_text(encoding="utf8").strip("\n").split("\n\n")
    assert len(sentences) == 20
    for block in sentences:
        rows = [line.split("\t") for line in block.splitlines()
                if not line.startswith("#") and "-" not in line.split("\t")[0]]
        assert all(len(row) == 10 for row in rows)
        heads = [int(row[6]) for row in rows]
        assert heads.count(0) == 1
        assert all(0 <= h <= len(rows) for h in heads)
        assert [row[7] for row in rows if row[6] == "0"] == ["root"]
    assert [t.tag_ for t in predicted[0]] == [t.tag_ for t in docs[0]]


@needs_script
def test_gold_against_itself_scores_100(gold20, tmp_path):
    scorer = load_scorer(SCRIPT)
    written = tmp_path / "written.conllu"
    gold = read_gold(gold20)
    write_conllu(written, [s.doc for s in gold], gold)
    for system in (gold20, written):
        evaluation = official_scores(scorer, gold20, system)
        assert {name: s.f1 for name, s in evaluation.items()} == {
            name: 1.0 for name in evaluation}


@needs_script
def test_pipeline_scores(gold20, tmp_path):
    output = tmp_path / "scores" / "dev.official.json"
    result = score(PIPELINE, gold20, output=output, predictions=tmp_path / "pred.conllu",
                   scorer=SCRIPT)
    assert json.loads(output.read_text()) == result
    assert result["scorer"] == "CoNLL 2018 official (conll18_ud_eval.py)"
    assert result["gold"] == "dev20.conllu" and result["pipeline"] == str(PIPELINE)
    assert (result["tokenisation"], result["sentences"]) == ("gold", "gold")
    # the fixture is a tagger and a parser: no UPOS, no features
    assert result["not_predicted"] == ["UFeats", "UPOS"]
    assert result["UPOS"] is None and result["UFeats"] is None
    for metric in ("XPOS", "UAS", "LAS", "CLAS"):
        assert 0 <= result[metric] <= 100
        assert result[metric] == round(100 * result["f1"][metric], 2)
    assert result["f1"]["Words"] == result["f1"]["Tokens"] == result["f1"]["Sentences"] == 1.0
    assert result["words"] == sum(len(s.doc) for s in read_gold(gold20))
    assert result["sentence_count"] == 20 and result["repaired_roots"] >= 0
    assert result["words_per_second"] > 0
    assert (tmp_path / "pred.conllu").is_file()


@needs_script
def test_score_command(gold20, tmp_path):
    output = tmp_path / "scores.json"
    result = run_score(PIPELINE, gold20, "--output", output, "--scorer", SCRIPT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("dev20.conllu: UPOS -  XPOS ")
    assert set(METRICS) <= set(json.loads(output.read_text()))


@needs_script
def test_a_gold_file_with_a_byte_order_mark_is_scored_as_convert_reads_it(gold20, tmp_path):
    bom = tmp_path / "bom.conllu"
    bom.write_bytes(b"\xef\xbb\xbf" + gold20.read_bytes())
    evaluation = official_scores(load_scorer(SCRIPT), bom, gold20)
    assert {name: s.f1 for name, s in evaluation.items()} == {name: 1.0 for name in evaluation}
    result = run_score(PIPELINE, bom, "--scorer", SCRIPT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("bom.conllu: UPOS -  XPOS ")


def run_score(*args, env=None, cwd=ROOT):
    environment = {k: v for k, v in os.environ.items() if k != SCORER_ENV}
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "spacy_elstm", "score", *map(str, args)],
                          capture_output=True, text=True, env=environment, cwd=cwd)


def test_a_missing_scorer_says_where_to_put_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(SCORER_ENV, raising=False)
    with pytest.raises(ScoringError) as err:
        find_scorer()
    message = str(err.value)
    assert message.startswith(f"the CoNLL 2018 evaluation script is not at {SCORER_ASSET} ")
    assert "python -m spacy project assets" in message and SCORER_ENV in message
    monkeypatch.setenv(SCORER_ENV, str(tmp_path / "elsewhere.py"))
    with pytest.raises(ScoringError, match=f"not at {tmp_path / 'elsewhere.py'} \\(\\${SCORER_ENV}\\)"):
        find_scorer()
    with pytest.raises(ScoringError, match="not at nope.py \\(--scorer\\)"):
        find_scorer("nope.py")


def test_score_command_without_the_scorer(tmp_path):
    result = run_score(PIPELINE, DEV, "--output", tmp_path / "s.json", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(
        f"spacy-elstm score: the CoNLL 2018 evaluation script is not at {SCORER_ASSET} ")
    assert "spacy project assets" in result.stderr
    assert not (tmp_path / "s.json").exists()


def test_a_wrong_file_as_scorer(tmp_path):
    wrong = tmp_path / "conll18_ud_eval.py"
    wrong.write_text("x = 1\n")
    with pytest.raises(ScoringError, match="not the CoNLL 2018 evaluation script"):
        load_scorer(wrong)


def test_tagging_accuracy_is_split_by_words_the_training_data_has():
    vocab = Vocab()
    gold = [read_gold(DEV, vocab)[0]]
    words = [t.text for t in gold[0].doc]
    pred = Doc(vocab, words=words, pos=[t.pos_ for t in gold[0].doc],
               tags=[t.tag_ for t in gold[0].doc])
    pred[0].pos_ = "X" if gold[0].doc[0].pos_ != "X" else "NOUN"  # one wrong UPOS, on word 0
    seen = {w.lower() for w in words[1:]} - {words[0].lower()}
    scores = unseen_scores([pred], gold, seen)
    assert scores["unseen"] == {"words": 1, "UPOS": 0.0, "XPOS": 100.0}
    assert scores["seen"] == {"words": len(words) - 1, "UPOS": 100.0, "XPOS": 100.0}
    # a tagger that predicts no UPOS has no UPOS score, seen or unseen
    bare = Doc(vocab, words=words, tags=[t.tag_ for t in gold[0].doc])
    assert unseen_scores([bare], gold, set())["unseen"]["UPOS"] is None


@needs_script
def test_score_with_the_training_file_splits_the_tagging_scores(gold20, tmp_path):
    result = score(PIPELINE, gold20, scorer=SCRIPT, train=TRAIN)
    assert result["unseen_in"] == "train.conllu"
    assert result["unseen"]["words"] + result["seen"]["words"] == result["words"]
    assert result["unseen"]["words"] > 0
    assert result["seen"]["UPOS"] is None  # the fixture predicts no UPOS
    both = (result["unseen"]["XPOS"] * result["unseen"]["words"]
            + result["seen"]["XPOS"] * result["seen"]["words"]) / result["words"]
    assert both == pytest.approx(result["XPOS"], abs=0.02)


@needs_script
def test_a_1100_word_sentence_scores_without_recursion_error(tmp_path):
    """`spacy-elstm score` on one 1,100-word gold sentence whose heads form one
    chain (word i under word i + 1), with the biaffine parser: the tree decoder
    recursed once per contracted cycle, and the official script follows each
    head chain by recursion, one call per word; both went past Python's
    recursion limit (1,000)."""
    n = 1100
    rows = [f"{i}\tw{i % 50}\tw\tNOUN\tNN\t_\t{0 if i == n else i + 1}\t"
            f"{'root' if i == n else 'dep'}\t_\t_" for i in range(1, n + 1)]
    text = " ".join(f"w{i % 50}" for i in range(1, n + 1))
    gold = tmp_path / "long.conllu"
    gold.write_text(f"# sent_id = long\n# text = {text}\n" + "\n".join(rows) + "\n\n",
                    encoding="utf8")
    pipeline = ROOT / "tests" / "fixtures" / "compat_models" / "biaffine_dbrnn"
    limit = sys.getrecursionlimit()
    result = score(pipeline, gold, scorer=SCRIPT)
    assert result["words"] == n and result["UAS"] is not None
    assert sys.getrecursionlimit() == limit


@needs_script
def test_score_command_names_a_bad_text_unit(gold20, tmp_path):
    result = run_score(PIPELINE, gold20, "--raw", "--text-unit", "page", "--scorer", SCRIPT,
                       "--output", tmp_path / "s.json")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "text unit must be one of paragraph, line, file, got 'page'" in result.stderr
    assert not (tmp_path / "s.json").exists()


@needs_script
def test_score_raw_script_writes_every_raw_score_of_a_split(tmp_path):
    """scripts/score_raw.sh: the files docs/results/ud.md reads, each saying what it scored."""
    env = {**os.environ, "GOLD": str(ROOT / "assets" / "ud-ewt-sample" / "SPLIT.conllu"),
           "SCORER": str(SCRIPT)}
    subprocess.run(["bash", str(ROOT / "scripts" / "score_raw.sh"), str(PIPELINE),
                    str(tmp_path), "brnn", "dev"], check=True, env=env, capture_output=True)
    found = {p.name: json.loads(p.read_text()) for p in tmp_path.glob("*.json")}
    assert sorted(found) == ["brnn-dev.raw-crlf.json", "brnn-dev.raw-file.json",
                             "brnn-dev.raw-lowercase-unpunctuated.json",
                             "brnn-dev.raw-lowercase.json", "brnn-dev.raw-unpunctuated.json",
                             "brnn-dev.raw.json"]
    assert found["brnn-dev.raw-file.json"]["text_unit"] == "file"
    assert found["brnn-dev.raw-lowercase.json"]["text_variant"] == "lowercase"
    assert {r["text_form"] for r in found.values()} == {"ud"}
