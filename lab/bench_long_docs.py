"""Decoding time of long docs with tiny untrained models (decoding cost does not
depend on training): the ``pos``-encoding elstm_seq_parser on one doc, and the
seq2seq-attention elstm_tagger on docs with and without sentence boundaries.

    python lab/bench_long_docs.py seq_parser 23800
    python lab/bench_long_docs.py seq2seq 1000 4700
"""
import random
import sys
import time
import warnings

import spacy
from spacy.tokens import Doc

UPOS = ["ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON",
        "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X"]
# the docs' words take 14 of the 17 tags, so that labels naming the others
# name no word (as INTJ, SYM or X are absent from most real docs)
DOC_UPOS = [tag for tag in UPOS if tag not in ("INTJ", "SYM", "X")]
DEPS = ["nsubj", "obj", "det", "amod", "advmod", "case", "obl", "punct"]
TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 64,
           "depth": 1, "embed_size": 2000, "window_size": 1, "maxout_pieces": 3,
           "subword_features": True}


def _doc(nlp, n, sent_len=0, pos=False, seed=0):
    rng = random.Random(seed)
    words = [f"w{rng.randrange(500)}" for _ in range(n)]
    starts = [i % sent_len == 0 for i in range(n)] if sent_len else None
    return Doc(nlp.vocab, words=words, sent_starts=starts,
               pos=[rng.choice(DOC_UPOS) for _ in range(n)] if pos else None)


def _time(component, doc):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        component(doc)
    return time.perf_counter() - start


def seq_parser(n):
    nlp = spacy.blank("en")
    model = {"@architectures": "spacy-elstm.RecurrentTagger.v1", "width": 64, "cell": "lstm",
             "tok2vec": TOK2VEC}
    parser = nlp.add_pipe("elstm_seq_parser", config={"encoding": "pos", "model": model})
    labels = ["0|ROOT|root"] + [f"{k:+d}|{tag}|{dep}" for k in (-2, -1, 1, 2) for tag in UPOS
                                for dep in DEPS]
    doc = _doc(nlp, 20, pos=True)
    parser.initialize(lambda: [spacy.training.Example(doc, doc)], nlp=nlp, labels=labels)
    parser(_doc(nlp, 50, pos=True))  # warm-up: the first forward pass loads the kernel
    doc = _doc(nlp, n, pos=True)
    scores = parser.predict([doc])
    start = time.perf_counter()
    parser.set_annotations([doc], scores)
    decode = time.perf_counter() - start
    print(f"seq_parser pos, {n} tokens, one sentence, {len(labels)} labels: "
          f"tree decoding {decode:.2f} s; "
          f"whole component {_time(parser, _doc(nlp, n, pos=True)):.2f} s")


def seq2seq(n):
    nlp = spacy.blank("en")
    model = {"@architectures": "spacy-elstm.Seq2SeqTagger.v1", "width": 64, "attention": True,
             "tok2vec": TOK2VEC}
    tagger = nlp.add_pipe("elstm_tagger", config={"model": model})
    doc = _doc(nlp, 20)
    tagger.initialize(lambda: [spacy.training.Example(doc, doc)], nlp=nlp, labels=UPOS)
    tagger(_doc(nlp, 50))  # warm-up: the first forward pass loads the recurrence's kernel
    for sent_len in (0, 25):
        what = "no sentence boundaries" if not sent_len else f"sentences of {sent_len}"
        print(f"seq2seq attention tagger, {n} tokens, {what}: "
              f"{_time(tagger, _doc(nlp, n, sent_len)):.2f} s")


if __name__ == "__main__":
    for arg in sys.argv[2:]:
        {"seq_parser": seq_parser, "seq2seq": seq2seq}[sys.argv[1]](int(arg))
