"""lab.upos_errors: the UPOS confusion by (gold, predicted) pair, seen and
unseen words, and UPOS read from XPOS, on hand-made docs."""
import json
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc

from lab.upos_errors import confusion, markdown, page_block, training_lexicon, write_page

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def vocab():
    return spacy.blank("en").vocab


def _doc(vocab, rows):
    words, pos, tags = zip(*(row.split("/") for row in rows.split()))
    return Doc(vocab, words=list(words), pos=list(pos), tags=list(tags))


def test_the_confusion_of_a_hand_made_pair_of_doc_lists(vocab):
    train = [_doc(vocab, "The/DET/DT dog/NOUN/NN runs/VERB/VBZ"),
             _doc(vocab, "Run/VERB/VB fast/ADV/RB ./PUNCT/. run/NOUN/NN run/NOUN/NN")]
    lexicon = training_lexicon(train)
    assert lexicon["forms"] == {"the", "dog", "runs", "run", "fast", "."}
    assert lexicon["xpos_to_upos"] == {"DT": "DET", "NN": "NOUN", "VBZ": "VERB", "VB": "VERB",
                                       "RB": "ADV", ".": "PUNCT"}
    assert lexicon["form_xpos_to_upos"][("run", "NN")] == "NOUN"
    assert lexicon["form_xpos_to_upos"][("run", "VB")] == "VERB"
    gold = [_doc(vocab, "the/DET/DT Cat/NOUN/NN runs/VERB/VBZ"),
            _doc(vocab, "Run/VERB/VB blue/ADJ/JJ fast/ADV/RB")]
    predicted = [_doc(vocab, "the/DET/DT Cat/PROPN/NN runs/NOUN/NNS"),   # 2 errors: 1 unseen
                 _doc(vocab, "Run/NOUN/VB blue/NOUN/JJ fast/ADJ/RB")]   # 3 errors: 1 unseen
    result = confusion(gold, predicted, lexicon)
    assert (result["words"], result["errors"]) == (6, 5)
    assert result["splits"]["seen"] == {"words": 4, "errors": 3, "accuracy": 0.25,
                                        "share_of_errors": 0.6}
    assert result["splits"]["unseen"]["words"] == 2 and result["splits"]["unseen"]["errors"] == 2
    pairs = {(p["gold"], p["predicted"]): (p["count"], p["seen"], p["unseen"])
             for p in result["pairs"]}
    assert pairs == {("NOUN", "PROPN"): (1, 0, 1), ("VERB", "NOUN"): (2, 2, 0),
                     ("ADJ", "NOUN"): (1, 0, 1), ("ADV", "ADJ"): (1, 1, 0)}
    assert result["pairs"][0] == {"gold": "VERB", "predicted": "NOUN", "count": 2,
                                  "share_of_errors": 0.4, "seen": 2, "unseen": 0}
    assert sum(p["share_of_errors"] for p in result["pairs"]) == pytest.approx(1.0)
    groups = {g["group"].split(" (")[0]: (g["count"], g["seen"], g["unseen"])
              for g in result["groups"]}
    assert groups == {"PROPN and NOUN": (1, 0, 1), "open class": (5, 3, 2),
                      "function words": (0, 0, 0)}
    verb = next(t for t in result["gold_tags"] if t["tag"] == "VERB")
    assert (verb["words"], verb["errors"], verb["error_rate"]) == (2, 2, 1.0)
    # XPOS -> UPOS: NN->NOUN (Cat: right), NNS unknown (runs: wrong), VB->VERB (Run: right),
    # JJ unknown (blue), RB->ADV (fast: right), DT->DET (the: right, and right before);
    # (form, XPOS) the same here, falling back to the XPOS
    for route in ("xpos", "form_and_xpos"):
        assert result["upos_from_xpos"][route] == {"accuracy": round(4 / 6, 5),
                                                   "errors_it_fixes": 3,
                                                   "right_ones_it_breaks": 0}
    # the tagger's XPOS is gold on Cat, Run, blue and fast; not on runs (NNS for VBZ)
    assert result["upos_errors_with_the_right_xpos"] == 4
    json.dumps(result)
    page = markdown({"model": "m", "split": "dev.spacy", "train": "train.spacy",
                     "metrics_file": "metrics/upos-errors/m.json", "confusion": result})
    assert "| VERB | NOUN | 2 | 40.00 | 2 | 0 |" in page
    assert "| seen in train | 4 | 25.00 | 3 | 60.00 |" in page


def test_the_confusion_refuses_docs_that_do_not_match(vocab):
    lexicon = training_lexicon([])
    with pytest.raises(ValueError, match="1 gold docs but 0 predicted"):
        confusion([_doc(vocab, "a/DET/DT")], [], lexicon)
    with pytest.raises(ValueError, match="doc 0: the predicted doc's words differ"):
        confusion([_doc(vocab, "a/DET/DT")], [_doc(vocab, "b/DET/DT")], lexicon)


def test_the_page_block_is_rewritten(tmp_path, vocab):
    result = confusion([_doc(vocab, "a/DET/DT")], [_doc(vocab, "a/NOUN/DT")],
                       training_lexicon([]))
    block = markdown({"model": "m", "split": "dev", "train": "train", "metrics_file": "x.json",
                      "confusion": result})
    page = tmp_path / "upos-errors.md"
    write_page(page, "old")
    page.write_text("intro\n" + page.read_text() + "outro\n")
    write_page(page, block)
    text = page.read_text()
    assert page_block(text) == block and text.startswith("intro\n") and text.endswith("outro\n")


def test_the_committed_page_is_what_its_metrics_file_says():
    page = (ROOT / "docs" / "results" / "upos-errors.md").read_text(encoding="utf8")
    block = page_block(page)
    result = json.loads((ROOT / block.split("into `")[1].split("`")[0]).read_text())
    assert block == markdown(result)
