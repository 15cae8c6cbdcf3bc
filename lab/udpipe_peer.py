#!/usr/bin/env python3
"""UDPipe 1 as a raw-text peer for UD English-EWT: trained here, run on the same
raw text as our pipelines and scored by the same script (docs/raw-text.md).
Needs `pip install ufal.udpipe` (not a dependency of the package).

Two sub-commands:

  train    Train a UDPipe 1 model (tokenizer + MorphoDiTa tagger + Parsito parser,
           method "morphodita_parsito") on a CoNLL-U training file, with a CoNLL-U
           heldout file used for early stopping.  No pretrained embeddings.
           Writes the model and a small JSON with the training time and options.

  gold-tokens  Tag and parse the gold file's own words and sentences (no
           tokenizer), write CoNLL-U and score it: the gold-token scores beside
           ours, and trees to compare word for word (lab.nonprojective).

  run      Run a trained model on raw text (UD's text form, as written by
           UniversalDependencies/tools' conllu_to_text.pl; made from --gold by
           spacy_elstm.treebanks.gold_text where --text is not given), i.e. tokenize (with
           sentence splitting) + tag + parse, write CoNLL-U, time it, and score it
           against the gold CoNLL-U with the official CoNLL 2018 evaluation script.
           Writes a JSON with the F1 scores, words/s, training time and options.

Raw-text handling: the whole text is passed to the UDPipe tokenizer in one call,
in its default mode (no "presegmented", no "normalized_spaces"), just like
`udpipe --tokenize model < file.txt` without --immediate (which reads the whole
input at once), i.e. the setting of the CoNLL 2018 baseline.  In that mode a
single newline is ordinary whitespace and an empty line ("\\n\\n") ends a
paragraph and forces a sentence break, which matches conllu_to_text.pl's output
(lines wrapped at 80 characters, paragraphs/documents separated by empty lines).

All processing is single-threaded (UDPipe 1 does not use threads for this).

Example (from the repository's root, about 30-50 minutes of training on one thread):
  python -m lab.udpipe_peer train --train assets/UD_English-EWT/en_ewt-ud-train.conllu \\
      --heldout assets/UD_English-EWT/en_ewt-ud-dev.conllu --model training/udpipe1/en_ewt.udpipe
  python -m lab.udpipe_peer run --model training/udpipe1/en_ewt.udpipe \\
      --gold assets/UD_English-EWT/en_ewt-ud-test.conllu \\
      --scorer assets/conll2018-eval/conll18_ud_eval.py \\
      --output training/udpipe1/udpipe1-test.conllu --json metrics/udpipe1/udpipe1-test.json
  (on text as users may have it: --text-variant lowercase --json
   metrics/udpipe1/udpipe1-test.raw-lowercase.json, as `score --raw` names its files)
"""

import argparse
import importlib.util
import json
import os
import sys
import time

import ufal.udpipe as udpipe

from spacy_elstm.treebanks.gold_variants import VARIANTS, variant_documents, variant_gold
from spacy_elstm.treebanks.ud_names import language_code

# Short training schedules (UDPipe 1 defaults: tokenizer epochs=100, tagger
# iterations=20, parser iterations=10).  Everything else stays at UDPipe's defaults.
DEFAULT_TOKENIZER_OPTS = "epochs=10"
DEFAULT_TAGGER_OPTS = "iterations=5"
DEFAULT_PARSER_OPTS = "iterations=3"

METRICS = ["Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS",
           "LAS", "CLAS", "MLAS", "BLEX"]


def udpipe_version():
    v = udpipe.Version.current()
    s = "%d.%d.%d" % (v.major, v.minor, v.patch)
    return s + ("-" + v.prerelease if v.prerelease else "")


def package_version():
    try:
        from importlib.metadata import version
        return version("ufal.udpipe")
    except Exception:  # pragma: no cover
        return None


def read_conllu_sentences(path):
    """Read a CoNLL-U file into a ufal.udpipe.Sentences vector."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    reader = udpipe.InputFormat.newConlluInputFormat()
    reader.setText(text)
    error = udpipe.ProcessingError()
    sentences = udpipe.Sentences()
    sentence = udpipe.Sentence()
    while reader.nextSentence(sentence, error):
        sentences.append(sentence)
        sentence = udpipe.Sentence()
    if error.occurred():
        raise RuntimeError("cannot read %s: %s" % (path, error.message))
    return sentences


def cmd_train(args):
    train = read_conllu_sentences(args.train)
    heldout = read_conllu_sentences(args.heldout) if args.heldout else udpipe.Sentences()
    print("train sentences: %d, heldout sentences: %d" % (len(train), len(heldout)), flush=True)
    print("options: tokenizer=%r tagger=%r parser=%r" % (args.tokenizer, args.tagger, args.parser), flush=True)

    error = udpipe.ProcessingError()
    start = time.perf_counter()
    model_bytes = udpipe.Trainer.train("morphodita_parsito", train, heldout,
                                       args.tokenizer, args.tagger, args.parser, error)
    train_seconds = time.perf_counter() - start
    if error.occurred():
        sys.exit("training failed: %s" % error.message)

    os.makedirs(os.path.dirname(os.path.abspath(args.model)), exist_ok=True)
    with open(args.model, "wb") as f:
        f.write(model_bytes)
    info = {
        "method": "morphodita_parsito",
        "train_file": os.path.basename(args.train),
        "heldout_file": os.path.basename(args.heldout) if args.heldout else None,
        "train_sentences": len(train),
        "heldout_sentences": len(heldout),
        "tokenizer_options": args.tokenizer,
        "tagger_options": args.tagger,
        "parser_options": args.parser,
        "pretrained_embeddings": None,
        "train_seconds": round(train_seconds, 1),
        "udpipe_version": udpipe_version(),
        "ufal.udpipe_package_version": package_version(),
    }
    info_path = args.info or args.model + ".json"
    with open(info_path, "w") as f:
        json.dump(info, f, indent=2)
    print("trained in %.1f s; model %s (%d bytes); info %s"
          % (train_seconds, args.model, len(model_bytes), info_path), flush=True)


def annotate(model, text, tokenizer_opts):
    """Tokenize+split, tag and parse raw text; return (conllu, words, seconds)."""
    error = udpipe.ProcessingError()
    tokenizer = model.newTokenizer(tokenizer_opts)
    if tokenizer is None:
        raise RuntimeError("the model has no tokenizer")
    writer = udpipe.OutputFormat.newConlluOutputFormat()

    start = time.perf_counter()
    tokenizer.setText(text)
    sentences = []
    sentence = udpipe.Sentence()
    while tokenizer.nextSentence(sentence, error):
        model.tag(sentence, udpipe.Model.DEFAULT, error)
        model.parse(sentence, udpipe.Model.DEFAULT, error)
        if error.occurred():
            break
        sentences.append(sentence)
        sentence = udpipe.Sentence()
    seconds = time.perf_counter() - start
    if error.occurred():
        raise RuntimeError("annotation failed: %s" % error.message)

    # Writing CoNLL-U is outside the timed region.
    words = 0
    out = []
    for s in sentences:
        words += len(s.words) - 1  # words[0] is the technical root
        out.append(writer.writeSentence(s))
    out.append(writer.finishDocument())
    return "".join(out), len(sentences), words, seconds


def load_scorer(path):
    spec = importlib.util.spec_from_file_location("conll18_ud_eval", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cmd_run(args):
    model = udpipe.Model.load(args.model)
    if model is None:
        sys.exit("cannot load model %s" % args.model)
    gold_path = args.gold
    language = None if args.text else args.language or language_code(args.gold)
    if args.text and args.text_variant != "as-written":
        sys.exit("--text-variant rewrites the gold's own text: give --text or --text-variant, "
                 "not both")
    if args.text:
        with open(args.text, encoding="utf-8") as f:
            text = f.read()
    else:  # UD's text form of the gold file, byte for byte conllu_to_text.pl's, or a variant
        gold_path = str(variant_gold(args.gold, args.text_variant,
                                     os.path.dirname(os.path.abspath(args.output))
                                     + "/gold-" + args.text_variant))
        text = "".join(d.text for d in variant_documents(gold_path, "ud", args.text_variant,
                                                         language))

    conllu, n_sentences, n_words, seconds = annotate(model, text, args.tokenizer_mode)
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(conllu)
    print("%s: %d sentences, %d words in %.2f s (%.0f words/s)"
          % (args.text or args.gold, n_sentences, n_words, seconds, n_words / seconds), flush=True)

    scorer = load_scorer(args.scorer)
    gold = scorer.load_conllu_file(gold_path)
    system = scorer.load_conllu_file(args.output)
    evaluation = scorer.evaluate(gold, system)
    scores = {m: round(100 * evaluation[m].f1, 2) for m in METRICS}

    train_info = training_info(args)
    result = {
        "system": system_name(train_info),
        "input_text": os.path.basename(args.text) if args.text else "ud_text(gold)",
        "text_form": "ud",
        "text_variant": args.text_variant,
        "language": language,
        "gold": os.path.basename(args.gold),
        "scorer": os.path.basename(args.scorer),
        "scores_f1": scores,
        "train_seconds": train_info.get("train_seconds"),
        "predict_seconds": round(seconds, 2),
        "predict_words": n_words,
        "predict_sentences": n_sentences,
        "words_per_second": round(n_words / seconds, 1),
        "predict_threads": 1,
        "predict_timed_steps": "tokenize+sentence split, tag, parse (CoNLL-U writing and model loading excluded)",
        "tokenizer_mode": args.tokenizer_mode or "default",
        "options": {k: train_info.get(k) for k in
                    ("method", "tokenizer_options", "tagger_options", "parser_options",
                     "pretrained_embeddings", "train_file", "heldout_file")},
        "udpipe_version": udpipe_version(),
        "ufal.udpipe_package_version": package_version(),
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(scores), flush=True)
    print("wrote %s and %s" % (args.output, args.json))


def training_info(args):
    """The model's training JSON (MODEL.json), or {} where there is none."""
    info_path = args.model_info or args.model + ".json"
    if not os.path.exists(info_path):
        return {}
    with open(info_path) as f:
        return json.load(f)


def system_name(train_info):
    train = train_info.get("train_file") or "its training file"
    heldout = train_info.get("heldout_file")
    return "UDPipe 1 (ufal.udpipe), trained on %s%s" % (
        train, ", %s as heldout" % heldout if heldout else "")


def cmd_gold_tokens(args):
    model = udpipe.Model.load(args.model)
    if model is None:
        sys.exit("cannot load model %s" % args.model)
    with open(args.gold, encoding="utf-8") as f:
        gold_text = f.read()
    pipeline = udpipe.Pipeline(model, "conllu", udpipe.Pipeline.DEFAULT, udpipe.Pipeline.DEFAULT,
                               "conllu")
    error = udpipe.ProcessingError()
    start = time.perf_counter()
    conllu = pipeline.process(gold_text, error)
    seconds = time.perf_counter() - start
    if error.occurred():
        sys.exit("annotation failed: %s" % error.message)
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(conllu)
    scorer = load_scorer(args.scorer)
    evaluation = scorer.evaluate(scorer.load_conllu_file(args.gold),
                                 scorer.load_conllu_file(args.output))
    train_info = training_info(args)
    result = {
        "system": system_name(train_info),
        "input": "gold words and sentences (CoNLL-U in, UDPipe's tagger and parser only)",
        "gold": os.path.basename(args.gold),
        "scorer": os.path.basename(args.scorer),
        "scores_f1": {m: round(100 * evaluation[m].f1, 2) for m in METRICS},
        "seconds": round(seconds, 2),
        "train_seconds": train_info.get("train_seconds"),
        "options": {k: train_info.get(k) for k in
                    ("method", "tokenizer_options", "tagger_options", "parser_options",
                     "train_file", "heldout_file")},
        "udpipe_version": udpipe_version(),
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result["scores_f1"]), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("train", help="train a UDPipe 1 model")
    p.add_argument("--train", required=True, help="training CoNLL-U")
    p.add_argument("--heldout", help="heldout CoNLL-U (early stopping)")
    p.add_argument("--model", required=True, help="output model file")
    p.add_argument("--info", help="training-info JSON (default: MODEL.json)")
    p.add_argument("--tokenizer", default=DEFAULT_TOKENIZER_OPTS, help="tokenizer options [%(default)s]")
    p.add_argument("--tagger", default=DEFAULT_TAGGER_OPTS, help="tagger options [%(default)s]")
    p.add_argument("--parser", default=DEFAULT_PARSER_OPTS, help="parser options [%(default)s]")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("run", help="annotate raw text and score it")
    p.add_argument("--model", required=True, help="trained model file")
    p.add_argument("--model-info", help="training-info JSON (default: MODEL.json)")
    p.add_argument("--text", help="raw text (default: UD's text form of --gold)")
    p.add_argument("--gold", required=True, help="gold CoNLL-U of the same split")
    p.add_argument("--text-variant", default="as-written",
                   choices=VARIANTS,
                   help="the gold and its text rewritten as `spacy-elstm score --raw "
                        "--text-variant` rewrites them [%(default)s]")
    p.add_argument("--language", help="the gold's UD language code, which decides how its "
                   "text is wrapped, as conllu_to_text.pl --language takes it (default: from "
                   "--gold's name as UD names files, else en)")
    p.add_argument("--scorer", required=True, help="path to conll18_ud_eval.py")
    p.add_argument("--output", required=True, help="output CoNLL-U")
    p.add_argument("--json", required=True, help="output JSON with scores")
    p.add_argument("--tokenizer-mode", default=udpipe.Model.DEFAULT,
                   help="UDPipe tokenizer options; empty = default mode (sentence splitting, "
                        "empty line = paragraph break) [%(default)r]")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("gold-tokens", help="tag and parse the gold words and sentences, and score")
    p.add_argument("--model", required=True, help="trained model file")
    p.add_argument("--model-info", help="training-info JSON (default: MODEL.json)")
    p.add_argument("--gold", required=True, help="gold CoNLL-U")
    p.add_argument("--scorer", required=True, help="path to conll18_ud_eval.py")
    p.add_argument("--output", required=True, help="output CoNLL-U")
    p.add_argument("--json", required=True, help="output JSON with scores")
    p.set_defaults(func=cmd_gold_tokens)

    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
