"""lab.sentence_ends: sentence ends compared across tokenisations, by the mark before them."""
import json

import pytest

from lab.sentence_ends import A_WORD, compare, main, mark, mark_ends, sentence_ends

GOLD = """# text = Ne oldu? Gel.
1\tNe\tne\tPRON\t_\t_\t2\tnsubj\t_\t_
2\toldu\tol\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No
3\t?\t?\tPUNCT\t_\t_\t2\tpunct\t_\t_

1-2\tGeldim\t_\t_\t_\t_\t_\t_\t_\t_
1\tGel\tgel\tVERB\t_\t_\t0\troot\t_\t_
2\tdim\tdi\tAUX\t_\t_\t1\taux\t_\tSpaceAfter=No
3\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_

1\tçok\tçok\tADV\t_\t_\t2\tadvmod\t_\t_
2\tgüzel\tgüzel\tADJ\t_\t_\t0\troot\t_\t_

"""
# one sentence where the gold has the first two, and an end inside the third
PREDICTED = """1\tNe\t_\t_\t_\t_\t0\troot\t_\t_
2\toldu?\t_\t_\t_\t_\t1\tdep\t_\t_
3\tGeldim\t_\t_\t_\t_\t1\tdep\t_\tSpaceAfter=No
4\t.\t_\t_\t_\t_\t1\tpunct\t_\t_

1\tçok\t_\t_\t_\t_\t0\troot\t_\t_

1\tgüzel\t_\t_\t_\t_\t0\troot\t_\t_

"""


def test_ends_are_counted_in_characters_across_tokenisations(tmp_path):
    gold, predicted = tmp_path / "gold.conllu", tmp_path / "predicted.conllu"
    gold.write_text(GOLD, encoding="utf-8")
    predicted.write_text(PREDICTED, encoding="utf-8")
    # a multiword token counts once, by its range line
    assert sentence_ends(gold) == [(7, "?"), (14, "."), (22, "l")]
    assert compare(sentence_ends(gold), sentence_ends(predicted)) == {
        "?": {"gold": 1, "found": 0, "extra": 0},
        ".": {"gold": 1, "found": 1, "extra": 0},
        A_WORD: {"gold": 1, "found": 1, "extra": 1}}
    assert mark("؟") == "؟" and mark("·") == "·" and mark("x") == A_WORD
    out = tmp_path / "ends.json"
    assert main([str(gold), f"ours={predicted}", "--output", str(out)]) == 0
    assert json.loads(out.read_text())["systems"]["ours"]["?"]["found"] == 0


def test_a_prediction_of_another_text_is_refused(tmp_path, capsys):
    gold, other = tmp_path / "gold.conllu", tmp_path / "other.conllu"
    gold.write_text(GOLD, encoding="utf-8")
    other.write_text(PREDICTED.replace("güzel", "iyi"), encoding="utf-8")
    with pytest.raises(SystemExit):
        main([str(gold), f"ours={other}"])
    assert "not the same text" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(gold), "ours"])
    assert "NAME=PREDICTION" in capsys.readouterr().err


def test_a_file_s_marks_are_counted_with_the_sentences_they_end(tmp_path):
    gold = tmp_path / "train.conllu"
    gold.write_text(GOLD + GOLD.replace("oldu\tol\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No",
                                        "oldu\tol\tVERB\t_\t_\t0\troot\t_\t_"), encoding="utf-8")
    # "?" and "." end each of their sentences; of the five words of each copy, "güzel"
    # ends one (a multiword token is one token, by its range line)
    assert mark_ends(gold) == {"?": {"tokens": 2, "ends": 2}, ".": {"tokens": 2, "ends": 2},
                               A_WORD: {"tokens": 10, "ends": 2}}
    out = tmp_path / "marks.json"
    assert main([str(gold), "--output", str(out)]) == 0  # the training split alone: no system
    written = json.loads(out.read_text())
    assert written["systems"] == {} and written["marks"]["?"] == {"tokens": 2, "ends": 2}
