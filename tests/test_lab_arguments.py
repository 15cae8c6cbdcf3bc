"""The command line the lab's pipeline scripts share (lab/arguments.py)."""
from pathlib import Path

import pytest

from lab.arguments import pipelines_parser
from lab import senter_thresholds, token_errors


def test_defaults_and_options():
    args = pipelines_parser("What it measures.\n\nMore.", "metrics/x.json",
                            text_form=True).parse_args(["a", "b"])
    assert args.pipelines == [Path("a"), Path("b")]
    assert (args.split, args.text_form, args.output) == ("dev", "ud", Path("metrics/x.json"))
    assert not hasattr(pipelines_parser("d", "o").parse_args(["a"]), "text_form")


def test_labelled_pipelines_stay_strings():
    args = pipelines_parser("d", "o", labelled=True).parse_args(["routed=training/x"])
    assert args.pipelines == ["routed=training/x"]


@pytest.mark.parametrize("module,option", [(senter_thresholds, "--thresholds"),
                                           (token_errors, "--text-form")])
def test_scripts_keep_their_options(module, option, capsys):
    with pytest.raises(SystemExit):
        module.main(["--help"])
    out = capsys.readouterr().out
    assert option in out and "--split" in out and "--output" in out


def test_senter_epochs_measures_once_per_epoch_and_keeps_the_last_weights():
    from lab.senter_epochs import every_epoch
    curve, measured = [], iter([70.0, 75.0, 72.0])
    score = every_epoch(3, lambda: {"Sentences": next(measured)}, curve)
    returned = [score() for _ in range(9)]
    assert returned == sorted(returned) and len(set(returned)) == 9  # rising: the last is kept
    assert curve == [{"epoch": 1, "Sentences": 70.0}, {"epoch": 2, "Sentences": 75.0},
                     {"epoch": 3, "Sentences": 72.0}]
