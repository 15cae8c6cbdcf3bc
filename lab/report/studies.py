"""Which results page each metrics folder goes to, and how it is read: the one
place that knows this repository's metrics folder names.

A folder ``<name>-seed<N>`` (N ≥ 1) is seed N of the study ``<name>``, whose
own folder is seed 0; a study's seeds share a page, and a table of their mean
± sd. The first study whose pattern matches the folder's name (without the
seed) takes it; the patterns' named groups fill the study's note."""
import re
from pathlib import Path
from typing import Dict, List, NamedTuple, Tuple


class Study(NamedTuple):
    pattern: str  # matches the whole folder name, seed suffix left off
    page: str  # docs/results/<page>.md
    kind: str  # which tables: "ud", "ptb", "lm", "paper", or "page": the page's module renders
    # it whole from metrics/ (PAGE_SECTIONS in pages.py), its folders skipped here
    title: str  # the page's heading over the folders of this study, in this table's order
    note: str = ""  # what sets the folder's runs apart; str.format'ed with the pattern's groups
    seed_note: str = ""  # added for seed N ≥ 1, str.format'ed with seed=N


SAMPLE_NOTE = (
    "NLTK's sample is 10% of the WSJ (3,914 sentences, files wsj_0001-wsj_0199, all "
    "from sections 00-01), split by file so that whole articles stay together: files "
    "1-159 train, 160-179 dev, 180-199 test. These numbers are **not comparable** to "
    "results on the full WSJ (POS on sections 22-24, parsing on section 23): the "
    "training set is a tenth of the usual one, and the test files are a few hundred "
    "sentences from other sections. POS = accuracy of the PTB tags; UAS/LAS as spaCy scores them "
    "(punctuation excluded); gold tokenisation and sentences.")
PAPER_SEED = ("Trained with seed {seed} (`SEED={seed} bash scripts/paper_tables.sh`), "
              "where the configs' seed is 0.")
SAME_SAMPLE = ("The same sample, split and scores as in `ptb-sample` (not comparable to "
               "full-WSJ results).")
DEV_SEARCH = ("A dev-only search (`python scripts/dev_search.py --treebank ptb-sample`, which "
              "lists each setting): "
              "the models are scored on the dev files, never on the test files.")

STUDIES = [
    Study(r"converged-.+", "ud", "ud", "Converged comparisons (the README's headline)",
          "`best_elstm` is `configs/best_elstm.cfg` as it is now, its hashed word features 128 "
          "wide (issue 43); `best_elstm_wide_words` is the same with them 256 wide "
          "(`configs/experiments/speed/best_elstm_wide_words.cfg`), the runs named `best_elstm` "
          "before issue 43 (renamed), on whose pipeline the biaffine parser and the UPOS tagger "
          "experiments were built."),
    Study(r"raw-documents-.+", "ud", "ud", "Raw text in, trained on documents",
          "The `*_documents` configs of `configs/experiments/raw/`: those of `configs/raw/` "
          "(`best_elstm`'s word features 256 wide, as before issue 43) trained on "
          "documents of ten sentences (`gold_preproc = false`), the tokenizer and `elstm_senter` "
          "learning from those documents (`python scripts/train_and_score.py "
          "NAME=configs/experiments/raw/NAME.cfg --metrics metrics/raw-documents-Nsteps "
          "--steps N --raw`), scored on gold tokens and sentences and on raw text. "
          "`NAME_nosenter`: the same trained pipeline loaded without its `elstm_senter` (the "
          "parser splitting sentences). These runs trained without the senter in the pipeline; "
          "a senter trained apart on EWT train (`scripts/train_senter.py`, 12 epochs, the "
          "config's settings) was added before scoring (it trains apart from the other "
          "components in either case)."),
    Study(r"raw-lower-.+", "ud", "ud", "Raw text in, a tenth of the training sentences in lower case",
          "`configs/raw/best_elstm.cfg` trained with a tenth of the tagger's, morphologizer's, "
          "lemmatizer's and parser's training sentences lower-cased (`python "
          "scripts/train_and_score.py best_elstm_lower=configs/raw/best_elstm.cfg --raw --steps "
          "10000 --metrics metrics/raw-lower-10000steps --models training/raw-lower-10000steps "
          "--splits dev -- --corpora.train.augmenter.lower_level 0.1`; `elstm_senter` as "
          "`configs/raw/` train it, with its second pair), scored on dev only: on text in lower "
          "case and as written, beside `raw-ud-10000steps/best_elstm` in \"Raw text as users "
          "have it\" above."),
    Study(r"raw-text-variants-.+", "ud", "ud",
          "Raw text in, the tagger and parser also trained on lower case and on text without "
          "punctuation (the README's headline for raw/best_elstm and raw/cnn)",
          "`best_elstm_text_variants`: `configs/raw/best_elstm.cfg` as it is, whose "
          "tagger, morphologizer, lemmatizer and parser train on a tenth of their sentences "
          "lower-cased and a tenth without their punctuation "
          "(`spacy-elstm.text_variants_augmenter.v1`; before it, "
          "`configs/experiments/raw/best_elstm_as_written.cfg`, the runs of `raw-ud-10000steps`): "
          "`python scripts/train_and_score.py best_elstm_text_variants=configs/raw/best_elstm.cfg "
          "--raw --steps 10000 --metrics metrics/raw-text-variants-10000steps --models "
          "training/raw-text-variants-10000steps [--seed N]`, then `bash scripts/score_raw.sh "
          "PIPELINE METRICS best_elstm_text_variants`; seeds 0 and 1 trained from "
          "`configs/experiments/raw/best_elstm_text_variants.cfg` (the same config to its "
          "header comment) with `--splits dev` and were scored on test once the config was "
          "chosen (`--no-train --splits test`). `cnn_text_variants`: `configs/raw/cnn.cfg` as it "
          "is, trained the same way (before it, `configs/experiments/raw/cnn_as_written.cfg`), "
          "chosen on dev with three runs of `configs/experiments/raw/cnn_text_variants.cfg` (the "
          "same config to its header comment, `--splits dev`); their models were gone when "
          "test was to be read, so each seed was trained again (`python "
          "scripts/train_and_score.py cnn_text_variants=configs/raw/cnn.cfg --raw --steps 10000 "
          "--seed N ... --splits dev test`, then `score_raw.sh`) and its dev and test scores "
          "here are the new run's. A rerun was not the first run to the digit (two of the "
          "three senters were; the taggers and parsers came out up to a few tenths of dev LAS "
          "apart, as far as the seeds are from each other), while the same config and seed "
          "train the same pipeline bit for bit on one machine "
          "(`tests/test_training_repeats.py`): the machine or its libraries made the "
          "difference. Beside "
          "`raw-ud-10000steps/NAME` in \"Raw text as users have it\" above."),
    Study(r"raw-endings-.+", "ud", "ud",
          "Raw text in: raw/best_elstm as it is now (issue 72's lemmatizer, word endings "
          "and threshold)",
          "`configs/raw/best_elstm.cfg` as it is now: `elstm_lemmatizer` in place of "
          "spaCy's `trainable_lemmatizer`, the senter's word-level model reading word "
          "endings (`word_suffix_chars = 3`), no dev-chosen threshold, and the tokenizer's "
          "special cases of chunks' cores (`python scripts/train_and_score.py "
          "best_elstm=configs/raw/best_elstm.cfg --raw --steps 10000 --metrics "
          "metrics/raw-endings-10000steps --models training/raw-endings-10000steps "
          "[--seed N]`); beside the runs of the README's raw row, trained before these, in "
          "[treebanks.md](treebanks.md#english-ewt-with-the-raw-config-as-it-is-now)."),
    Study(r"raw-ud-.+", "ud", "ud",
          "Raw text in UD's text form: the pipelines of configs/raw/ before their text "
          "variants",
          "The configs of `configs/raw/` trained as the study below (`python "
          "scripts/train_and_score.py configs/raw/NAME.cfg --metrics metrics/raw-ud-Nsteps "
          "--steps N --raw`) and scored on raw text in UD's text form (`raw`) and with each "
          "paragraph on one line (`raw-joined`). `best_elstm`: `raw/best_elstm` as it was "
          "before its tagger and parser learned lower case and text without punctuation "
          "(`configs/experiments/raw/best_elstm_as_written.cfg`; the runs of "
          "`raw-text-variants-10000steps` are it as it is) "
          "(the tokenizer keeping runs of mixed punctuation, a one-layer word-level model in "
          "the senter, the senter trained with the pipeline's seed), over seeds; seeds 1 and "
          "2 trained while the tokenizer and the senter were changing, so their tokenizer "
          "and senter were learned again as the config learns them before they were scored "
          "(`python scripts/learn_tokenizer.py`, `python scripts/train_senter.py "
          "corpus/UD_English-EWT/en_ewt-ud-train.spacy training/senter-seedN --seed N`, then `--into ... "
          "--replace`): both learn from EWT train apart from the other components, so only "
          "they differ. `cnn`: `raw/cnn` before its text variants "
          "(`configs/experiments/raw/cnn_as_written.cfg`), as it was at seed 0 (its senter "
          "trained within `spacy train`, the same as `best_elstm_words`' to the digit). "
          "`cnn_no_augmenter`: `raw/cnn` as it was "
          "before the whitespace augmentation, its `elstm_senter` the characters alone. "
          "`best_elstm_chars` (seed 0; trained as `best_elstm`, in "
          "`training/raw-ud-10000steps/best_elstm`): `raw/best_elstm` as it was before the "
          "word-level sentence model, its `elstm_senter` the characters alone. "
          "`best_elstm_words`: that same trained "
          "pipeline with its `elstm_senter` trained again as `configs/raw/best_elstm.cfg` "
          "now trains it, with the word-level model (`python scripts/train_senter.py "
          "corpus/UD_English-EWT/en_ewt-ud-train.spacy training/senter-words`, then `--into ... "
          "--replace`): the senter trains apart from the other components, on EWT train, "
          "with the config's settings and seed, so only it differs."),
    Study(r"raw-.+", "ud", "ud", "Raw text in: the pipelines of configs/raw/ (the README's headline "
          "before UD's text form)",
          "The configs of `configs/raw/`: the tagger, morphologizer and parser trained on one "
          "gold sentence per Doc, the tokenizer and `elstm_senter` learned from EWT train's "
          "documents, a lemmatizer (`python scripts/train_and_score.py "
          "NAME=configs/raw/NAME.cfg --metrics metrics/raw-Nsteps --steps N --raw`), scored on "
          "gold tokens and sentences and on raw text. `best_elstm_wide_words` "
          "(`configs/experiments/raw/best_elstm_wide_words.cfg`): `raw/best_elstm` as it was "
          "before issue 43, its hashed word features 256 wide (renamed from `best_elstm`)."),
    Study(r"budget-.+", "ud", "ud", "Equal budget: 2,000 steps"),
    Study(r"final-.+", "ud", "ud", "The first search's picks at 2,000 steps"),
    Study(r"search-.+", "ud", "ud", "Dev-only searches"),
    Study(r"biaffine-.+", "ud", "ud", "The biaffine parser's training, searched on dev",
          "A dev-only search (`python scripts/dev_search.py NAME --steps N --out "
          "metrics/biaffine-Nsteps`; the script lists each setting's config, "
          "`configs/biaffine/shared_elstm.cfg` for the first ones, and its overrides): "
          "the test split is not read."),
    Study(r"parsers-.+", "ud", "ud", "Parsers on one pipeline"),
    Study(r"(macro|tuned)-.+", "ud", "ud", "Tagger macro-models"),
    Study(r"pretrain-.+", "ud", "ud", "Pretraining"),
    Study(r"ud-.+", "ud", "ud", "First comparisons (the configs of release 0.1)"),
    Study(r"ptb-sample", "ptb", "ptb", "NLTK's sample", SAMPLE_NOTE),
    Study(r"ptb-sample-.*search", "ptb", "ptb", "Dev-only search on the sample",
          f"{SAME_SAMPLE}\n\n{DEV_SEARCH}"),
    Study(r"ptb-sample-.+", "ptb", "ptb", "Settings picked on the sample's dev files",
          SAME_SAMPLE),
    Study(r"ptb.*", "ptb", "ptb", "The full WSJ"),
    Study(r"lm", "lm", "lm", "Language models"),
    Study(r"paper", "paper", "paper", "The configs as they are", seed_note=PAPER_SEED),
    Study(r"paper-summed", "paper", "paper", "Loss added up over each batch",
          "Trained with the loss summed over each batch's tokens (`NORMALIZE=false bash "
          "scripts/paper_tables.sh`), where the configs average it.", PAPER_SEED),
    Study(r"paper-own(?P<share>[01](?:\.[0-9]+)?)", "paper", "paper", "Scheduled sampling",
          "Trained with scheduled sampling: `own_predictions = {share}`, a random share of "
          "{share} of the decoder's training steps fed its own previous prediction instead "
          "of the gold label (`OWN={share} bash scripts/paper_tables.sh`); the configs feed "
          "gold at every step.", PAPER_SEED),
    Study(r"paper-clip(?P<norm>[0-9]*[1-9][0-9]*(?:\.[0-9]+)?|0?\.[0-9]*[1-9][0-9]*)", "paper",
          "paper", "Gradient clipping",
          "Trained with each parameter's gradient clipped to L2 norm {norm} before AdaGrad's "
          "update (`CLIP={norm} bash scripts/paper_tables.sh`); the configs clip nothing, as "
          "the paper names no clipping.", PAPER_SEED),
    # pages or sections of their own, each rendered whole by its module (lab/report/memory.py,
    # dyck.py, input_gates.py; gpu.py on the speed page)
    Study(r"memory", "memory", "page", "The memory experiments"),
    Study(r"dyck", "dyck", "page", "Bounded Dyck-2"),
    Study(r"input-gates(?:-[0-9]+epochs)?", "input-gates", "page", "The input-gate study"),
    Study(r"gpu-check", "speed", "page", "GPU check"),
    Study(r"treebanks", "treebanks", "page", "UD treebanks of other languages and scripts"),
    # UD English-EWT: every other folder, and metrics/ itself
    Study(r".*", "ud", "ud", "Other runs"),
]
PAGES = ["ud", "paper", "ptb", "lm", "speed", "memory", "dyck", "input-gates", "treebanks"]

_SEED = re.compile(r"^(?P<base>.+?)-seed(?P<seed>[1-9][0-9]*)$")


def split_seed(name: str) -> Tuple[str, int]:
    """(study, seed) of a folder name: ``x-seed2`` is seed 2 of ``x``, ``x`` seed 0."""
    match = _SEED.match(name)
    return (match["base"], int(match["seed"])) if match else (name, 0)


def study_of(name: str) -> Tuple[Study, str]:
    """The study a folder belongs to and its note (empty if none)."""
    base, seed = split_seed(name)
    for study in STUDIES:
        match = re.fullmatch(study.pattern, base)
        if match:
            notes = [study.note.format(**match.groupdict()) if study.note else "",
                     study.seed_note.format(seed=seed) if seed and study.seed_note else ""]
            return study, " ".join(n for n in notes if n)
    raise AssertionError("the last study matches every name")


def seed_groups(metrics: Path) -> Dict[str, List[Path]]:
    """Every folder of `metrics`, by study: ``{name: [name, name-seed1, ...]}``."""
    groups: Dict[str, List[Path]] = {}
    for folder in sorted(p for p in metrics.iterdir() if p.is_dir()):
        groups.setdefault(split_seed(folder.name)[0], []).append(folder)
    return groups


def seeds_of(metrics: Path, study: str) -> List[Path]:
    """The folders of one study, seed 0 first; the folder alone if it has no seeds."""
    return seed_groups(metrics).get(study, [metrics / study])

