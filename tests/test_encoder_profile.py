"""lab.encoder_profile: the encoder timed at a pipeline's shapes, five ways."""
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "assets" / "ud-ewt-sample" / "dev.conllu"


@pytest.mark.parametrize("train", [False, True])
def test_every_way_is_timed_on_the_files_words(tmp_path, train):
    from lab.encoder_profile import main

    out = tmp_path / "profile.json"
    args = [str(ROOT / "configs" / "shared_elstm.cfg"), "--data", str(SAMPLE), "--rounds", "1",
            "--output", str(out)] + (["--train"] if train else [])
    assert main(args) == 0
    data = json.loads(out.read_text())
    words = sum(1 for line in SAMPLE.read_text().splitlines()
                if line and not line.startswith("#") and line.split("\t")[0].isdigit())
    assert data["words"] == words
    expected = {"torch module", "recurrence", "torch.nn.LSTM", "torch.nn.LSTM, packing included"}
    assert set(data["seconds"]) == (expected if train else expected | {"thinc layer"})
    assert all(s > 0 for s in data["seconds"].values())
    assert data["encoder"]["depth"] >= 1 and data["mode"] == ("train" if train else "predict")


def test_rounds_below_one_are_refused(capsys):
    from lab.encoder_profile import main

    with pytest.raises(SystemExit):
        main([str(ROOT / "configs" / "shared_elstm.cfg"), "--rounds", "0"])
    assert "--rounds must be >= 1, got 0" in capsys.readouterr().err
