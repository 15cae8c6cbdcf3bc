"""lab.multiword_tokens: the gold multiword tokens a prediction writes with the
right words, in all and among those the training file lacks (an excerpt of UD
Wolof-WTB, CC BY-SA 4.0)."""
import json
from pathlib import Path

import pytest

from lab.multiword_tokens import main, tokens

WTB = Path(__file__).resolve().parent / "fixtures" / "ud_text" / "UD_Wolof-WTB" / "wo_wtb-ud-test.conllu"


def rewritten(tmp_path, change):
    """The fixture with each multiword token's word lines changed by `change`."""
    lines, inside = [], 0
    for line in WTB.read_text(encoding="utf8").splitlines():
        columns = line.split("\t")
        if not line:
            inside = 0
        elif len(columns) == 10 and "-" in columns[0]:
            inside = int(columns[0].split("-")[1])
        elif len(columns) == 10 and "." not in columns[0] and int(columns[0]) <= inside:
            columns[1] = change(columns[1])
        lines.append("\t".join(columns))
    path = tmp_path / "system.conllu"
    path.write_text("\n".join(lines) + "\n", encoding="utf8")
    return path


def test_the_gold_itself_is_right_and_changed_words_are_not(tmp_path):
    multiword = [t for t in tokens(WTB) if len(t[2]) > 1]
    assert len(multiword) == 14 and ("moo" in {form for _, form, _ in multiword})
    wrong = rewritten(tmp_path, lambda form: form + "x")
    train = tmp_path / "train.conllu"
    train.write_text("1\tmoo\tmoo\tAUX\t_\t_\t0\troot\t_\t_\n\n", encoding="utf8")
    output = tmp_path / "result.json"
    assert main([str(WTB), f"gold={WTB}", f"wrong={wrong}", "--train", str(train),
                 "--output", str(output)]) == 0
    systems = json.loads(output.read_text())["systems"]
    unseen = sum(1 for _, form, _ in multiword if form.lower() != "moo")
    assert systems["gold"] == {"all": {"gold": 14, "right": 14},
                               "unseen": {"gold": unseen, "right": unseen}}
    assert systems["wrong"]["all"] == {"gold": 14, "right": 0}


def test_a_prediction_of_another_text_is_refused(tmp_path):
    other = rewritten(tmp_path, lambda form: form)
    other.write_text(other.read_text(encoding="utf8").replace("\tmoo\t", "\tmoi\t"),
                     encoding="utf8")
    with pytest.raises(SystemExit, match="do not spell"):
        main([str(WTB), f"other={other}", "--train", str(WTB)])
