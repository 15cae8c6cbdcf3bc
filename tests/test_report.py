"""The report tabulates exactly what the metrics files say."""
import json

import pytest

from spacy_elstm.tools.report import END, START, render, update_readme


def test_report_from_metrics_files(tmp_path):
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    (metrics / "elstm_brnn-dev.json").write_text(json.dumps(
        {"tag_acc": 0.91234, "pos_acc": 0.9, "morph_acc": 0.8, "dep_uas": 0.75, "dep_las": 0.7}))
    (metrics / "train-elstm_brnn.jsonl").write_text("\n".join(json.dumps(r) for r in [
        {"epoch": 0, "step": 200, "words": 4000, "seconds": 60, "score": 0.5},
        {"epoch": 1, "step": 400, "words": 8000, "seconds": 180, "score": 0.6},
    ]))
    section = render(metrics, tmp_path / "docs", "docs/")
    row = next(line for line in section.splitlines() if line.startswith("| elstm_brnn"))
    assert row == "| elstm_brnn | dev | 91.23 | 90.00 | 80.00 | 75.00 | 70.00 | 400 | 8,000 | 3.0 | 400 |"
    assert (tmp_path / "docs" / "training-metrics.png").stat().st_size > 0
    assert "_No layer benchmark yet._" in section

    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{START}\nSTALE ROWS\n{END}\nafter\n")
    update_readme(readme, section)
    text = readme.read_text()
    assert "STALE ROWS" not in text and row in text and text.startswith("intro") and text.endswith("after\n")


def test_readme_without_markers_is_refused(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("no markers")
    with pytest.raises(ValueError, match="no results markers"):
        update_readme(readme, "x")
