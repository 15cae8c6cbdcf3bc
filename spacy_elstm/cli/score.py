"""`spacy-elstm score`: official CoNLL 2018 scores of a pipeline on a CoNLL-U file."""
from pathlib import Path
from typing import Optional

import typer

from .gpu import check_gpu_or_fail


def score(
    ctx: typer.Context,
    pipeline: str = typer.Argument(..., help="A trained pipeline (a folder or an installed package name)."),
    gold: Path = typer.Argument(..., help="A gold CoNLL-U file, e.g. UD English-EWT dev."),
    output: Optional[Path] = typer.Option(None, help="Write the scores as JSON here."),
    predictions: Optional[Path] = typer.Option(None, help="Keep the predictions as CoNLL-U here."),
    scorer: Optional[Path] = typer.Option(
        None, help="conll18_ud_eval.py (default: $SPACY_ELSTM_CONLL18_EVAL, else "
                   "assets/conll2018-eval/conll18_ud_eval.py)."),
    gpu_id: int = typer.Option(-1, help="GPU id, or -1 for the CPU."),
    batch_size: Optional[int] = typer.Option(None, min=1, help="Docs per batch (default: the pipeline's)."),
    gold_lemmas: bool = typer.Option(
        False, "--gold-lemmas",
        help="Give the pipeline GOLD's lemmas (column 3) as input, for pipelines trained on "
             "lemma input (spacy-elstm.GoldLemmaCorpus.v1, configs/paper/): an oracle setting."),
    train: Optional[Path] = typer.Option(
        None, help="The training CoNLL-U file: also give UPOS and XPOS accuracy on the words "
                   "it does not have (\"unseen\") and on the others (\"seen\")."),
    raw: bool = typer.Option(
        False, "--raw",
        help="Run the pipeline on the raw text of GOLD's documents (its own tokenizer and "
             "sentence splitter) and give every metric of the script, Tokens, Sentences and "
             "Words included: what a user's text gets."),
    text_form: str = typer.Option(
        "ud", "--text-form",
        help="With --raw, the text's form: ud (UD's own text files, as conllu_to_text.pl "
             "writes them: lines wrapped at 80 characters, a blank line between "
             "paragraphs), joined (each paragraph's sentences on one line) or lines (each "
             "sentence on a line of its own)."),
    text_unit: str = typer.Option(
        "paragraph", "--text-unit",
        help="With --raw, what one Doc of a document's text is, as `parse --text-unit` "
             "reads a .txt file: paragraph (a run of non-blank lines), line or file (the "
             "whole document)."),
    text_variant: str = typer.Option(
        "as-written", "--text-variant",
        help="With --raw, GOLD rewritten as users' text comes, scored against the "
             "rewritten gold: as-written, crlf (line breaks as \\r\\n), lowercase, "
             "unpunctuated (no PUNCT words, as speech transcripts come) or "
             "lowercase-unpunctuated (both)."),
    language: Optional[str] = typer.Option(
        None, "--language",
        help="With --raw, GOLD's UD language code, as conllu_to_text.pl --language takes it: "
             "zh, ja, lzh and yue text is wrapped between characters (default: from GOLD's "
             "name as UD names files, lzh_kyoto-ud-test.conllu: lzh; else en)."),
) -> None:
    """Score a pipeline with the CoNLL 2018 shared task's evaluation script.

    The pipeline runs on the gold words and gold sentences of GOLD (one Doc per
    sentence), or with --raw on the raw text of each of its documents
    (`# newdoc`) in UD's text form (--text-form ud: as UD releases it beside
    every treebank, lines wrapped at 80 characters, paragraphs at `# newpar`
    after a blank line), with each paragraph on one line (--text-form joined) or
    each sentence on a line of its own (--text-form lines), one Doc per
    paragraph as `parse` reads a .txt file (--text-unit: line, file), the
    text as written or as users' text comes (--text-variant: crlf, lowercase,
    unpunctuated, lowercase-unpunctuated), in the treebank's language (--language);
    its predictions are written as CoNLL-U, each sentence a
    single-root tree (extra roots attached to the first with `dep`, counted as
    repaired_roots), and scored by conll18_ud_eval.py. With --gold-lemmas the
    input docs carry GOLD's lemmas as well (the JSON says "input": "gold lemmas").
    Further options override the pipeline's config as it loads, as spaCy's CLI
    takes them, e.g. --components.elstm_tagger.model.beam_width 4 for beam search
    in a seq2seq model.
    """
    check_gpu_or_fail("score", gpu_id)
    from spacy.cli._util import parse_config_overrides

    from ..treebanks.conllu_reader import CorpusFormatError
    from ..treebanks.scoring import METRICS, RAW_METRICS, SPLIT_METRICS, ScoringError
    from ..treebanks.scoring import score as score_pipeline
    from .errors import fail

    try:
        overrides = parse_config_overrides(ctx.args)
        result = score_pipeline(pipeline, gold, output=output, predictions=predictions,
                                scorer=scorer, gpu_id=gpu_id, batch_size=batch_size,
                                gold_lemmas=gold_lemmas, train=train, overrides=overrides,
                                raw=raw, text_form=text_form, text_unit=text_unit,
                                text_variant=text_variant, language=language)
    except (ScoringError, CorpusFormatError, OSError, ValueError) as err:
        fail("score", err)
    shown = RAW_METRICS if raw else METRICS
    typer.echo(f"{result['gold']}: {_shown(result, shown)}  ({result['words']:,} words, "
               f"{result['words_per_second']:,.0f} words/s, {result['repaired_roots']} roots repaired)")
    if train is not None:
        for part in ("unseen", "seen"):
            typer.echo(f"  {part} in {train.name}: {_shown(result[part], SPLIT_METRICS)}  "
                       f"({result[part]['words']:,} words)")
    if output is not None:
        typer.echo(f"wrote {output}")


def _shown(scores, metrics) -> str:
    """"UPOS 95.12  XPOS -  ...": each metric's percentage, `-` where it is null."""
    return "  ".join(f"{m} {'-' if scores[m] is None else format(scores[m], '.2f')}"
                     for m in metrics)
