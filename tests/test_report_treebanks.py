"""The treebanks page and the README's table read what the runs wrote: the
seeds' mean, UDPipe 1 beside, the targets judged against it, the speed of the
same run, the non-projective trees and the published scores with their UD
versions."""
import json
from pathlib import Path

import spacy

from lab.report import treebanks
from lab.treebank_speed import main as speed_main

COLUMNS = treebanks.COLUMNS
SHIPPED = treebanks.shipped_components("best_elstm")  # the config as it is now
FIXTURE = Path(__file__).parent / "fixtures" / "ud_text" / "UD_Uyghur-UDT" / "ug_udt-ud-test.conllu"


def write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(row) + "\n" for row in data))
    else:
        path.write_text(json.dumps(data))


def scores(value: float, **changed):
    return {**{c: value for c in COLUMNS}, **changed}


def metrics_folder(tmp_path: Path) -> Path:
    metrics = tmp_path / "metrics"
    base = metrics / "treebanks" / "UD_Uyghur-UDT"
    for folder, las in ((base, 70.0), (base.with_name("UD_Uyghur-UDT-seed1"), 72.0)):
        write(folder / "best_elstm-test.raw.json", {**scores(90.0, LAS=las, Words=99.2),
                                                    "components_config": SHIPPED})
        write(folder / "best_elstm-test.official.json", {"LAS": las + 5, "f1": {
            "LAS": (las + 5) / 100, "UPOS": 0.9}})
        write(folder / "train-best_elstm.jsonl", [{"step": 0, "seconds": 10, "words": 0, "score": 0.1},
                                                   {"step": 3000, "seconds": 1800, "words": 9, "score": 0.7}])
    write(base / "udpipe1-test.json", {"scores_f1": scores(90.0, LAS=69.5, Words=99.6),
                                       "train_seconds": 1200})
    write(base / "udpipe1-test.gold.json", {"scores_f1": {"LAS": 73.0}})
    write(base / "speed-test.json", {"systems": {"best_elstm": {"words_per_second": 3000.0},
                                                 "udpipe1": {"words_per_second": 2500.0}}})
    write(base / "nonprojective-test.json", {
        "sentences": 900, "nonprojective": 84,
        "systems": {"best_elstm": {"nonprojective_right": 20, "nonprojective_heads_right": 30},
                    "udpipe1": {"nonprojective_right": 10, "nonprojective_heads_right": 15}}})
    write(base / "sentence-ends-test.json", {
        "sentences": 900,
        "systems": {"best_elstm": {".": {"gold": 700, "found": 690, "extra": 5},
                                   "؟": {"gold": 30, "found": 2, "extra": 0}},
                    "udpipe1": {".": {"gold": 700, "found": 699, "extra": 1},
                                "؟": {"gold": 30, "found": 28, "extra": 3},
                                "a word": {"gold": 0, "found": 0, "extra": 4}}}})
    write(base / "sentence-marks-train.json", {"marks": {"؟": {"tokens": 97, "ends": 55}}})
    write(base / "tokenizer-dev.json", {"rows": [
        {"variant": "none", "lexicon": 0, "Tokens": 71.03, "Words": 71.03,
         "Words_precision": 64.59, "Words_recall": 78.9, "seconds": 0.11}]})
    write(base / "multiword-test.json", {"systems": {
        "best_elstm": {"all": {"gold": 300, "right": 270}, "unseen": {"gold": 40, "right": 10}},
        "udpipe1": {"all": {"gold": 300, "right": 240}, "unseen": {"gold": 40, "right": 20}}}})
    write(base / "tokenizer-cores-dev.json", {"rows": [
        {"variant": "chunks only", "special_cases": 1648, "Tokens": 99.67, "Words": 97.48,
         "Words_precision": 97.78, "Words_recall": 97.18},
        {"variant": "learned", "special_cases": 1980, "Tokens": 99.67, "Words": 97.58,
         "Words_precision": 97.84, "Words_recall": 97.32}]})
    write(base / "tokenizer-marks-dev.json", {"rows": [
        {"variant": "without marks", "marks": "none", "Tokens": 99.60, "Words": 97.50,
         "Words_precision": 97.78, "Words_recall": 97.18},
        {"variant": "learned", "marks": "suffix .", "Tokens": 99.67, "Words": 97.58,
         "Words_precision": 97.84, "Words_recall": 97.32}]})
    epoch = {"Sentences": 77.0, "average": {"Sentences": 76.5}}
    write(base / "senter-epochs-dev.json", {
        "characters": [{**epoch, "Sentences": 70.0}, {**epoch, "Sentences": 81.4}, epoch],
        "words": [{**epoch, "Sentences": 79.9, "average": {"Sentences": 79.35}}]})
    write(base / "joined-words-dev.json", {"rows": [
        {"variant": "learned", "chunks": 5748, "Tokens": 97.24, "Words": 97.24,
         "Words_precision": 97.27, "Words_recall": 97.21, "seconds": 0.77}]})
    marks = {"،": {"gold": 100, "found": 30, "extra": 20}, ".": {"gold": 600, "found": 590,
                                                               "extra": 10}}
    write(base / "senter-suffixes-dev.json", {"seed": 0, "rows": [
        {"suffix_chars": 0, "Sentences": 75.04, "ends_by_mark": marks},
        {"suffix_chars": 3, "Sentences": 79.89, "ends_by_mark": marks}]})
    write(base / "senter-ensemble-dev.json", {"rows": [
        {"senters": "a", "Sentences_ud": 79.0}, {"senters": "b", "Sentences_ud": 78.0},
        {"senters": "a + b", "Sentences_ud": 82.0}]})
    write(base / "senter-models-dev.json", {"models": 2, "rows": [
        {"seed": seed, "char_models": c, "word_models": w, "Sentences": 78.0 + seed + c + 2 * w}
        for seed in (0, 1) for w in (1, 2) for c in (1, 2)]})
    write(metrics / "tokenizers" / "senter-models-own-dev.json", {"models": 2, "layouts": "own", "rows": [
        {"seed": 0, "char_models": c, "word_models": w, "Sentences": 87.0}
        for w in (1, 2) for c in (1, 2)]})
    cased = metrics / "lemmatizer" / "UD_Uyghur-UDT"
    write(cased / "best_elstm_trainable-dev.official.json",
          {"f1": {"Lemmas": 0.9, "UPOS": 0.88, "LAS": 0.6}})
    write(cased / "best_elstm_trainable-dev.raw.json", {"Lemmas": 89.0, "LAS": 58.0})
    write(cased / "best_elstm_cased-dev.official.json", {"f1": {"Lemmas": 0.92, "UPOS": 0.885,
                                                                "LAS": 0.605}})
    write(cased / "best_elstm_cased-dev.raw.json", {"Lemmas": 91.0, "LAS": 58.2})
    return metrics


def test_the_seeds_are_averaged_and_udpipe_sits_beside(tmp_path):
    found = treebanks.results(metrics_folder(tmp_path))
    ours, peer = found["UD_Uyghur-UDT"]["best_elstm"], found["UD_Uyghur-UDT"]["udpipe1"]
    assert ours["seeds"] == 2 and ours["scores"]["LAS"] == 71.0 and ours["gold_LAS"] == 76.0
    assert ours["train_seconds"] == 1800 and ours["words_per_second"] == 3000.0
    assert peer["scores"]["LAS"] == 69.5 and peer["gold_LAS"] == 73.0


def test_targets_are_judged_against_udpipe(tmp_path):
    rows = {(r[0], r[1]): r for r in treebanks.target_rows(
        treebanks.results(metrics_folder(tmp_path)))}
    assert rows[("Uyghur-UDT", "LAS")][-2] == "missed by 0.50"  # 71.0 against 69.5 + 2
    assert rows[("Uyghur-UDT", "LAS")][-1] == "76.00 / 73.00"  # on gold words: 75 and 77
    assert rows[("Uyghur-UDT", "Words")][-2:] == ["met", "-"]  # 99.2 against 99.6 - 0.5
    assert rows[("Uyghur-UDT", "UPOS")][-2:] == ["met", "-"]  # UDPipe 1's gold UPOS absent
    assert rows[("Uyghur-UDT", "words/s")][-2:] == ["missed (1.20×)", "-"]
    assert not any(r[0].startswith("the mean") for r in rows.values())  # one treebank: no mean
    two = treebanks.results(metrics_folder(tmp_path))
    two["UD_Wolof-WTB"] = {"best_elstm": {"scores": {"LAS": 80.0}},
                           "udpipe1": {"scores": {"LAS": 73.0}}}
    mean = [r for r in treebanks.target_rows(two) if r[0] == "the mean of 2"]
    assert mean == [["the mean of 2", "LAS", "75.50", "71.25", "≥ 75.25", "met", "-"]]


def test_a_treebank_without_lemmas_is_of_the_config_as_it_is_with_no_lemmas_judged(tmp_path):
    """Maltese-MUDT has no lemmas: train_and_score.py trains the config without
    the components that set them, its scores have none, and the row is of the
    config as it is, Lemmas and BLEX "-" and not judged."""
    metrics = tmp_path / "metrics"
    folder = metrics / "treebanks" / "UD_Maltese-MUDT"
    kept = {name: c for name, c in SHIPPED.items()
            if c["factory"] not in ("elstm_lemmatizer", "elstm_lemma_lookup")}
    assert len(kept) == len(SHIPPED) - 2
    write(folder / "best_elstm-test.raw.json", {
        **scores(80.0, Lemmas=None, BLEX=None), "not_predicted": ["BLEX", "Lemmas"],
        "components_config": kept})
    write(folder / "udpipe1-test.json", {"scores_f1": scores(78.0, Lemmas=100.0)})
    found = treebanks.results(metrics)
    ours = found["UD_Maltese-MUDT"]["best_elstm"]
    assert not ours["earlier_config"] and ours["scores"]["Lemmas"] is None
    judged = {r[1] for r in treebanks.target_rows(found)}
    assert "Lemmas" not in judged and {"LAS", "UPOS", "UFeats"} <= judged
    row = next(line for line in treebanks.page_section(metrics)[0].splitlines()
               if line.startswith("| Maltese-MUDT | `raw/best_elstm`"))
    assert "(an earlier config)" not in row and "| 80.00 | - | 80.00 |" in row
    # without the note that its lemmas were not predicted, a pipeline that lacks the
    # lemmatizer is of an earlier config
    write(folder / "best_elstm-test.raw.json", {**scores(80.0), "components_config": kept})
    assert treebanks.results(metrics)["UD_Maltese-MUDT"]["best_elstm"]["earlier_config"]


def test_the_page_and_the_readme_table(tmp_path):
    metrics = metrics_folder(tmp_path)
    page, _ = treebanks.page_section(metrics)
    assert "| Uyghur-UDT | `raw/best_elstm` (2 seeds) | 90.00 | 90.00 | 99.20 |" in page
    assert "| Uyghur-UDT | 900 | 84 | 20 (30) | - | 10 (15) |" in page
    # sentence ends by mark, with the share of the training split's that end one
    assert "| Uyghur-UDT | `؟` | 30 | 2 (+0) | - | 28 (+3) | 55 of 97 (57%) |" in page
    assert "| Uyghur-UDT | `.` | 700 | 690 (+5) | - | 699 (+1) | - |" in page
    assert "| Uyghur-UDT | a word | 0 | 0 (+0) | - | 0 (+4) |" in page
    assert "| Uyghur-UDT | none | 0 | 71.03 | 71.03 | 64.59 | 78.90 | 0.11 |" in page
    assert "| Uyghur-UDT | all | 300 | 270 (90.00%) | - | 240 (80.00%) |" in page
    assert "| Uyghur-UDT | not in train | 40 | 10 (25.00%) | - | 20 (50.00%) |" in page
    assert "| Uyghur-UDT | learned | 5748 | 97.24 | 97.24 | 97.27 | 97.21 | 0.77 |" in page
    assert "| Uyghur-UDT | learned | 1980 | 99.67 | 97.58 | 97.84 | 97.32 |" in page
    assert "| Uyghur-UDT | learned | suffix . | 99.67 | 97.58 | 97.84 | 97.32 |" in page
    assert "| Uyghur-UDT | without marks | none | 99.60 | 97.50 | 97.78 | 97.18 |" in page
    assert "| Uyghur-UDT | characters | 3 | 77.00 | 76.50 | 70.00-81.40 | 2 |" in page
    assert "| Uyghur-UDT | words | 1 | 79.90 | 79.35 | 79.90-79.90 | 1 |" in page
    assert "| Uyghur-UDT | 0 | none | 75.04 | 620 of 700 | 30 |" in page
    assert "| Uyghur-UDT | 0 | 3 | 79.89 | 620 of 700 | 30 |" in page
    assert "| Uyghur-UDT | 2 | 79.00 / 78.00 | 78.50 | 82.00 |" in page  # senters averaged
    assert ("| treebank | others' layouts | seed | 1 char, 1 word | 2 char, 1 word | 1 char, 2 word "
            "| 2 char, 2 word |") in page
    assert "| Uyghur-UDT | first's | 1 | 82.00 | 83.00 | 84.00 | 85.00 |" in page
    assert "| Uyghur-UDT | first's | mean | 81.50 | 82.50 | 83.50 | 84.50 |" in page
    assert "| English-EWT | own | 0 | 87.00 | 87.00 | 87.00 | 87.00 |" in page
    assert "Stanza 1.5.1 | UD 2.12 |" in page  # published, with its UD version
    assert "| Uyghur-UDT | spaCy's `trainable_lemmatizer` | 90.00 | 88.00 | 60.00 | 89.00 | 58.00 |" in page
    assert "| Uyghur-UDT | `elstm_lemmatizer` | 92.00 | 88.50 | 60.50 | 91.00 | 58.20 |" in page
    # a row scored before scores recorded settings, or set otherwise: marked
    cnn = metrics / "treebanks" / "UD_Uyghur-UDT" / "cnn-test.raw.json"
    write(cnn, scores(80.0))
    assert "| Uyghur-UDT | `raw/cnn` (an earlier config) | 80.00 |" in \
        treebanks.page_section(metrics)[0]
    shipped = treebanks.shipped_components("cnn")
    senter = {**shipped["elstm_senter"], "word_suffix_chars": 0}
    write(cnn, {**scores(80.0), "components_config": {**shipped, "elstm_senter": senter}})
    assert "| Uyghur-UDT | `raw/cnn` (an earlier config) | 80.00 |" in \
        treebanks.page_section(metrics)[0]
    filled = {**shipped, "elstm_senter": {**shipped["elstm_senter"], "word_char_bins": 0}}
    write(cnn, {**scores(80.0), "components_config": filled})  # defaults filled in: the same
    assert "| Uyghur-UDT | `raw/cnn` | 80.00 |" in treebanks.page_section(metrics)[0]
    readme = treebanks.readme_table(metrics)
    assert "| `raw/cnn`" not in readme and "cnn" not in readme.split("\n\n")[0]
    assert ("| Uyghur-UDT (2 seeds) | 99.20 / 99.60 | 90.00 / 90.00 | 90.00 / 90.00 | "
            "71.00 / 69.50 | 3000 / 2500 |") in readme
    assert "one seed where no count is given" in readme
    seed1 = metrics / "treebanks" / "UD_Uyghur-UDT-seed1" / "best_elstm-test.raw.json"
    write(seed1, scores(90.0, LAS=72.0, Words=99.2))  # one seed of an earlier config:
    assert ("| Uyghur-UDT | 99.20 / 99.60 | 90.00 / 90.00 | 90.00 / 90.00 | 70.00 / 69.50 |"
            in treebanks.readme_table(metrics))  # the other counted alone
    for folder in (seed1.parent, seed1.parent.with_name("UD_Uyghur-UDT")):
        write(folder / "best_elstm-test.raw.json", scores(90.0, LAS=72.0, Words=99.2))
    assert "| Uyghur-UDT (2 seeds) (an earlier config) |" in treebanks.readme_table(metrics)
    assert treebanks.readme_table(tmp_path / "nothing") is None


def test_speed_times_each_system_on_the_treebank_s_text(tmp_path):
    spacy.blank("xx").to_disk(tmp_path / "blank")
    output = tmp_path / "speed.json"
    assert speed_main(["--gold", str(FIXTURE), f"blank={tmp_path / 'blank'}", "--rounds", "1",
                       "--output", str(output)]) == 0
    result = json.loads(output.read_text())
    assert result["language"] == "ug" and result["threads"] == 1
    blank = result["systems"]["blank"]
    assert blank["words"] > 0 and blank["words_per_second"] > 0
    assert speed_main(["--gold", str(FIXTURE), f"blank={tmp_path / 'blank'}", "--rounds", "1",
                       "--per-text", "--output", str(output)]) == 0
    systems = json.loads(output.read_text())["systems"]
    assert systems["blank/per-text"]["words"] == systems["blank"]["words"] == blank["words"]


def test_the_tokenizer_s_batches_sit_beside_a_text_at_a_time(tmp_path):
    base = tmp_path / "treebanks" / "UD_Uyghur-UDT"
    write(base / "best_elstm-test.raw.json", scores(90.0))
    write(base / "speed-per-text-test.json", {"systems": {
        "best_elstm": {"words_per_second": 12000.0},
        "best_elstm/per-text": {"words_per_second": 10000.0},
        "udpipe1": {"words_per_second": 8000.0}}})
    assert ("| Uyghur-UDT | `best_elstm` | 10,000 | 12,000 | 1.20x | 8,000 | 1.50x |"
            in treebanks.per_text_table(tmp_path))
    write(base / "speed-test.json", {"systems": {"best_elstm": {"words_per_second": 1.0}}})
    # the targets' words/s are speed-test.json's, whatever the per-text run found
    assert treebanks.results(tmp_path)["UD_Uyghur-UDT"]["best_elstm"]["words_per_second"] == 1.0
    write(base / "speed-per-text-test.json", {"systems": {"best_elstm": {"words_per_second": 1.0}}})
    assert treebanks.per_text_table(tmp_path) is None


def test_a_smaller_pipeline_sits_beside_the_accurate_one_and_udpipe_on_dev(tmp_path):
    assert treebanks.smaller_pipeline_table(tmp_path) is None
    base = tmp_path / treebanks.SMALLER_FOLDER / "UD_Classical_Chinese-Kyoto"
    write(base / "best_elstm-dev.raw.json", scores(60.0, LAS=60.63))
    write(base / "best_elstm-dev.official.json", {"f1": {"LAS": 0.7487}})
    write(base / "elstm_brnn-dev.raw.json", scores(58.0, LAS=58.09))
    write(base / "train-elstm_brnn.time.json", {"seconds": 800})
    write(base / "udpipe1-dev.json", {"scores_f1": scores(57.0, LAS=57.92), "train_seconds": 960})
    write(base / "speed-dev.json", {"systems": {"best_elstm": {"words_per_second": 6000.0},
                                                "elstm_brnn": {"words_per_second": 15000.0},
                                                "udpipe1": {"words_per_second": 10000.0}}})
    found = treebanks.smaller_pipeline_table(tmp_path)
    assert ("| Classical_Chinese-Kyoto | `raw/best_elstm` | 60.00 | 60.00 | 60.00 | 60.63 | 74.87 "
            "| 6,000 | 0.60x | - |") in found
    # no gold-word scores: "-"; its training time from train-<name>.time.json
    assert ("| Classical_Chinese-Kyoto | `raw/elstm_brnn` | 58.00 | 58.00 | 58.00 | 58.09 | - "
            "| 15,000 | 1.50x | 13 min |") in found
    assert ("| Classical_Chinese-Kyoto | UDPipe 1 (here) | 57.00 | 57.00 | 57.00 | 57.92 | - "
            "| 10,000 | 1.00x | 16 min |") in found


def test_the_parser_s_sentences_sit_beside_the_shipped_senter_s(tmp_path):
    assert treebanks.parser_sentences_table(tmp_path) is None
    base = tmp_path / "treebanks" / "UD_Uyghur-UDT"
    write(base / "best_elstm-test.raw.json", scores(90.0))
    write(base / "best_elstm-dev.raw.json", scores(80.0, LAS=60.0))
    write(base / treebanks.PARSER_SENTENCES, {"rows": [
        {"sentences": "senter", "Sentences": 81.0, "UPOS": 89.0, "UAS": 70.0, "LAS": 59.0},
        {"sentences": "parser", "Sentences": 78.0, "UPOS": 89.0, "UAS": 70.0, "LAS": 58.5},
        {"sentences": "0.2:0.8", "Sentences": 83.0, "UPOS": 89.0, "UAS": 70.0, "LAS": 59.5}]})
    found = treebanks.parser_sentences_table(tmp_path)
    assert "| Uyghur-UDT | on sentences | the senter | 80.00 | 80.00 | 80.00 | 60.00 |" in found
    assert "| Uyghur-UDT | on documents | the parser | 78.00 | 89.00 | 70.00 | 58.50 |" in found
    assert ("| Uyghur-UDT | on documents | the senter outside 0.2:0.8, the parser inside | 83.00 "
            "| 89.00 | 70.00 | 59.50 |") in found


def test_ewt_with_the_config_as_it_is_now_sits_beside_the_readme_s_runs(tmp_path):
    def run(folder, config, las, gold_las):
        write(tmp_path / folder / f"{config}-test.raw.json",
              {"Tokens": 98.95, "Words": 98.72, "Sentences": 88.0, "UPOS": 94.5,
               "Lemmas": 95.3, "LAS": las})
        write(tmp_path / folder / f"{config}-test.official.json", {"f1": {"LAS": gold_las}})
    assert treebanks.ewt_now_table(tmp_path) is None
    run("raw-text-variants-10000steps", "best_elstm_text_variants", 83.0, 0.86)
    run("raw-text-variants-10000steps-seed1", "best_elstm_text_variants", 83.4, 0.86)
    assert treebanks.ewt_now_table(tmp_path) is None  # nothing trained as it is now
    run("raw-endings-10000steps", "best_elstm", 83.3, 0.862)
    assert treebanks.ewt_now_table(tmp_path) is None  # an earlier step alone
    run("raw-senter-models-10000steps", "best_elstm", 83.4, 0.862)
    found = treebanks.ewt_now_table(tmp_path)
    assert ("| `raw-senter-models-10000steps/best_elstm` seed 0 (now) | 1 | 98.95 | 98.72 | "
            "88.00 | 94.50 | 95.30 | 83.40 | 86.20 |") in found
    assert ("| `raw-endings-10000steps/best_elstm` seed 0 (one model of each in the senter) "
            "| 1 | 98.95 | 98.72 | 88.00 | 94.50 | 95.30 | 83.30 | 86.20 |") in found
    assert "| `raw-text-variants-10000steps/best_elstm_text_variants` seed 0 (before) | 1 |" in found
    assert "the README's raw row | 2 | 98.95 | 98.72 | 88.00 | 94.50 | 95.30 | 83.20 | 86.00 |" \
        in found


def test_a_treebank_studied_again_without_its_dev_sits_beside_its_own_seed_0(tmp_path):
    metrics = metrics_folder(tmp_path)
    assert treebanks.held_out_dev_table(metrics) is None  # no such study yet
    held_out = metrics / treebanks.HELD_OUT_FOLDER / "UD_Uyghur-UDT-nodev"
    write(held_out / "best_elstm-test.raw.json", {**scores(88.0, LAS=66.0),
                                                  "components_config": SHIPPED})
    write(held_out / "udpipe1-test.json", {"scores_f1": scores(87.0, LAS=64.5)})
    rows = treebanks.held_out_dev_table(metrics).splitlines()[2:]
    assert [row.split(" | ")[1:3] for row in rows] == [
        ["its own", "`raw/best_elstm` (seed 0)"], ["its own", "UDPipe 1 (here)"],
        ["held out from train", "`raw/best_elstm` (seed 0)"],
        ["held out from train", "UDPipe 1 (here)"]]
    assert "| 70.00 |" in rows[0] and "| 72.00 |" not in rows[0]  # seed 0 alone, not the mean
    assert "| 66.00 |" in rows[2] and "| 64.50 |" in rows[3]
    assert list(treebanks.results(metrics)) == ["UD_Uyghur-UDT"]  # not a row of the treebanks
