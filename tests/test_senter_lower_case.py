"""lab.senter_lower_case: the package's share is the shipped pipeline; another
share trains a senter with the pair's training text at that share, and the
package's share is back afterwards."""
from pathlib import Path

import pytest

from lab import senter_lower_case
from spacy_elstm.text import training_text


class FakeScript:
    def __init__(self):
        self.calls = []

    def main(self, argv):
        self.calls.append((list(argv), training_text.LOWER_CASE,
                           training_text.UNPUNCTUATED_LOWER_CASE))
        Path(argv[3] if argv[0] == "--into" else argv[1]).mkdir(parents=True)


def test_the_package_share_scores_the_shipped_pipeline(tmp_path):
    share = training_text.UNPUNCTUATED_LOWER_CASE
    path = senter_lower_case.pipeline_of("unpunctuated", share, 1, "p{seed}/model", tmp_path)
    assert path == Path("p-seed1/model")


@pytest.mark.parametrize("pair,index", [("first", 1), ("unpunctuated", 2)])
def test_another_share_trains_with_it_and_puts_the_package_s_back(tmp_path, monkeypatch,
                                                                   pair, index):
    script = FakeScript()
    monkeypatch.setattr(senter_lower_case, "train_senter_script", lambda: script)
    before = (training_text.LOWER_CASE, training_text.UNPUNCTUATED_LOWER_CASE)
    path = senter_lower_case.pipeline_of(pair, 0.5, 0, "p{seed}/model", tmp_path)
    assert path == tmp_path / f"pipeline-{pair}-lower0.5-seed0"
    (train, *shares_in_training), (into, *_) = script.calls
    assert train[1] == str(tmp_path / f"senter-{pair}-lower0.5-seed0")
    assert shares_in_training[index - 1] == 0.5
    assert shares_in_training[2 - index] == before[2 - index]  # the other pair's as it was
    assert into[:2] == ["--into", "p/model"]
    assert (training_text.LOWER_CASE, training_text.UNPUNCTUATED_LOWER_CASE) == before
