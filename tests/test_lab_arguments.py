"""The command line the lab's pipeline scripts share (lab/arguments.py)."""
from pathlib import Path

import pytest

from lab.arguments import pipelines_parser
from lab import senter_models, senter_thresholds, token_errors


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
                                           (token_errors, "--text-form"),
                                           (senter_models, "--models")])
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


def test_senters_averaged_as_one_split_as_each_does_when_they_agree():
    """lab.senter_ensemble: the mean of a senter with itself sets the starts the
    senter sets, on text with punctuation and without (its second models); the
    mean of two word models' probabilities is their mean, word by word."""
    import numpy
    from lab.senter_ensemble import MeanWords, mean_senter
    from test_senter import TEXTS, starts, tiny_senter

    nlp = tiny_senter()
    senter = nlp.get_pipe("elstm_senter")
    mean = mean_senter([senter, senter])
    assert mean.reads_words() and mean.reads_unpunctuated()
    for text in TEXTS:
        assert starts(mean(nlp.make_doc(text))) == starts(senter(nlp.make_doc(text)))

    class Fixed:
        model = object()

        def __init__(self, value):
            self.value = value

        def reads_chars(self):
            return False

        def end_probabilities(self, docs, char_ends=None, texts=None):
            return [numpy.full(len(doc), self.value, dtype="float32") for doc in docs]

    docs = [nlp.make_doc(t) for t in TEXTS]
    found = MeanWords([Fixed(0.2), Fixed(0.6)]).end_probabilities(docs, None, TEXTS)
    assert [f.tolist() for f in found] == [[numpy.float32(0.4)] * len(d) for d in docs]
