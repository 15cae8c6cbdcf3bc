"""Graph-based parsing: the biaffine scorer and the elstm_biaffine_parser
component (the tree decoder's tests are in test_mst.py)."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy
import pytest
import spacy
import torch
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import Adam, fix_random_seed

from spacy_elstm.heads import is_tree
from spacy_elstm.layers.biaffine import sentence_lengths

ROOT = Path(__file__).resolve().parent.parent
PIPE = "elstm_biaffine_parser"


# --- the component --------------------------------------------------------------

TRAIN = [
    ("I like green eggs", [1, 1, 3, 1], ["nsubj", "ROOT", "amod", "obj"]),
    ("Eat blue ham", [0, 2, 0], ["ROOT", "amod", "obj"]),
    ("She likes ham", [1, 1, 1], ["nsubj", "ROOT", "obj"]),
    ("The dog barks loudly", [1, 2, 2, 2], ["det", "nsubj", "ROOT", "advmod"]),
    ("Cats sleep today", [1, 1, 1], ["nsubj", "ROOT", "obl:npmod"]),
]
NONPROJ = ("A hearing is scheduled on the issue today", [1, 3, 3, 3, 1, 6, 4, 3],
           ["det", "nsubj", "aux", "ROOT", "prep", "det", "pobj", "npadvmod"])
TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 32,
           "depth": 1, "embed_size": 300, "window_size": 1, "maxout_pieces": 2,
           "subword_features": True}
MODEL = {"@architectures": "spacy-elstm.BiaffineParser.v1", "arc_width": 32, "label_width": 16,
         "dropout": 0.0, "tok2vec": TOK2VEC}


def _nlp(model=MODEL):
    nlp = spacy.blank("en")
    nlp.add_pipe(PIPE, config={"model": model})
    return nlp


def _examples(nlp, rows=TRAIN):
    return [Example.from_dict(nlp.make_doc(text), {"heads": heads, "deps": deps})
            for text, heads, deps in rows]


def _train(nlp, examples, n_updates=40, seed=0):
    fix_random_seed(seed)
    nlp.initialize(lambda: examples)
    optimizer = Adam(0.01)
    for _ in range(n_updates):
        nlp.update(examples, sgd=optimizer)
    return nlp


def _parse(doc):
    return [(t.head.i, t.dep_) for t in doc]


@pytest.mark.parametrize("rows", [TRAIN, TRAIN + [NONPROJ]], ids=["projective", "non-projective"])
def test_component_learns_a_tiny_treebank(rows):
    nlp = _nlp()
    examples = _examples(nlp, rows)
    _train(nlp, examples)
    scores = nlp.evaluate(examples)
    assert scores["dep_uas"] == 1.0 and scores["dep_las"] == 1.0, scores
    for text, heads, deps in rows:
        doc = nlp(text)
        assert _parse(doc) == list(zip(heads, deps))
        assert len(list(doc.sents)) == 1
    assert nlp.get_pipe(PIPE).labels == tuple(sorted({d for row in rows for d in row[2]}))


def test_sentence_boundaries_are_kept_and_no_head_crosses_them():
    nlp = _train(_nlp(), _examples(spacy.blank("en")), n_updates=3)
    words = "I like green eggs . She likes ham Cats sleep".split()
    starts = [True, False, False, False, False, True, False, False, True, False]
    doc = nlp(Doc(nlp.vocab, words=words, sent_starts=starts))
    assert [t.is_sent_start for t in doc] == starts
    for sent in doc.sents:
        heads = [t.head.i - sent.start for t in sent]
        assert all(0 <= h < len(sent) for h in heads) and is_tree(heads)
    doc = nlp(" ".join(words))  # no boundaries: one sentence
    assert len(list(doc.sents)) == 1 and is_tree([t.head.i for t in doc])


def test_a_parse_does_not_depend_on_the_batch():
    nlp = _train(_nlp(), _examples(spacy.blank("en")), n_updates=5)
    parser = nlp.get_pipe(PIPE)
    texts = ["I like green eggs", "ham", "The dog barks loudly at the very big green cat today",
             ""]
    alone = [parser.predict([nlp.make_doc(t)])[0] for t in texts]
    together = parser.predict([nlp.make_doc(t) for t in texts])
    for (heads, labels), (heads2, labels2) in zip(alone, together):
        assert heads.tolist() == heads2.tolist() and labels.tolist() == labels2.tolist()
    one = parser.model.predict([nlp.make_doc(texts[0])])
    batch = parser.model.predict([nlp.make_doc(t) for t in texts])
    assert batch.lengths == [4, 1, 11] and [a.shape for a in batch.arcs] == [(4, 5), (1, 2), (11, 12)]
    numpy.testing.assert_allclose(batch.arcs[0], one.arcs[0], rtol=1e-5, atol=1e-5)
    heads = numpy.array([2, 0, 0, 3])
    numpy.testing.assert_allclose(batch.labels(numpy.r_[heads, 0, numpy.zeros(11, int)])[:4],
                                  one.labels(heads), rtol=1e-5, atol=1e-5)


def test_to_disk_and_load_give_the_same_parses(tmp_path):
    nlp = _train(_nlp(), _examples(spacy.blank("en")), n_updates=5)
    texts = [row[0] for row in TRAIN] + ["ham", "green ham eggs like", NONPROJ[0]]
    parser = nlp.get_pipe(PIPE)
    expected = parser.model.predict([nlp.make_doc(t) for t in texts])
    nlp.to_disk(tmp_path)

    other = _nlp()
    fix_random_seed(1)
    other.initialize(lambda: _examples(other))
    fresh = other.get_pipe(PIPE).model.predict([other.make_doc(t) for t in texts])
    assert not numpy.allclose(fresh.arcs[0], expected.arcs[0])

    loaded = spacy.load(tmp_path)
    again = loaded.get_pipe(PIPE)
    assert again.labels == parser.labels
    got = again.model.predict([loaded.make_doc(t) for t in texts])
    for arcs, want in zip(got.arcs, expected.arcs):
        numpy.testing.assert_allclose(arcs, want, rtol=1e-6, atol=1e-6)
    heads = numpy.concatenate([numpy.arange(n) for n in expected.lengths])  # any heads
    numpy.testing.assert_allclose(got.labels(heads), expected.labels(heads), rtol=1e-6, atol=1e-6)
    for text in texts:
        assert _parse(loaded(text)) == _parse(nlp(text))
    assert again.from_bytes(parser.to_bytes()).labels == parser.labels


def test_missing_heads_and_heads_across_sentences_give_no_gradient():
    nlp = _nlp()
    nlp.initialize(lambda: _examples(nlp))
    parser = nlp.get_pipe(PIPE)
    doc = nlp.make_doc(TRAIN[0][0])
    partial = Example.from_dict(doc, {"heads": [1, 1, None, 1],
                                      "deps": ["nsubj", "ROOT", None, "obj"]})
    scores = parser.model.predict([doc])
    loss, (d_arcs, d_labels) = parser.get_loss([partial], scores)
    assert loss > 0
    assert [d.shape for d in d_arcs] == [(4, 5)] and d_labels.shape == (4, len(parser.labels))
    assert not d_arcs[0][2].any() and not d_labels[2].any()
    assert d_arcs[0][[0, 1, 3]].any(axis=1).all() and d_labels[[0, 1, 3]].any(axis=1).all()
    # no gold relations at all: no label gradient
    unlabelled = Example.from_dict(doc, {"heads": [1, 1, 3, 1]})
    assert parser.get_loss([unlabelled], scores)[1][1] is None
    # a gold head in another sentence of the predicted doc: no loss for that word
    split = Doc(nlp.vocab, words=["I", "like", "green", "eggs"],
                sent_starts=[True, False, True, False])
    example = Example.from_dict(split, {"heads": [1, 1, 3, 1], "deps": TRAIN[0][2]})
    scores = parser.model.predict([split])
    assert scores.lengths == [2, 2]
    _, (d_arcs, d_labels) = parser.get_loss([example], scores)
    assert not d_arcs[1][1].any() and not d_labels[3].any() and d_arcs[1][0].any()


def test_empty_docs():
    nlp = _train(_nlp(), _examples(spacy.blank("en")), n_updates=1)
    assert len(nlp("")) == 0
    assert [len(d) for d in nlp.pipe(["", "ham", ""])] == [0, 1, 0]
    assert [len(d) for d in nlp.pipe(["", ""])] == [0, 0]
    (heads, labels), = nlp.get_pipe(PIPE).predict([nlp.make_doc("")])
    assert len(heads) == len(labels) == 0


@pytest.mark.parametrize("n_updates", [0, 2, 40])
def test_the_batch_decoder_parses_as_the_sentence_by_sentence_one(n_updates):
    # untrained (every score tied: no sentence takes the fast path), half
    # trained (some do) and trained (most do), docs of several sentences
    nlp = _nlp()
    examples = _examples(nlp, TRAIN + [NONPROJ])
    if n_updates:
        _train(nlp, examples, n_updates=n_updates)
    else:
        nlp.initialize(lambda: examples)
    parser = nlp.get_pipe(PIPE)
    rng = numpy.random.default_rng(n_updates)
    vocab = "I like green eggs . She likes ham Cats sleep the dog barks today".split()
    docs = [nlp.make_doc(text) for text, _, _ in TRAIN + [NONPROJ]] + [nlp.make_doc("")]
    for _ in range(20):
        words = [str(w) for w in rng.choice(vocab, size=int(rng.integers(1, 40)))]
        docs.append(Doc(nlp.vocab, words=words,
                        sent_starts=[True] + [bool(rng.random() < 0.15) for _ in words[1:]]))
    # the decoder before the batch one: mst_heads on each sentence, then the labels' argmax
    from lab.bench_biaffine_decoding import predict_sentence_by_sentence

    def as_lists(parses):
        return [(heads.tolist(), labels.tolist()) for heads, labels in parses]

    assert as_lists(parser.predict(docs)) == as_lists(predict_sentence_by_sentence(parser, docs))
    assert parser.predict([]) == []


@pytest.mark.parametrize("cell_budget", [2 ** 22, 500])
def test_the_best_labels_from_the_head_side_are_the_label_scores_argmax(cell_budget):
    from spacy_elstm.pytorch.biaffine import BiaffineParserScorer

    torch.manual_seed(0)
    module = BiaffineParserScorer(input_width=8, arc_width=8, label_width=12, n_labels=7,
                                  dropout=0.0)
    module.cell_budget = cell_budget  # 500: blocks of 5 words
    with torch.no_grad():
        module.label_weight.normal_()
        dep, head = torch.randn(40, 13), torch.randn(50, 13)
        heads = torch.randint(0, 50, (40,)) // 4 * 4  # words sharing heads
        heads[:13] = 3  # and one head with many dependents
        scores = module.label_scores(dep, head, heads)
        best = module.best_labels(dep, head, heads)
        top2 = scores.topk(2, dim=-1).values
        clear = (top2[:, 0] - top2[:, 1]) > 1e-4  # no near-tie for rounding to break
        assert clear.sum() >= 35
        assert best.shape == (40,) and (best[clear] == scores.argmax(-1)[clear]).all()
        assert module.best_labels(dep[:0], head, heads[:0]).shape == (0,)


def test_bad_arguments_name_the_value():
    bad = {**MODEL, "arc_width": 0}
    with pytest.raises(ValueError, match="BiaffineParser.v1: arc_width must be a positive "
                                         "integer, got 0"):
        _nlp(bad).initialize(lambda: _examples(spacy.blank("en")))
    with pytest.raises(ValueError, match=r"dropout must be a number in \[0, 1\), got 1.5"):
        _nlp({**MODEL, "dropout": 1.5}).initialize(lambda: _examples(spacy.blank("en")))
    nlp = _nlp()
    no_deps = [Example.from_dict(nlp.make_doc("ham"), {})]
    with pytest.raises(ValueError, match="no dependency relations"):
        nlp.initialize(lambda: no_deps)


def test_the_factory_and_architecture_come_by_entry_point_without_import():
    code = (
        "import sys, spacy\n"
        "from spacy.util import registry\n"
        f"nlp = spacy.blank('en')\n"
        f"nlp.add_pipe({PIPE!r})\n"
        "registry.architectures.get('spacy-elstm.BiaffineParser.v1')\n"
        "print('ok', nlp.pipe_names)\n"
    )
    code = code.replace("import sys, spacy\n",
                        "import sys, spacy\nassert 'spacy_elstm' not in sys.modules\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ok" in result.stdout


def test_spacy_train_a_few_steps_on_the_sample(tmp_path, sample_corpus):
    log = tmp_path / "log.jsonl"
    result = subprocess.run(
        [sys.executable, "-m", "spacy", "train", str(ROOT / "configs" / "biaffine" / "best_elstm.cfg"),
         "--output", str(tmp_path / "model"), "--paths.train", str(sample_corpus / "train.spacy"),
         "--paths.dev", str(sample_corpus / "dev.spacy"), "--paths.train_log", str(log),
         "--training.max_steps", "10", "--training.eval_frequency", "5"],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["step"] for line in lines] == [0, 5, 10]
    nlp = spacy.load(tmp_path / "model" / "model-last")
    assert nlp.get_pipe_meta("parser").factory == PIPE
    doc = nlp("The parser reads this sentence. It writes heads.")
    assert doc.has_annotation("DEP")
    for sent in doc.sents:
        assert is_tree([t.head.i - sent.start for t in sent])


# --- memory: scores per sentence, labels at one head per word ----------------------

def _old_scores(module, x, lengths):
    """The batched formulation the scorer had before (the reference): every
    sentence padded to the longest, label scores for every (word, head, label),
    shapes (n_sents, T, T + 1) and (n_sents, T, T + 1, n_labels)."""
    n_sents, longest = len(lengths), max(lengths)
    lengths = torch.tensor(lengths)
    sent = torch.repeat_interleave(torch.arange(n_sents), lengths)
    starts = torch.cumsum(lengths, 0) - lengths
    position = torch.arange(x.shape[0]) - starts[sent]
    words = x.new_zeros(n_sents, longest, x.shape[1]).index_put((sent, position), x)
    padded = torch.cat([module.root.expand(n_sents, 1, x.shape[1]), words], dim=1)
    arc_dep, arc_head = module.arc_dep(words), module.arc_head(padded)
    arcs = torch.einsum("sia,ab,sjb->sij", arc_dep, module.arc_weight, arc_head)
    arcs = arcs + (arc_head @ module.arc_head_bias)[:, None, :]

    def with_one(t):
        return torch.cat([t, t.new_ones(t.shape[:-1] + (1,))], dim=-1)

    labels = torch.einsum("sip,lpq,sjq->sijl", with_one(module.label_dep(words)),
                          module.label_weight, with_one(module.label_head(padded)))
    return arcs, labels


def _old_loss(arcs, labels, lengths, heads, label_ids):
    """The loss the component had on the batched scores: cross-entropy of the
    gold head among the sentence's words and ROOT (padding masked), plus that of
    the gold label at the gold head; heads and label_ids (n_sents, T), -1 = none."""
    valid = torch.arange(arcs.shape[2])[None, :] <= torch.tensor(lengths)[:, None]
    masked = arcs.masked_fill(~valid[:, None, :], float("-inf"))
    s, i = torch.nonzero(heads >= 0, as_tuple=True)
    loss = -torch.log_softmax(masked[s, i], -1)[torch.arange(len(s)), heads[s, i]].sum()
    s, i = torch.nonzero(label_ids >= 0, as_tuple=True)
    at_gold = labels[s, i, heads[s, i]]
    return loss - torch.log_softmax(at_gold, -1)[torch.arange(len(s)), label_ids[s, i]].sum()


def _padded(flat, lengths):
    out = torch.full((len(lengths), max(lengths)), -1, dtype=torch.int64)
    start = 0
    for s, n in enumerate(lengths):
        out[s, :n] = torch.as_tensor(flat[start:start + n])
        start += n
    return out


def test_loss_and_gradients_equal_the_batched_formulation():
    from spacy_elstm.layers.biaffine import biaffine_module

    nlp = _nlp()
    nlp.initialize(lambda: _examples(nlp))
    parser = nlp.get_pipe(PIPE)
    module = biaffine_module(parser.model)
    torch.manual_seed(0)
    with torch.no_grad():  # weights that make every term matter (U and W start at zero)
        for param in module.parameters():
            param.normal_(0, 0.3)
    split = Doc(nlp.vocab, words="I like green eggs . She likes ham".split(),
                sent_starts=[True, False, False, False, False, True, False, False])
    examples = _examples(nlp, [TRAIN[3], NONPROJ]) + [
        Example.from_dict(nlp.make_doc("I like green eggs"),
                          {"heads": [1, 1, None, 1], "deps": ["nsubj", "ROOT", None, "unknown"]}),
        Example.from_dict(split, {"heads": [1, 1, 3, 1, 1, 6, 6, 6],
                                  "deps": ["nsubj", "ROOT", "amod", "obj", "punct", "nsubj",
                                           "ROOT", "obj"]})]
    docs = [eg.predicted for eg in examples]
    vectors = parser.model.layers[0].predict(docs)
    lengths = [n for doc in docs for n in sentence_lengths(doc)]
    assert lengths == [4, 8, 4, 5, 3]

    scores, backprop = parser.model.layers[1]((vectors, lengths), is_train=True)
    loss, d_scores = parser.get_loss(examples, scores)
    d_vectors = backprop(d_scores)
    grads = {name: p.grad.clone() for name, p in module.named_parameters()}
    module.zero_grad()

    x = torch.tensor(numpy.concatenate(vectors), requires_grad=True)
    heads, label_ids = parser._targets(examples, lengths)
    assert (label_ids == -1).sum() > (heads == -1).sum() > 0  # missing heads and labels
    arcs, labels = _old_scores(module, x, lengths)
    want = _old_loss(arcs, labels, lengths, _padded(heads, lengths), _padded(label_ids, lengths))
    want.backward()
    assert loss == pytest.approx(want.item(), rel=1e-5)
    # float32 sums in another order: each gradient within 1e-5 of its largest entry
    for name, param in module.named_parameters():
        want_grad = param.grad.numpy()
        numpy.testing.assert_allclose(grads[name].numpy(), want_grad, rtol=1e-4,
                                      atol=1e-5 * max(1.0, numpy.abs(want_grad).max()),
                                      err_msg=name)
    want_grad = x.grad.numpy()
    numpy.testing.assert_allclose(numpy.concatenate(d_vectors), want_grad, rtol=1e-4,
                                  atol=1e-5 * max(1.0, numpy.abs(want_grad).max()))
    # the same arc scores, and label scores at any heads, as the batched ones
    for s, n in enumerate(lengths):
        numpy.testing.assert_allclose(scores.arcs[s], arcs[s, :n, :n + 1].detach().numpy(),
                                      rtol=1e-5, atol=1e-5)
    some_heads = numpy.concatenate([(numpy.arange(n) * 7) % (n + 1) for n in lengths])
    want_labels = numpy.concatenate([labels[s, torch.arange(n), some_heads[sum(lengths[:s]):][:n]]
                                     .detach().numpy() for s, n in enumerate(lengths)])
    numpy.testing.assert_allclose(scores.labels(some_heads), want_labels, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="a head outside its sentence"):
        scores.labels(numpy.full(sum(lengths), 5))


LIMIT_GB = 4


def test_a_long_doc_beside_255_short_ones_parses_under_a_4_gb_address_space():
    """The issue's repro: one 350-token doc (one sentence: no sentence
    boundaries) and 255 short ones in one nlp.pipe call, 48 relations, under an
    address-space limit of 4 GiB for the whole process. The batched scores
    (256 x 350 x 351 x 48 label scores) asked for 6 GB. One thread and two
    malloc arenas, so that per-thread reservations do not count against the
    limit; the imports' own address space is checked to leave room."""
    tiny = {**MODEL, "arc_width": 16, "label_width": 16, "tok2vec": {**TOK2VEC, "width": 16}}
    code = textwrap.dedent(f"""
        import resource, spacy, spacy_elstm
        from spacy.tokens import Doc
        from spacy.training import Example
        from spacy_elstm.heads import is_tree
        size = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
        assert size < 2 * 2 ** 30, f"the imports alone take {{size / 2 ** 30:.1f}} GiB"
        limit = {LIMIT_GB} * 2 ** 30
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        nlp = spacy.blank("en")
        parser = nlp.add_pipe({PIPE!r}, config={{"model": {tiny!r}}})
        example = Example.from_dict(Doc(nlp.vocab, words=["a", "b"]),
                                    {{"heads": [1, 1], "deps": ["rel0", "ROOT"]}})
        parser.initialize(lambda: [example], nlp=nlp, labels=[f"rel{{i}}" for i in range(48)])
        long = " ".join(f"word{{i % 97}}" for i in range(350))
        texts = [f"short sentence number {{i}} with a few words" for i in range(255)] + [long]
        docs = list(nlp.pipe(texts, batch_size=256))
        assert len(docs[-1]) == 350 and len(list(docs[-1].sents)) == 1
        assert all(is_tree([t.head.i - s.start for t in s]) for d in docs for s in d.sents)
        print("ok")
    """)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-3000:]


def test_loss_weight_scales_the_gradient_not_the_loss():
    nlp = _nlp()
    nlp.initialize(lambda: _examples(nlp))
    parser = nlp.get_pipe(PIPE)
    examples = _examples(nlp, [TRAIN[3], NONPROJ])
    scores = parser.model.predict([eg.predicted for eg in examples])
    loss, (d_arcs, d_labels) = parser.get_loss(examples, scores)
    parser.loss_weight = 0.5
    half_loss, (half_arcs, half_labels) = parser.get_loss(examples, scores)
    assert half_loss == loss
    for full, half in zip(d_arcs, half_arcs):
        numpy.testing.assert_allclose(half, 0.5 * full)
    numpy.testing.assert_allclose(half_labels, 0.5 * d_labels)
    for bad in (0, -1.0):
        with pytest.raises(ValueError, match=rf"components.{PIPE}.loss_weight must be a "
                                             rf"positive finite number, got {bad!r}"):
            spacy.blank("en").add_pipe(PIPE, config={"model": MODEL, "loss_weight": bad})
