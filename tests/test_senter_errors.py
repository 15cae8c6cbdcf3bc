"""The senter's remaining errors, counted (`lab.senter_errors`): gold sentence
ends from CoNLL-U as places in the text, missed and made-up ends told apart and
sorted by what comes before them; and the threshold study's mean change
(`lab.senter_thresholds`)."""
from pathlib import Path

from lab.senter_errors import compare, counted, gold_ends, kind
from lab.senter_thresholds import mean_changes
from spacy_elstm.treebanks.gold_text import raw_documents

SAMPLE = Path(__file__).resolve().parent.parent / "assets" / "ud-ewt-sample" / "dev.conllu"


def test_gold_ends_are_where_each_sentence_s_text_ends():
    lengths = gold_ends(SAMPLE)
    document = raw_documents(SAMPLE, "ud")[0]
    text = "".join(document.text.split())
    assert sum(lengths[:document.sentences]) == len(text)
    assert all(n > 0 for n in lengths)


def test_errors_are_told_apart_and_sorted_by_what_comes_before():
    text = "Thanks John\nSee you. Bye: later (ok)"
    # non-space characters: "ThanksJohn" 10, "See" 13, "you." 17, "Bye:" 21, "later" 26, "(ok)" 30
    found = compare(text, gold={10, 17, 21, 30}, found={13, 17, 30})
    assert [(end, error, what) for end, error, what, _ in found] == [
        (10, "missed", "no punctuation"), (21, "missed", "colon or semicolon"),
        (13, "made up", "no punctuation")]
    assert found[0][3] == "Thanks John | ⏎See you. Bye: later"
    assert kind("a.") == "final punctuation" and kind("(ok)") == "other punctuation"


def test_errors_every_pipeline_makes_are_counted_in_the_text_s_order():
    text = "Thanks John\nSee you. Bye: later (ok)"
    first = {(0, *e) for e in compare(text, gold={10, 17, 21, 30}, found={13, 17, 30})}
    second = {(0, *e) for e in compare(text, gold={10, 17, 21, 30}, found={10, 17, 30})}
    second |= {(1, *e) for e in compare(text, gold={10}, found={21})}  # another document
    shared = counted(first & second)
    assert shared["counts"] == {"missed: colon or semicolon": 1}
    both = counted(first | second)
    assert both["counts"] == {"made up: colon or semicolon": 1, "made up: no punctuation": 1,
                              "missed: colon or semicolon": 1, "missed: no punctuation": 2}
    assert both["examples"]["missed: no punctuation"][0] == "Thanks John | ⏎See you. Bye: later"


def test_the_mean_change_is_from_the_first_threshold_per_form():
    rows = [{"pipeline": p, "end_threshold": t, "Sentences_ud": ud, "Sentences_joined": j,
             "Sentences_lines": ln}
            for p, t, ud, j, ln in [("a", 0.5, 80.0, 81.0, 90.0), ("a", 0.4, 81.0, 81.0, 89.0),
                                    ("b", 0.5, 70.0, 71.0, 95.0), ("b", 0.4, 72.0, 70.0, 95.0)]]
    assert mean_changes(rows, 0.5) == {"0.5": {"ud": 0.0, "joined": 0.0, "lines": 0.0},
                                       "0.4": {"ud": 1.5, "joined": -0.5, "lines": -0.5}}


def test_token_errors_compare_surface_tokens_by_their_characters():
    import spacy
    from lab.token_errors import gold_tokens, spans_of, system_tokens
    from spacy_elstm.text.multiword import set_multiword_spans
    sentences = gold_tokens(SAMPLE)
    document = raw_documents(SAMPLE, "ud")[0]
    tokens = [t for s in sentences[:document.sentences] for t in s]
    assert "".join(tokens) == "".join(document.text.split())
    assert spans_of(["a b", "c"]) == {(0, 2): "a b", (2, 3): "c"}
    nlp = spacy.blank("en")
    doc = nlp.make_doc("I can't go .\n\nOk")
    set_multiword_spans(doc, [(1, 2)])  # "ca" + "n't" written as one token
    assert system_tokens(doc) == ["I", "can't", "go", ".", "Ok"]


def test_the_probe_counts_paragraph_ends_as_found():
    import numpy
    from lab.senter_tok2vec_probe import Words, end_f1
    words = Words(features=None, senter=None,
                  gold=numpy.array([False, True, False, True]),
                  paragraph=numpy.array([False, False, False, True]))
    assert end_f1(words, numpy.array([False, True, False, False])) == 100.0
    assert end_f1(words, numpy.array([True, False, False, False])) == 50.0
