"""Where a pipeline's UPOS errors go: the confusion by (gold, predicted) UPOS
pair on a treebank split, each pair's count and share of all errors, split by
whether the word was seen in training; the error rate of each gold tag; and how
many errors the tagger's XPOS would fix, read as UPOS through the training
split's most frequent UPOS of each XPOS (a measure of what a joint UPOS/XPOS
tagger could gain).

    python -m lab.upos_errors MODEL DEV.spacy --train TRAIN.spacy \\
        --output metrics/upos-errors/NAME.dev-errors.json --page docs/results/upos-errors.md

The words are the split's (gold tokenisation), parsed one sentence per doc as
``spacy evaluate`` reads a gold_preproc corpus. A word is *seen* when its
lowercase form occurs in the training split (the hash embeddings key on the
lowercase NORM). The JSON's name must not end in ``-dev.json`` or ``-test.json``,
which ``python -m lab.report`` reads as a training run's scores. UPOS is ``token.pos_`` (the morphologizer's, in this
repository's pipelines), XPOS ``token.tag_`` (the tagger's).
"""
import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set

START = "<!-- upos-errors:start (written by `python -m lab.upos_errors`; do not edit by hand) -->"
END = "<!-- upos-errors:end -->"


# groups of (gold, predicted) pairs: errors between any two tags of a group
GROUPS = {"PROPN and NOUN": ("PROPN", "NOUN"),
          "open class (NOUN, PROPN, ADJ, VERB, ADV)": ("NOUN", "PROPN", "ADJ", "VERB", "ADV"),
          "function words (ADP, ADV, SCONJ, PART, AUX, PRON, DET)":
              ("ADP", "ADV", "SCONJ", "PART", "AUX", "PRON", "DET")}


def _most_frequent(counts: Counter) -> Dict:
    """key -> its most frequent value, from counts of (key, value) (ties to the
    first value in sort order)."""
    best: Dict = {}
    for (key, value), _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        best.setdefault(key, value)
    return best


def training_lexicon(docs: Iterable) -> Dict:
    """The lowercase forms of the training words; the most frequent UPOS there
    of each XPOS, and of each (lowercase form, XPOS) pair."""
    forms: Set[str] = set()
    by_xpos: Counter = Counter()
    by_form: Counter = Counter()
    for doc in docs:
        for token in doc:
            forms.add(token.lower_)
            if token.tag_ and token.pos_:
                by_xpos[token.tag_, token.pos_] += 1
                by_form[(token.lower_, token.tag_), token.pos_] += 1
    return {"forms": forms, "xpos_to_upos": _most_frequent(by_xpos),
            "form_xpos_to_upos": _most_frequent(by_form)}


def _rate(errors: int, words: int) -> Optional[float]:
    return round(errors / words, 5) if words else None


def confusion(gold_docs: Sequence, predicted_docs: Sequence, lexicon: Dict) -> Dict:
    """The UPOS confusion of ``predicted_docs`` against ``gold_docs`` (the same
    words in the same order), see the module; words without a gold UPOS are
    skipped."""
    if len(gold_docs) != len(predicted_docs):
        raise ValueError(f"{len(gold_docs)} gold docs but {len(predicted_docs)} predicted ones.")
    forms, xpos_to_upos = lexicon["forms"], lexicon["xpos_to_upos"]
    form_xpos_to_upos = lexicon["form_xpos_to_upos"]
    pairs: Counter = Counter()
    words: Counter = Counter()  # by seen / unseen
    errors: Counter = Counter()
    tag_words: Counter = Counter()
    tag_errors: Counter = Counter()
    routes = {name: Counter() for name in ("xpos", "form_and_xpos")}
    tagger_right = 0  # UPOS errors where the tagger's XPOS is the gold one
    for n, (gold, predicted) in enumerate(zip(gold_docs, predicted_docs)):
        if [t.text for t in gold] != [t.text for t in predicted]:
            raise ValueError(f"doc {n}: the predicted doc's words differ from the gold doc's.")
        for g, p in zip(gold, predicted):
            if not g.pos_:
                continue
            split = "seen" if g.lower_ in forms else "unseen"
            words[split] += 1
            tag_words[g.pos_] += 1
            via = {"xpos": xpos_to_upos.get(p.tag_),
                   "form_and_xpos": form_xpos_to_upos.get((p.lower_, p.tag_),
                                                          xpos_to_upos.get(p.tag_))}
            wrong = p.pos_ != g.pos_
            for name, upos in via.items():
                routes[name]["right"] += upos == g.pos_
                routes[name]["fixes" if wrong else "breaks"] += (upos == g.pos_) == wrong
            if wrong:
                errors[split] += 1
                tag_errors[g.pos_] += 1
                pairs[g.pos_, p.pos_ or "(none)", split] += 1
                tagger_right += bool(g.tag_) and p.tag_ == g.tag_
    n_words, n_errors = sum(words.values()), sum(errors.values())
    by_pair: Counter = Counter()
    for (g, p, _), count in pairs.items():
        by_pair[g, p] += count
    return {
        "words": n_words, "errors": n_errors, "accuracy": _rate(n_words - n_errors, n_words),
        "splits": {split: {"words": words[split], "errors": errors[split],
                           "accuracy": _rate(words[split] - errors[split], words[split]),
                           "share_of_errors": _rate(errors[split], n_errors)}
                   for split in ("seen", "unseen")},
        "pairs": [{"gold": g, "predicted": p, "count": count,
                   "share_of_errors": _rate(count, n_errors),
                   "seen": pairs[g, p, "seen"], "unseen": pairs[g, p, "unseen"]}
                  for (g, p), count in sorted(by_pair.items(), key=lambda kv: (-kv[1], kv[0]))],
        "groups": [{"group": name, "count": count, "share_of_errors": _rate(count, n_errors),
                    "seen": sum(pairs[g, p, "seen"] for g in tags for p in tags),
                    "unseen": sum(pairs[g, p, "unseen"] for g in tags for p in tags)}
                   for name, tags in GROUPS.items()
                   for count in [sum(by_pair[g, p] for g in tags for p in tags)]],
        "gold_tags": [{"tag": tag, "words": tag_words[tag], "errors": tag_errors[tag],
                       "error_rate": _rate(tag_errors[tag], tag_words[tag]),
                       "share_of_errors": _rate(tag_errors[tag], n_errors)}
                      for tag in sorted(tag_words, key=lambda t: (-tag_errors[t], t))],
        "upos_errors_with_the_right_xpos": tagger_right,
        "upos_from_xpos": {name: {"accuracy": _rate(route["right"], n_words),
                                  "errors_it_fixes": route["fixes"],
                                  "right_ones_it_breaks": route["breaks"]}
                           for name, route in routes.items()},
    }


def _percent(value: Optional[float]) -> str:
    return "-" if value is None else f"{100 * value:.2f}"


def markdown(result: Dict, top: int = 15) -> str:
    """The generated part of the results page: the summary, the top pairs and
    the gold tags' error rates."""
    c = result["confusion"]
    seen, unseen = c["splits"]["seen"], c["splits"]["unseen"]
    xpos, form = c["upos_from_xpos"]["xpos"], c["upos_from_xpos"]["form_and_xpos"]
    lines = [
        f"Model: `{result['model']}`; split: `{result['split']}` ({c['words']:,} words), "
        f"seen = lowercase form in `{result['train']}`. Written by "
        f"`python -m lab.upos_errors` into `{result['metrics_file']}`.",
        "",
        "| words | count | UPOS accuracy | errors | share of errors |",
        "|---|---:|---:|---:|---:|",
        f"| all | {c['words']:,} | {_percent(c['accuracy'])} | {c['errors']:,} | 100.00 |",
        f"| seen in train | {seen['words']:,} | {_percent(seen['accuracy'])} | "
        f"{seen['errors']:,} | {_percent(seen['share_of_errors'])} |",
        f"| unseen | {unseen['words']:,} | {_percent(unseen['accuracy'])} | "
        f"{unseen['errors']:,} | {_percent(unseen['share_of_errors'])} |",
        "",
        f"The tagger's XPOS is the gold one on {c['upos_errors_with_the_right_xpos']:,} of "
        f"the {c['errors']:,} UPOS errors. UPOS read from the tagger's XPOS, as the most "
        f"frequent UPOS in train of each XPOS: accuracy {_percent(xpos['accuracy'])}, right "
        f"on {xpos['errors_it_fixes']:,} UPOS errors, wrong on "
        f"{xpos['right_ones_it_breaks']:,} words the UPOS got right; of each (lowercase "
        f"form, XPOS), falling back to the XPOS: accuracy {_percent(form['accuracy'])}, "
        f"right on {form['errors_it_fixes']:,} errors, wrong on "
        f"{form['right_ones_it_breaks']:,} right ones.",
        "",
        f"The {min(top, len(c['pairs']))} most frequent (gold, predicted) pairs:",
        "",
        "| gold | predicted | errors | share of errors | seen | unseen |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for pair in c["pairs"][:top]:
        lines.append(f"| {pair['gold']} | {pair['predicted']} | {pair['count']:,} | "
                     f"{_percent(pair['share_of_errors'])} | {pair['seen']:,} | "
                     f"{pair['unseen']:,} |")
    lines += ["", "Errors between the tags of a group (both directions):", "",
              "| group | errors | share of errors | seen | unseen |",
              "|---|---:|---:|---:|---:|"]
    for group in c["groups"]:
        lines.append(f"| {group['group']} | {group['count']:,} | "
                     f"{_percent(group['share_of_errors'])} | {group['seen']:,} | "
                     f"{group['unseen']:,} |")
    lines += ["", "Errors by gold tag:", "",
              "| gold | words | errors | error rate | share of errors |",
              "|---|---:|---:|---:|---:|"]
    for tag in c["gold_tags"]:
        if tag["errors"]:
            lines.append(f"| {tag['tag']} | {tag['words']:,} | {tag['errors']:,} | "
                         f"{_percent(tag['error_rate'])} | {_percent(tag['share_of_errors'])} |")
    return "\n".join(lines)


def page_block(text: str) -> Optional[str]:
    """The generated block of a page's text; None without one pair of markers."""
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        return None
    return text.split(START, 1)[1].split(END, 1)[0].strip("\n")


def write_page(path: Path, block: str) -> None:
    """Replace the generated block of the page at ``path`` (created with a
    title if missing), keeping the text around it."""
    from spacy_elstm.files import write_atomically

    text = path.read_text(encoding="utf8") if path.is_file() else (
        f"# UPOS errors on dev\n\n{START}\n{END}\n")
    if page_block(text) is None:
        raise SystemExit(f"{path} has no generated block: add the lines\n{START}\n{END}")
    before, rest = text.split(START, 1)
    after = rest.split(END, 1)[1]
    write_atomically(path, f"{before}{START}\n{block}\n{END}{after}".encode("utf8"))


def _sentences(nlp, docs) -> List:
    from spacy.tokens import Doc

    gold = [sent.as_doc() for doc in docs for sent in doc.sents]
    return gold, [Doc(nlp.vocab, words=[t.text for t in sent]) for sent in gold]


def main(argv=None):
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("model", help="a trained pipeline that predicts UPOS")
    args.add_argument("split", help="the gold .spacy DocBin to score (dev)")
    args.add_argument("--train", required=True, help="the training .spacy DocBin")
    args.add_argument("--output", type=Path, required=True, help="the JSON to write")
    args.add_argument("--page", type=Path, help="the markdown page whose generated block to rewrite")
    args.add_argument("--model-name", help="how the JSON names the model (default: its path)")
    args.add_argument("--top", type=int, default=15, help="pairs in the markdown table")
    args.add_argument("--batch-size", type=int, default=256)
    opts = args.parse_args(argv)

    import spacy
    from spacy.tokens import DocBin

    from spacy_elstm.files import write_atomically

    nlp = spacy.load(opts.model)
    lexicon = training_lexicon(DocBin().from_disk(opts.train).get_docs(nlp.vocab))
    gold, inputs = _sentences(nlp, DocBin().from_disk(opts.split).get_docs(nlp.vocab))
    predicted = list(nlp.pipe(inputs, batch_size=opts.batch_size))
    result = {
        "model": opts.model_name or str(opts.model),
        "split": Path(opts.split).name, "train": Path(opts.train).name,
        "metrics_file": str(opts.output),
        "seen_means": "the word's lowercase form occurs in the training split",
        "confusion": confusion(gold, predicted, lexicon),
    }
    write_atomically(opts.output, json.dumps(result, indent=2).encode())
    print(f"wrote {opts.output}")
    if opts.page:
        write_page(opts.page, markdown(result, opts.top))
        print(f"wrote {opts.page}")
    print(markdown(result, opts.top))


if __name__ == "__main__":
    main()
