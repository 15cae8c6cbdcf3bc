"""lab/published_scores.json: the published scores the report quotes beside ours."""
import json
import os
from pathlib import Path

import pytest

from lab.published import DEFAULT, published_scores

ROOT = Path(__file__).resolve().parent.parent
# The shared treebanks' README, beside the checkout; its table quotes Stanza's page
UD_README = Path(os.environ.get("UD_TREEBANKS_README")
                 or ROOT.parent / "shared" / "data" / "ud" / "README.md")
TREEBANKS = ["UD_Vietnamese-VTB", "UD_Uyghur-UDT", "UD_Coptic-Scriptorium",
             "UD_Classical_Chinese-Kyoto", "UD_Turkish-IMST", "UD_Greek-GDT", "UD_Wolof-WTB"]


def entries():
    data = json.loads(DEFAULT.read_text(encoding="utf-8"))
    return [(treebank, entry) for treebank, rows in data["treebanks"].items() for entry in rows]


def test_the_file_loads_and_covers_the_seven_treebanks():
    data = published_scores()
    assert sorted(data["treebanks"]) == sorted(TREEBANKS)
    for treebank in TREEBANKS:
        systems = [entry["system"] for entry in data["treebanks"][treebank]]
        assert systems == ["Stanza", "UDPipe 1", "UDPipe 2"], treebank


def test_every_entry_says_what_it_is_and_where_it_comes_from():
    for treebank, entry in entries():
        for key in ("system", "version", "ud_version", "source", "scores"):
            assert key in entry, (treebank, entry.get("system"), key)
        source = entry["source"]
        assert "url" in source or {"repository", "path", "commit"} <= set(source), treebank


def test_every_score_is_a_number_from_0_to_100():
    for treebank, entry in entries():
        assert entry["scores"], (treebank, entry["system"])
        for metric, value in entry["scores"].items():
            assert isinstance(value, (int, float)), (treebank, metric)
            assert not isinstance(value, bool), (treebank, metric)
            assert 0 <= value <= 100, (treebank, entry["system"], metric, value)


def markdown_table(text: str, first_header: str, needed: str):
    """The rows of the first Markdown table whose header starts with `first_header` and
    has a column `needed`: one dict per row, header -> cell."""
    header, rows = None, []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            if header:
                break
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if header is None:
            if cells[0] == first_header and needed in cells:
                header = cells
        elif not set(cells[0]) <= set("-: "):
            rows.append(dict(zip(header, cells)))
    return rows


@pytest.mark.skipif(not UD_README.exists(), reason=f"no {UD_README.name} of the shared treebanks")
def test_stanza_rows_equal_the_table_in_the_treebanks_readme():
    rows = markdown_table(UD_README.read_text(encoding="utf-8"), "treebank", "LAS")
    assert len(rows) == 7
    data = published_scores()
    for row in rows:
        rows_of_treebank = data["treebanks"]["UD_" + row["treebank"]]
        [stanza] = [e for e in rows_of_treebank if e["system"] == "Stanza"]
        quoted = {metric: float(cell) for metric, cell in row.items() if metric != "treebank"}
        assert {m: stanza["scores"][m] for m in quoted} == quoted, row["treebank"]
        assert (stanza["version"], stanza["ud_version"]) == ("1.5.1", "2.12")


def test_markdown_table_reads_the_table_with_the_column():
    text = ("| treebank | commit |\n|---|---|\n| A | x |\n\n"
            "| treebank | LAS |\n|---|---|\n| A | 1.5 |\n| B | 2 |\nafter\n")
    assert markdown_table(text, "treebank", "LAS") == [{"treebank": "A", "LAS": "1.5"},
                                                       {"treebank": "B", "LAS": "2"}]


@pytest.mark.parametrize("change, message", [
    (lambda e: e.pop("ud_version"), "treebanks.UD_X[0]: missing ud_version"),
    (lambda e: e["scores"].update(LAS=101.0), "treebanks.UD_X[0].scores.LAS: expected a number"),
    (lambda e: e["scores"].update(LAS="80"), "treebanks.UD_X[0].scores.LAS: expected a number"),
    (lambda e: e["scores"].update(Lemma=80.0), "treebanks.UD_X[0].scores.Lemma: unknown metric"),
    (lambda e: e.update(source={"path": "p"}), "treebanks.UD_X[0].source: expected"),
])
def test_a_malformed_entry_is_named_with_its_file(tmp_path, change, message):
    entry = {"system": "S", "version": "1", "ud_version": "2.12", "setting": "raw text",
             "source": {"url": "https://example.org"}, "scores": {"LAS": 80.0}}
    change(entry)
    path = tmp_path / "scores.json"
    path.write_text(json.dumps({"notes": [], "treebanks": {"UD_X": [entry]}}))
    with pytest.raises(ValueError) as error:
        published_scores(path)
    assert str(path) in str(error.value) and message in str(error.value)
