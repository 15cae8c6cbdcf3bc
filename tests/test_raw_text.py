"""Raw text in: the documents rebuilt from a gold CoNLL-U file, the one
CoNLL-U writer (documents, sentences, multiword tokens), `score --raw`, and a
pipeline trained on documents that learns to split sentences."""
import os
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import Adam, fix_random_seed

from spacy_elstm.treebanks.conllu_writer import doc_to_conllu, docs_to_conllu
from spacy_elstm.text.multiword import set_multiword_spans
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import (SCORER_ASSET, SCORER_ENV, ScoringError, load_scorer,
                                           official_scores, score)
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs, read_conllu

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_TRAIN = ROOT / "assets" / "ud-ewt-sample" / "train.conllu"
SAMPLE_DEV = ROOT / "assets" / "ud-ewt-sample" / "dev.conllu"
SCRIPT = Path(os.environ.get(SCORER_ENV) or ROOT / SCORER_ASSET)
needs_script = pytest.mark.skipif(not SCRIPT.is_file(),
                                  reason=f"no CoNLL 2018 evaluation script at {SCRIPT}")

TINY = """# newdoc id = d1
# newpar id = d1-p1
# sent_id = d1-1
# text = I'm here.
1-2\tI'm\t_\t_\t_\t_\t_\t_\t_\t_
1\tI\tI\tPRON\tPRP\t_\t3\tnsubj\t_\t_
2\t'm\tbe\tAUX\tVBP\t_\t3\tcop\t_\t_
3\there\there\tADV\tRB\t_\t0\troot\t_\tSpaceAfter=No
4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_

# sent_id = d1-2
# text = Go!!!
1\tGo\tgo\tVERB\tVB\t_\t0\troot\t_\tSpaceAfter=No
2\t!!!\t!!!\tPUNCT\t.\t_\t1\tpunct\t_\t_

# newpar id = d1-p2
# sent_id = d1-3
# text = Bye
1\tBye\tbye\tINTJ\tUH\t_\t0\troot\t_\t_

# newdoc id = d2
# sent_id = d2-1
# text = Don't.
1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No
1\tDo\tdo\tAUX\tVBP\t_\t0\troot\t_\t_
2\tn't\tnot\tPART\tRB\t_\t1\tadvmod\t_\t_
3\t.\t.\tPUNCT\t.\t_\t1\tpunct\t_\t_

"""


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.conllu"
    path.write_text(TINY, encoding="utf8")
    return path


def gold_documents(path):
    """The gold sentences of each document as one Doc, multiword tokens set."""
    sentences, documents = read_conllu(path), raw_documents(path)
    docs, k = [], 0
    for document in documents:
        group = sentences[k:k + document.sentences]
        k += document.sentences
        spans, offset = [], 0
        for sentence in group:
            spans += [(a + offset, b + offset) for a, b in sentence.user_data.pop(
                "multiword_tokens", [])]
            offset += len(sentence)
        doc = Doc.from_docs(group)
        set_multiword_spans(doc, spans)
        docs.append(doc)
    return docs, documents


def test_raw_documents_are_the_tokens_as_written(tiny):
    documents = raw_documents(tiny)
    assert [d.doc_id for d in documents] == ["d1", "d2"]
    assert [d.sentences for d in documents] == [3, 1]
    assert documents[0].text == "I'm here. Go!!! \n\nBye \n\n"  # UD's form
    assert documents[1].text == "Don't. \n"
    joined = raw_documents(tiny, "joined")
    assert [d.text for d in joined] == ["I'm here. Go!!!\n\nBye", "Don't."]
    assert [d.sentences for d in joined] == [3, 1]


def test_writer_writes_documents_sentences_and_multiword_ranges(tiny, tmp_path):
    docs, documents = gold_documents(tiny)
    text, repaired = docs_to_conllu(docs[:1], doc_id="d1")
    assert repaired == 0
    assert text.startswith("# newdoc id = d1\n# sent_id = d1-1\n# text = I'm here.\n"
                           "1-2\tI'm\t_\t_\t_\t_\t_\t_\t_\t_\n1\tI\tI\tPRON")
    assert "# sent_id = d1-3\n# text = Bye\n1\tBye" in text
    written = tmp_path / "written.conllu"
    written.write_text(text + doc_to_conllu(docs[1], doc_id="d2")[0], encoding="utf8")
    again = read_conllu(written)  # the strict reader: one tree a sentence
    assert [[t.text for t in s] for s in again] == [[t.text for t in s] for s in read_conllu(tiny)]
    assert [" ".join(d.text.split()) for d in raw_documents(written)] == [
        " ".join(d.text.split()) for d in documents]


def test_whitespace_tokens_are_not_words():
    nlp = spacy.blank("en")
    doc = nlp("One two.\n\nThree")
    doc[4].is_sent_start = True
    text, _ = doc_to_conllu(doc)
    rows = [line.split("\t") for line in text.splitlines() if line and line[0].isdigit()]
    assert [r[1] for r in rows] == ["One", "two", ".", "Three"]
    assert rows[2][9] == "_"  # a newline follows the full stop: not SpaceAfter=No


def test_a_sentence_started_inside_a_multiword_token_starts_at_the_token(tmp_path):
    """A pipeline may start a sentence on `'m` of `I'm` (spaCy's parser knows no
    multiword tokens): the token stays whole, in the sentence it begins, so the
    tokens written are the tokenizer's whatever the sentences."""
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=["It", "rains", ".", "I", "'m", "here", "."],
              spaces=[True, False, True, False, True, False, False],
              sent_starts=[True, False, False, False, True, False, False])
    set_multiword_spans(doc, [(3, 4)])
    text, _ = doc_to_conllu(doc, doc_id="d")
    blocks = text.strip("\n").split("\n\n")
    assert len(blocks) == 2
    assert "# text = It rains.\n1\tIt" in blocks[0] and "\tI\t" not in blocks[0]
    assert "# text = I'm here.\n1-2\tI'm\t" in blocks[1]
    written = tmp_path / "written.conllu"
    written.write_text(text, encoding="utf8")
    assert [[t.text for t in s] for s in read_conllu(written)] == [
        ["It", "rains", "."], ["I", "'m", "here", "."]]
    # a sentence of the token's later words only goes into the token's sentence
    doc = Doc(nlp.vocab, words=["I", "'m", "here"], spaces=[False, True, False],
              sent_starts=[True, True, True])
    set_multiword_spans(doc, [(0, 1)])
    blocks = doc_to_conllu(doc)[0].strip("\n").split("\n\n")
    assert len(blocks) == 2 and blocks[0].startswith("# sent_id = 1\n# text = I'm\n1-2\tI'm")


@needs_script
def test_written_gold_documents_score_100(tiny, tmp_path):
    docs, documents = gold_documents(SAMPLE_DEV)
    written = tmp_path / "dev.conllu"
    written.write_text("".join(doc_to_conllu(d, doc_id=r.doc_id)[0]
                               for d, r in zip(docs, documents)), encoding="utf8")
    evaluation = official_scores(load_scorer(SCRIPT), SAMPLE_DEV, written)
    assert {m: evaluation[m].f1 for m in ("Tokens", "Sentences", "Words", "LAS", "Lemmas")} == {
        m: 1.0 for m in ("Tokens", "Sentences", "Words", "LAS", "Lemmas")}


SPLITTER = """
[nlp]
lang = "en"
pipeline = ["tok2vec", "parser"]

[nlp.tokenizer]
@tokenizers = "spacy-elstm.TreebankTokenizer.v1"

[components]

[components.tok2vec]
factory = "tok2vec"

[components.tok2vec.model]
@architectures = "spacy.Tok2Vec.v2"

[components.tok2vec.model.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 64
attrs = ["NORM", "SHAPE", "SUFFIX"]
rows = [2000, 100, 500]
include_static_vectors = false

[components.tok2vec.model.encode]
@architectures = "spacy-elstm.RecurrentEncoder.v2"
width = 64
depth = 1
cell = "elstm"
dropout = 0.0

[components.parser]
factory = "parser"
min_action_freq = 1

[components.parser.model]
@architectures = "spacy.TransitionBasedParser.v2"
state_type = "parser"
extra_state_tokens = false
hidden_width = 32
maxout_pieces = 2
use_upper = true
nO = null

[components.parser.model.tok2vec]
@architectures = "spacy.Tok2VecListener.v1"
width = 64
"""


@pytest.fixture(scope="module")
def splitter():
    """A parser trained on documents of ten sentences of the sample."""
    fix_random_seed(0)
    nlp = spacy.util.load_model_from_config(spacy.util.load_config_from_str(SPLITTER),
                                            auto_fill=True, validate=True)
    docs = conllu_to_docs(SAMPLE_TRAIN, 10, nlp.vocab)
    examples = lambda: [Example(nlp.make_doc(d.text), d) for d in docs]  # noqa: E731
    nlp.initialize(examples)
    optimizer = Adam(0.005)
    for _ in range(10):
        for k in range(0, len(docs), 4):
            nlp.update(examples()[k:k + 4], sgd=optimizer, drop=0.1)
    return nlp


def test_documents_teach_the_parser_where_sentences_end():
    """The parser's oracle on a ten-sentence document breaks nine times; on
    one sentence at a time (gold_preproc = true) it never does."""
    nlp = spacy.blank("en")
    parser = nlp.add_pipe("parser")
    doc = conllu_to_docs(SAMPLE_TRAIN, 10, nlp.vocab)[0]
    nlp.initialize(lambda: [Example(nlp.make_doc(doc.text), doc)])
    def breaks(example):
        actions = parser.moves.get_oracle_sequence(example)
        return sum(parser.moves.get_class_name(a).startswith("B") for a in actions)

    assert breaks(Example(nlp.make_doc(doc.text), doc)) == 9
    assert sum(breaks(Example(nlp.make_doc(s.text), s.as_doc())) for s in doc.sents) == 0


def test_a_pipeline_trained_on_documents_splits_sentences(splitter):
    docs, _ = gold_documents(SAMPLE_DEV)
    texts = [d.text for d in docs]
    predicted = list(splitter.pipe(texts))
    gold_starts = {(k, t.idx) for k, d in enumerate(docs) for t in d if t.is_sent_start}
    mine = {(k, t.idx) for k, d in enumerate(predicted) for t in d if t.is_sent_start}
    assert len(mine) > len(docs) * 2  # more than one sentence a document
    found = len(gold_starts & mine)
    f1 = 2 * found / (len(gold_starts) + len(mine))
    assert f1 > 0.4, (f1, len(gold_starts), len(mine))


@needs_script
def test_score_raw_gives_every_metric(splitter, tmp_path):
    splitter.to_disk(tmp_path / "p")
    result = score(tmp_path / "p", SAMPLE_DEV, raw=True, scorer=SCRIPT,
                   output=tmp_path / "raw.json", predictions=tmp_path / "raw.conllu")
    assert result["tokenisation"] == "pipeline" and result["input"] == "raw text"
    assert result["components"] == splitter.pipe_names  # which pipeline made the row
    name = splitter.pipe_names[-1]  # and how each was set
    assert result["components_config"][name] == dict(splitter.config["components"][name])
    assert result["Tokens"] > 95 and result["Words"] > 95 and result["Sentences"] > 0
    assert result["sentence_count"] > 2 * result["documents"]
    assert result["UPOS"] is None and result["Lemmas"] is None and result["LAS"] is not None
    assert result["documents"] == len(raw_documents(SAMPLE_DEV))
    assert (tmp_path / "raw.json").is_file()
    assert "1-2\t" in (tmp_path / "raw.conllu").read_text(encoding="utf8")
    assert result["tok2vec"] == "spacy.Tok2Vec.v2"  # how the tok2vec read the text
    by_sentence = score(tmp_path / "p", SAMPLE_DEV, raw=True, scorer=SCRIPT, overrides={
        "components.tok2vec.model.@architectures": "spacy-elstm.SentenceTok2Vec.v1"})
    assert by_sentence["tok2vec"] == "spacy-elstm.SentenceTok2Vec.v1"
    assert by_sentence["Sentences"] == result["Sentences"]  # the tokens and sentences the same
    assert result["text_unit"] == "paragraph"
    assert result["language"] == "en"  # the sample's name is not UD's: English, the default
    whole = score(tmp_path / "p", SAMPLE_DEV, raw=True, scorer=SCRIPT, text_unit="file")
    assert whole["text_unit"] == "file" and whole["documents"] == result["documents"]
    assert whole["Tokens"] == result["Tokens"]
    with pytest.raises(ValueError, match="text unit must be one of paragraph, line, file, "
                                         "got 'page'"):
        score(tmp_path / "p", SAMPLE_DEV, raw=True, scorer=SCRIPT, text_unit="page")
    assert result["text_variant"] == "as-written"
    crlf = score(tmp_path / "p", SAMPLE_DEV, raw=True, scorer=SCRIPT, text_variant="crlf")
    assert crlf["text_variant"] == "crlf" and crlf["Tokens"] == result["Tokens"]
    bare = score(tmp_path / "p", SAMPLE_DEV, raw=True, scorer=SCRIPT,
                 text_variant="unpunctuated")
    assert bare["text_variant"] == "unpunctuated" and bare["Words"] > 90  # the rewritten gold
    assert bare["gold_sentences"] < result["gold_sentences"]  # `***` and the like went
    from spacy_elstm.treebanks.gold_variants import VARIANTS
    with pytest.raises(ValueError, match=f"text variant must be one of {', '.join(VARIANTS)}, "
                                         "got 'shouting'"):
        score(tmp_path / "p", SAMPLE_DEV, raw=True, scorer=SCRIPT, text_variant="shouting")
    with pytest.raises(ScoringError, match="--text-variant rewrites the raw text: it needs --raw"):
        score(tmp_path / "p", SAMPLE_DEV, scorer=SCRIPT, text_variant="lowercase")
    with pytest.raises(ScoringError, match="--language says how the raw text is written: "
                                           "it needs --raw"):
        score(tmp_path / "p", SAMPLE_DEV, scorer=SCRIPT, language="lzh")


@needs_script
def test_score_raw_says_what_decided_the_senter_s_sentence_ends(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("elstm_senter", config={"char_width": 8, "width": 16, "depth": 1,
                                         "word_width": 16, "end_threshold": 0.45})
    docs = conllu_to_docs(SAMPLE_TRAIN, 10, nlp.vocab)
    nlp.initialize(lambda: [Example(d, d) for d in docs])
    nlp.get_pipe("elstm_senter").initialize(lambda: [Example(d, d) for d in docs], nlp=nlp,
                                            epochs=1, word_epochs=1)
    nlp.to_disk(tmp_path / "p")
    result = score(tmp_path / "p", SAMPLE_DEV, raw=True, scorer=SCRIPT)
    from spacy_elstm.components.elstm_senter import CHAR_CONTEXT, WORD_SURE
    from spacy_elstm.text.punctuation import SENTENCE_MARKS_RULE
    assert result["senter"] == {"reads_words": True, "char_models": 1, "word_models": 1,
                                "end_threshold": 0.45,
                                "word_sure": WORD_SURE, "char_context": list(CHAR_CONTEXT),
                                "unpunctuated": True, "punctuated_by": SENTENCE_MARKS_RULE}
    gold = score(tmp_path / "p", SAMPLE_DEV, scorer=SCRIPT)
    assert "senter" not in gold
