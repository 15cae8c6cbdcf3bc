"""What the CoNLL-U writer writes passes UD's validator (`udvalidate --lang en
--level 2`, from udtools): gold documents, a saved pipeline's raw-text output,
`score --predictions` and `spacy-elstm parse --format conllu` on hostile text.
Each FORM is a word (not empty, no whitespace but single spaces inside, as in
Vietnamese) and each sentence has words; the treebank tokenizer writes valid
CoNLL-U for every kind of writing."""
import json
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab
from typer.testing import CliRunner

from spacy_elstm.cli.app import app
from spacy_elstm.treebanks.conllu_writer import doc_to_conllu
from spacy_elstm.text.treebank_tokenizer import NAME as TOKENIZER
from spacy_elstm.treebanks.conllu_reader import conllu_to_docs
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.scoring import score, write_raw_conllu
from parse_utils import MODEL as PARSER_ONLY  # spaCy's tokenizer, a parser, no tagger
from test_raw_text import SAMPLE_DEV, SCRIPT, gold_documents, needs_script

RAW_PIPELINE = Path(__file__).parent / "fixtures" / "compat_raw" / "raw_best_elstm"
UDVALIDATE = shutil.which("udvalidate")

CONTROL = "".join(chr(c) for c in range(32) if chr(c) not in "\t\n\r") + "\x7f"
HOSTILE = {  # the bytes of an input .txt file, one doc a line
    "empty": b"",
    "blank lines": b"  \n\t\n\n",
    "crlf": b"First line here.\r\nSecond one, too.\r\n\r\nThird.\r\n",
    "control characters": f"Bad{CONTROL}chars here.\n{CONTROL}\nzero\u200bwidth and "
                          f"line\u2028separator, next\x85line.\n".encode(),
    "emoji": "I \u2764\ufe0f it \U0001f44d\U0001f3fd. A family \U0001f468\u200d\U0001f469"
             "\u200d\U0001f467\u200d\U0001f466, flags \U0001f1ec\U0001f1e7\U0001f1eb\U0001f1f7 "
             "\U0001f3f3\ufe0f\u200d\U0001f308!\n".encode(),
    "outer whitespace": "   Leading and trailing.   \n\u3000wide\u00a0spaces\u3000\n".encode(),
    "tab inside": b"A tab\tinside a sentence.\t\n",
    "not NFC": "Cafe\u0301 and nai\u0308ve.\n".encode(),
    "200,000 characters, no whitespace": (("x" * 99 + ",") * 2000 + "\n").encode(),  # 4,000 words
    "200,000 characters, one word": b"x" * 200_000 + b"\n",
}


def validate(path: Path, lang: str = "en") -> str:
    """The file's text, after checking that udvalidate passes it (as the
    language `lang`) and that every FORM is a word and every sentence has one."""
    if UDVALIDATE is None:
        pytest.skip("no `udvalidate` command: pip install udtools (in the `test` extra)")
    result = subprocess.run([UDVALIDATE, "--lang", lang, "--level", "2", "--max-err", "0",
                             str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    text = path.read_text(encoding="utf8")
    for block in filter(None, text.split("\n\n")):
        rows = [line.split("\t") for line in block.split("\n") if not line.startswith("#")]
        assert rows, block
        for row in rows:
            # (a word may hold single spaces: Vietnamese `chủ tịch`)
            assert len(row) == 10 and row[1] and " ".join(row[1].split()) == row[1], row
    return text


def test_feats_are_in_ud_order(tmp_path):
    """spaCy sorts features case-sensitively (NumType before Number); UD sorts
    the `Feature=Value` items, and the values of one, case-insensitively."""
    doc = Doc(Vocab(), words=["one", "half", "who", "x"],
              morphs=["NumType=Card|Number=Sing", "NumForm=Word|NumType=Frac|Number=Sing",
                      "PronType=Rel,Int", "Foo=ZZ,Za"])
    text, _ = doc_to_conllu(doc, doc_id="d1")
    assert column(text, 5) == ["Number=Sing|NumType=Card",
                               "Number=Sing|NumForm=Word|NumType=Frac", "PronType=Int,Rel",
                               "Foo=Za,ZZ"]
    (tmp_path / "feats.conllu").write_text(text, encoding="utf8")
    validate(tmp_path / "feats.conllu")


def test_a_document_ends_without_space_after_no():
    """UD: no `SpaceAfter=No` before a `# newdoc` (`spaceafter-newdocpar`; udtools
    0.2.9 does not see it, its pattern misses `# newdoc id = ...`)."""
    doc = Doc(Vocab(), words=["Hi", "!"], spaces=[False, False])
    assert column(doc_to_conllu(doc, doc_id="d1")[0], 9) == ["SpaceAfter=No", "_"]
    assert column(doc_to_conllu(doc)[0], 9) == ["SpaceAfter=No", "SpaceAfter=No"]  # a sentence


def test_gold_documents_written_again_pass(tmp_path):
    """The sample's dev documents as the writer writes them (with `Number=Ptan`
    beside `NumForm` and `NumType`, which spaCy writes out of UD's order)."""
    docs, documents = gold_documents(SAMPLE_DEV)
    path = tmp_path / "gold.conllu"
    path.write_text("".join(doc_to_conllu(d, doc_id=r.doc_id)[0]
                            for d, r in zip(docs, documents)), encoding="utf8")
    validate(path)


def test_a_saved_pipeline_s_raw_text_output_passes(tmp_path):
    nlp = spacy.load(RAW_PIPELINE)
    documents = raw_documents(SAMPLE_DEV)
    docs = nlp.pipe([d.text for d in documents])
    path = tmp_path / "raw.conllu"
    path.write_text("".join(doc_to_conllu(doc, doc_id=d.doc_id)[0]
                            for doc, d in zip(docs, documents)), encoding="utf8")
    text = validate(path)
    assert "1-2\t" in text and text.count("# newdoc id = ") == len(documents)


@needs_script
@pytest.mark.parametrize("raw", [True, False], ids=["raw text", "gold tokens"])
def test_score_predictions_pass(raw, tmp_path):
    predictions = tmp_path / "predictions.conllu"
    score(RAW_PIPELINE, SAMPLE_DEV, raw=raw, scorer=SCRIPT, predictions=predictions)
    validate(predictions)


@pytest.fixture(scope="module")
def by_sentence(tmp_path_factory):
    """RAW_PIPELINE saved again with its tok2vec reading sentence by sentence
    (spacy-elstm.SentenceTok2Vec.v1, as configs/raw/ have it now)."""
    path = tmp_path_factory.mktemp("by_sentence") / "raw_best_elstm"
    spacy.load(RAW_PIPELINE, config={
        "components.tok2vec.model.@architectures": "spacy-elstm.SentenceTok2Vec.v1"}
    ).to_disk(path)
    return path


@pytest.mark.parametrize("name", list(HOSTILE))
@pytest.mark.parametrize("reading", ["whole", "by sentence"])
def test_parse_conllu_of_hostile_text_passes(name, reading, by_sentence, tmp_path):
    model = RAW_PIPELINE if reading == "whole" else by_sentence
    conllu = parse(model, HOSTILE[name], "in.txt", tmp_path)
    assert characters(conllu) == characters_of(HOSTILE[name].decode())


def test_parse_conllu_of_hostile_text_passes_without_a_tagger(tmp_path):
    """spaCy's own tokenizer and a parser only: UPOS is X."""
    text = b"".join(data for name, data in HOSTILE.items() if not name.startswith("200,000"))
    # (the biaffine parser's scores grow with the square of a sentence's length)
    conllu = parse(PARSER_ONLY, text, "in.txt", tmp_path)
    assert characters(conllu) == characters_of(text.decode())
    assert set(column(conllu, 3)) == {"X"}


def test_parse_conllu_of_hostile_jsonl_passes(tmp_path):
    """Ids with whitespace, a slash or nothing in them; newlines inside a text."""
    records = [{"id": "a b\nc", "text": "Two\n\nparagraphs.\r\nA line."},
               {"id": "x/y", "text": "S."}, {"id": "", "text": "Empty id."},
               {"id": " ", "text": "Blank id."}, {"text": "  \n "}, {"id": 0, "text": "\n\tEnd.\n"}]
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    conllu = parse(RAW_PIPELINE, data, "in.jsonl", tmp_path)
    assert "# newdoc id = a_b_c\n" in conllu and "# newdoc id = x_y\n" in conllu
    assert "# newdoc id = 0\n" in conllu
    assert characters(conllu) == characters_of("".join(r["text"] for r in records))


def column(conllu: str, k: int) -> list:
    """Column k (0-based) of every token line."""
    return [line.split("\t")[k] for line in conllu.splitlines() if line[:1].isdigit()]


def characters(conllu: str) -> str:
    """The text of a CoNLL-U file's tokens (a multiword token's form, not its
    words'), whitespace left out: what the CoNLL 2018 script aligns."""
    tokens, words_of_token = [], set()
    for line in conllu.splitlines():
        if not line[:1].isdigit():
            words_of_token = set()
            continue
        number, form = line.split("\t")[:2]
        if "-" in number:
            first, last = map(int, number.split("-"))
            words_of_token = {str(i) for i in range(first, last + 1)}
            tokens.append(form)
        elif number not in words_of_token:
            tokens.append(form)
    return "".join("".join(tokens).split())


def characters_of(text: str) -> str:
    return "".join(unicodedata.normalize("NFC", text).split())


def parse(model: Path, data: bytes, name: str, tmp_path: Path) -> str:
    """`spacy-elstm parse MODEL in OUT --format conllu`'s output, validated."""
    source = tmp_path / name
    source.write_bytes(data)
    result = CliRunner().invoke(app, ["parse", str(model), str(source), str(tmp_path / "out"),
                                      "--format", "conllu", "--max-length", "0",
                                      "--no-progress"])
    assert result.exit_code == 0, result.output
    shards = sorted((tmp_path / "out").glob("*.conllu"))
    return "".join(validate(shard) for shard in shards)


def test_a_lone_surrogate_in_jsonl_is_bad_input_named_by_its_line(tmp_path):
    from spacy_elstm.parsing.records import CorpusInputError, Record, read_records
    from spacy.vocab import Vocab

    source = tmp_path / "a.jsonl"
    source.write_text('{"text": "a \\ud800 b"}\n{"text": "fine \\ud83d\\ude00"}\n',
                      encoding="utf8")
    first, second = read_records(source, "jsonl", Vocab(), 0)
    assert isinstance(first, CorpusInputError) and first.line == 1
    assert "a.jsonl, line 1: 'text' holds a lone surrogate (U+D800, character 3)" in str(first)
    assert isinstance(second, Record) and second.text == "fine \U0001F600"


@pytest.mark.parametrize("folder,code", [
    ("UD_Wolof-WTB", "wo"),  # multiword tokens whose words do not spell them
    ("UD_Coptic-Scriptorium", "cop"),  # bound groups of many words
    ("UD_Classical_Chinese-Kyoto", "lzh"),  # no spaces
    ("UD_Vietnamese-VTB", "vi"),  # words with spaces
])
def test_the_tokenizer_of_every_kind_of_writing_writes_valid_conllu(tmp_path, folder, code):
    """The treebank tokenizer learned on an excerpt (CC BY-SA 4.0) tokenizes its
    raw text; the words, range lines and SpaceAfter it writes pass the validator."""
    path = Path(__file__).parent / "fixtures" / "ud_text" / folder
    gold = next(path.glob("*.conllu"))
    nlp = spacy.blank("xx", config={"nlp": {"tokenizer": {"@tokenizers": TOKENIZER}}})
    docs = conllu_to_docs(gold, 10, nlp.vocab)
    nlp.tokenizer.initialize(lambda: (Example(nlp.make_doc(d.text), d) for d in docs),
                             nlp=nlp, char_epochs=1, min_epoch_sentences=0)
    documents = raw_documents(gold, "ud", code)
    predicted = []
    for document in documents:
        doc = nlp.make_doc(document.text)
        for token in doc:  # a sentence a line, as a senter might split them
            token.is_sent_start = token.i == 0 or "\n" in doc[token.i - 1].text_with_ws
        predicted.append(doc)
    write_raw_conllu(tmp_path / "tokens.conllu", predicted, documents)
    validate(tmp_path / "tokens.conllu", code)
