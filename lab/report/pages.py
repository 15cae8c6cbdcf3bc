"""The results pages and the README's headline, rendered from `metrics/` and
written into their files. Every number shown comes from the metrics files."""
from pathlib import Path
from typing import Any, Dict, List, Optional

from . import (bench, dyck, gpu, input_gates, lm, memory, paper, ptb, senter_levers,
               sentence_reading, text_variants, treebanks, ud)
from .common import (ReportError, forget_warnings, generated_block, have_matplotlib, line_plot,
                     markers, replace_block, warn)
from .headline import headline
from .quickstart import quickstart
from .studies import PAGES, STUDIES, seed_groups, study_of
from .targets import targets_section

README_BLOCK = "headline"
QUICKSTART_BLOCK = "quickstart"
TREEBANKS_BLOCK = "treebanks"
PAGE_BLOCK = "results"
TITLES = {"ud": "Results: UD English-EWT", "paper": "Results: the paper's settings",
          "ptb": "Results: the Penn Treebank", "lm": "Results: language modelling",
          "speed": "Results: speed", "memory": "Results: memory", dyck.PAGE: dyck.TITLE,
          input_gates.PAGE: input_gates.TITLE, treebanks.PAGE: treebanks.TITLE}
# the pages their modules render whole from metrics/ (their studies' kind is "page")
PAGE_SECTIONS = {"memory": memory.page_section, dyck.PAGE: dyck.page_section,
                 input_gates.PAGE: input_gates.page_section,
                 treebanks.PAGE: treebanks.page_section}
TARGETS_NOTE = (
    "Each row reads the official test scores of the runs it names (the mean over the seeds "
    "run, in `metrics/<folder>[-seedN]/`). A row that says *picked on dev* judges, of the "
    "runs it lists in `lab/report/targets.py`, the one with the best official dev score, "
    "so the test split never picks the run it judges.")

# the UD page's sections on raw text, in order: (heading, section of metrics/, None where
# its study has not run)
RAW_TEXT_SECTIONS = (
    ("Tokenizers on raw text", ud.tokenizers_section),
    ("A peer on the same raw text: UDPipe 1", ud.peer_section),
    ("Sentences in text none of them was tuned for: the WSJ sample",
     senter_levers.wsj_section),
    ("A paragraph read whole or sentence by sentence",
     sentence_reading.sentence_tok2vec_section),
    ("One Doc per paragraph or per document", sentence_reading.text_units_section),
    ("Raw text as users have it: CRLF, lower case, no punctuation",
     text_variants.text_variants_section),
    ("raw/best_elstm and raw/cnn trained on lower case and on text without punctuation: "
     "before and after",
     text_variants.adopted_section),
    ("Text without punctuation: the senter's second pair of models",
     text_variants.senter_unpunctuated_section),
    ("Which Docs the senter reads as text without punctuation",
     text_variants.routing_section),
    ("Lower-case text: how much of it the senter learns from",
     text_variants.senter_lower_case_section),
    ("Sentences from the characters: what they learn from", ud.training_text_section),
    ("Sentences from the words beside the characters", ud.senter_words_section),
    ("The senter's weights, averaged", ud.senter_average_section),
    ("The senter trained longer", ud.senter_epochs_section),
    ("The senter's epochs chosen on held-out text, its layouts anew",
     ud.senter_selection_section),
    ("The senter's depths: what they find and what they cost", ud.senter_depths_section),
    ("The senter taught by senters, its word model reading the characters",
     senter_levers.levers_section),
    ("Hard-wrapped lines read as running text", senter_levers.wrapping_section),
    ("The characters read only where the words are unsure", senter_levers.sure_words_section),
    ("Where a sentence ends: the senter's threshold", senter_levers.thresholds_section),
    ("Where the senter still goes wrong", senter_levers.errors_section),
    ("Sentence ends from the pipeline's own tok2vec", senter_levers.tok2vec_probe_section),
    ("Where the tokenizer still goes wrong", senter_levers.token_errors_section),
    ("Tokens from the rules or from the characters, chunk by chunk",
     senter_levers.token_choice_section),
    ("The character model's windows", senter_levers.windows_section),
)


def _folder_section(folder: Path, name: str):
    """(text, plots) of one folder, by its study's kind; None if it has nothing to show."""
    study, note = study_of(name)
    if study.kind == "page":  # its module renders its page from metrics/ as a whole
        return None
    if study.kind == "ptb":
        return _no_plots(ptb.ptb_section(folder, note or None))
    if study.kind == "lm":
        return lm.lm_section(folder)
    if study.kind == "paper":
        return _no_plots(paper.paper_section(folder, note or None))
    if not ud.has_scores(folder):
        return None
    return ud.folder_section(folder, name)


def _no_plots(text: Optional[str]):
    return None if text is None else (text, {})


def _study(name: str, folders: List[Path], metrics: Path, plots: Dict[str, Any]) -> List[str]:
    """The tables of one study's seed folders (their mean ± sd first), adding
    the plots they link to `plots`."""
    found = []
    for folder in folders:
        section = _folder_section(folder, "" if folder == metrics else folder.name)
        if section is not None:
            found += [section[0], ""]
            plots.update(section[1])
    seeds = ud.seeds_heading(name, folders) if len(folders) > 1 else None
    return ([seeds] if seeds else []) + found


def render(metrics: Path) -> Dict[str, Any]:
    """{page: Markdown of its generated block} for every results page, and
    ``plots``: {page: {image file: (lines, xlabel, ylabel, log_y)}}."""
    forget_warnings()
    if not metrics.is_dir():
        raise ReportError(f"{metrics}: no such metrics folder.")
    parts: Dict[str, List[str]] = {page: [] for page in PAGES}
    plots: Dict[str, Dict[str, Any]] = {page: {} for page in PAGES}
    targets = targets_section(metrics)
    if targets is not None:
        parts["ud"] += ["## Targets: where the accuracy goals stand", "", TARGETS_NOTE, "",
                        targets, ""]
    parts["ud"] += [ud.HOW_TO_READ, ""]
    for title, section in RAW_TEXT_SECTIONS:
        text = section(metrics)
        if text is not None:
            parts["ud"] += [f"## {title}", "", text, ""]
    groups = {"": [metrics], **seed_groups(metrics)}
    for study in STUDIES:
        found = []
        for name, folders in groups.items():
            if study_of(name)[0] is study:
                found += _study(name, folders, metrics, plots[study.page])
        if found:
            parts[study.page] += [f"## {study.title}", ""] + found
    parts["speed"] += _speed(metrics)
    for page, page_section in PAGE_SECTIONS.items():
        section = page_section(metrics)
        if section is not None:
            parts[page].append(section[0])
            plots[page].update(section[1])
    return {"pages": {page: "\n".join(lines).strip() or "_No results yet._"
                      for page, lines in parts.items()}, "plots": plots}


def _speed(metrics: Path) -> List[str]:
    parts = ["## Layer speed", ""]
    for path in bench.default_first(metrics, "bench-layers"):
        parts += [text for text in [bench.layers_section(path)] if text is not None] + [""]
    parts += ["## Pipeline speed", ""]
    for path in bench.default_first(metrics, "bench-pipelines"):
        parts += [text for text in [bench.pipelines_section(path)] if text is not None] + [""]
    biaffine = bench.biaffine_decoding_section(metrics / "bench-biaffine-decoding.json")
    if biaffine:
        parts += ["## Biaffine parser decoding", "", biaffine, ""]
    lm_bench = [t for t in map(lm.lm_bench_section, bench.default_first(metrics, "bench-lm")) if t]
    if lm_bench:
        parts += ["## Language-model training speed", ""] + [p for t in lm_bench for p in (t, "")]
    paper_bench = [t for t in map(paper.paper_bench_section,
                                  bench.default_first(metrics, "bench-paper")) if t]
    if paper_bench:
        parts += ["## Paper-settings speed", ""] + [p for t in paper_bench for p in (t, "")]
    profiles = [t for t in map(bench.profile_section,
                               bench.default_first(metrics, "profile-inference")) if t]
    train_profile = bench.profile_section(metrics / "profile-train.json")
    if train_profile and not train_profile.startswith("_"):
        profiles.append(train_profile)
    profiles += [t for t in map(bench.encoder_profile_section,
                                [metrics / "profile-encoder.json",
                                 metrics / "profile-encoder-train.json"]) if t]
    if profiles:
        parts += ["## Where the time goes", ""] + [p for t in profiles for p in (t, "")]
    gpu_check = gpu.gpu_check_section(metrics)
    if gpu_check:
        parts += ["## GPU check", "", gpu_check, ""]
    long_docs = bench.raw_long_section(metrics / "bench-raw-long.json")
    if long_docs is not None:
        parts += ["## Raw text: long documents and where the time goes", "",
                           long_docs, ""]
    raw = bench.raw_speed_section(metrics / "bench-raw.json")
    if raw:
        parts += ["## Raw text: whole pipelines with their tokenizers", "", raw, ""]
    corpus = [t for t in map(bench.parse_section, bench.default_first(metrics, "bench-parse"))
              if t]
    if corpus:
        parts += ["## Corpus parsing speed", ""] + [p for t in corpus for p in (t, "")]
    parse_memory = bench.parse_memory_section(metrics / "parse-memory.json")
    if parse_memory:
        parts += ["## Corpus parsing memory", "", parse_memory, ""]
    return parts


def draw(plots: Dict[str, Dict[str, Any]], folder: Path) -> None:
    """Write every plot the pages link into `folder` (skipped, with a warning,
    without matplotlib): a line plot's (lines, xlabel, ylabel, log_y), or a
    function that draws its own into the path it is given."""
    if not have_matplotlib():
        warn('matplotlib is not installed: plots skipped (pip install matplotlib).')
        return
    for images in plots.values():
        for image in sorted(images):
            spec = images[image]
            if callable(spec):
                spec(folder / image)
            else:
                lines, xlabel, ylabel, log_y = spec
                line_plot(lines, folder / image, xlabel, ylabel, log_y)


def write(metrics: Path, readme: Optional[Path], docs: Optional[Path], plots: bool = True) -> None:
    """Rewrite the README's headline and quick-start blocks and the generated block of each
    `docs/results/<page>.md` (a missing page is created), with the plots."""
    rendered = render(metrics)
    if readme is not None:
        blocks = {README_BLOCK: headline(metrics), QUICKSTART_BLOCK: quickstart(metrics),
                  TREEBANKS_BLOCK: treebanks.readme_table(metrics) or "_No treebank runs yet._"}
        text = readme.read_text(encoding="utf8") if readme.is_file() else None
        for name in blocks:  # all markers there before any is rewritten
            if text is not None and generated_block(text, name) is None:
                start, end = markers(name)
                raise ReportError(f"{readme} has no {name} markers (or more than one pair): "
                                  f"add the lines\n{start}\n{end}")
        for name, block in blocks.items():
            replace_block(readme, name, block)
    if docs is not None:
        results = docs / "results"
        for page, text in rendered["pages"].items():
            replace_block(results / f"{page}.md", PAGE_BLOCK, text,
                          new_page=f"# {TITLES[page]}\n")
        if plots:
            draw(rendered["plots"], results)
