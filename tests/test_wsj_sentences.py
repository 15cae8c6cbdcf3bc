"""The WSJ sample as raw text (`lab.wsj_sentences`): PTB's escapes undone, the
period PTB repeats after a final abbreviation left out, each file one
document, and a gold file the CoNLL 2018 script reads."""
from pathlib import Path

from lab.wsj_sentences import gold_conllu, words_and_spaces, written
from spacy_elstm.treebanks.gold_text import raw_documents
from spacy_elstm.treebanks.gold_variants import variant_gold
from spacy_elstm.treebanks.ptb import Sentence


def sentence(file: str, index: int, words, tags) -> Sentence:
    return Sentence(path=Path(f"{file}.mrg"), line=1, index=index, words=words, tags=tags)


def test_words_are_written_as_a_writer_wrote_them():
    assert [written(w) for w in ["-LRB-", "``", "''", "3\\/4", "-RCB-", "Mr."]] == [
        "(", '"', '"', "3/4", "}", "Mr."]
    words, spaces, punctuation = words_and_spaces(
        sentence("wsj_0001", 1, ["He", "left", "the", "U.S.", "."], ["PRP", "VBD", "DT", "NNP", "."]))
    assert words == ["He", "left", "the", "U.S."] and spaces[-1] and not any(punctuation)
    words, spaces, punctuation = words_and_spaces(sentence("wsj_0001", 1, ["``", "No", ",", "''", "he", "said", "."],
                                              ["``", "UH", ",", "''", "PRP", "VBD", "."]))
    assert "".join(w + " " * s for w, s in zip(words, spaces)).strip() == '"No," he said.'
    assert punctuation == [True, False, True, True, False, False, True]


def test_each_file_is_one_document_and_the_gold_reads_back(tmp_path):
    sentences = [sentence("wsj_0001", 1, ["A", "b", "."], ["DT", "NN", "."]),
                 sentence("wsj_0001", 2, ["-LRB-", "C", "-RRB-", "."], ["-LRB-", "NN", "-RRB-", "."]),
                 sentence("wsj_0002", 1, ["D", "."], ["NN", "."])]
    gold = tmp_path / "wsj.conllu"
    gold.write_text(gold_conllu(sentences), encoding="utf8")
    documents = raw_documents(gold, "joined")
    assert [(d.doc_id, d.text.strip(), d.sentences) for d in documents] == [
        ("wsj_0001", "A b. (C).", 2), ("wsj_0002", "D.", 1)]
    # the punctuation tags are UD's PUNCT, so the rewriting without punctuation works on it
    bare = variant_gold(gold, "unpunctuated", tmp_path / "unpunctuated")
    assert [d.text.split() for d in raw_documents(bare, "joined")] == [["A", "b", "C"], ["D"]]
