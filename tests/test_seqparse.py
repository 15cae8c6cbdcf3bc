"""Dependency parsing as sequence labelling: the encodings (spacy_elstm.heads),
the tree repair, and the elstm_seq_parser component."""
import subprocess
import sys
import warnings
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example
from spacy.training.converters import conllu_to_docs
from thinc.api import Adam, fix_random_seed

from spacy_elstm.heads import (ENCODINGS, LabelSet, PairLabels, decode, decode_pairs,
                                  decode_scores, encode, encode_pairs, is_tree)

ROOT = Path(__file__).resolve().parent.parent
UPOS = ["NOUN", "VERB", "ADJ", "DET", "PRON", "ADP", "PUNCT"]


def _sample_trees(limit=150):
    """(heads, deps, pos) of each sentence of the committed EWT sample's dev file."""
    text = (ROOT / "assets" / "ud-ewt-sample" / "dev.conllu").read_text(encoding="utf8")
    trees = []
    for doc in conllu_to_docs(text, n_sents=1, no_print=True):
        for sent in doc.sents:
            trees.append(([t.head.i - sent.start for t in sent], [t.dep_ for t in sent],
                          [t.pos_ for t in sent]))
    return trees[:limit]


def _crossing(heads):
    arcs = [tuple(sorted((i, h))) for i, h in enumerate(heads) if h != i]
    return any(a < c < b < d for a, b in arcs for c, d in arcs)


# a hand-made non-projective tree: "A hearing is scheduled on the issue today"
# with "on the issue" attached to "hearing" across "is scheduled"
NONPROJ = ([1, 3, 3, 3, 1, 6, 4, 3], ["det", "nsubj", "aux", "ROOT", "prep", "det", "pobj", "npadvmod"],
           ["DET", "NOUN", "AUX", "VERB", "ADP", "DET", "NOUN", "NOUN"])


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_encode_then_decode_gives_the_gold_tree(encoding):
    trees = _sample_trees() + [NONPROJ]
    assert any(_crossing(heads) for heads, _, _ in trees)  # non-projective trees are in
    for heads, deps, pos in trees:
        labels = encode(heads, deps, encoding, pos)
        assert None not in labels
        assert decode(labels, encoding, pos) == (heads, deps)
        # from scores that put each gold label first, the repair changes nothing
        label_set = LabelSet(sorted(set(labels)), encoding)
        scores = numpy.zeros((len(labels), len(label_set.labels)), dtype="f")
        for i, label in enumerate(labels):
            scores[i, label_set.labels.index(label)] = 1.0
        assert decode_scores(scores, label_set, pos) == (heads, deps)


def _pair_scores(pairs, label_set):
    """(n, 2 * n_labels) scores that put each word's gold relation first in the
    first block and its gold position first in the second."""
    v = len(label_set.labels)
    scores = numpy.zeros((len(pairs), 2 * v), dtype="f")
    for i, (dep, position) in enumerate(pairs):
        scores[i, label_set.labels.index(dep)] = 1.0
        scores[i, v + label_set.labels.index(position)] = 1.0
    return scores


def test_the_interleaved_target_round_trips_to_the_same_tree():
    trees = _sample_trees() + [NONPROJ]
    assert any(_crossing(heads) for heads, _, _ in trees)
    for heads, deps, _ in trees:
        pairs = encode_pairs(heads, deps, [0] * len(heads))
        assert None not in pairs
        # the paper's numbering: CoNLL-U head positions, 0 for the root
        assert [int(p[1:]) for _, p in pairs] == [0 if h == i else h + 1
                                                  for i, h in enumerate(heads)]
        label_set = PairLabels(sorted({label for pair in pairs for label in pair}))
        assert decode_pairs(_pair_scores(pairs, label_set), label_set) == (heads, deps)


def test_interleaved_positions_count_within_each_sentence():
    # two sentences of 2 and 3 words; a head outside its word's sentence gives no pair
    heads, deps = [1, 1, 3, 3, 1], ["nsubj", "ROOT", "det", "ROOT", "dep"]
    pairs = encode_pairs(heads, deps, [0, 0, 2, 2, 2])
    assert pairs == [("nsubj", "@2"), ("ROOT", "@0"), ("det", "@2"), ("ROOT", "@0"), None]


def test_interleaved_decoding_gives_trees_for_random_scores():
    rng = numpy.random.default_rng(0)
    labels = ["ROOT", "nsubj", "obj"] + [f"@{p}" for p in range(6)]
    label_set = PairLabels(labels)
    for n in [1, 2, 5, 9]:  # 9 words: positions 6..9 are not among the labels
        for _ in range(30):
            heads, deps = decode_pairs(rng.normal(size=(n, 2 * len(labels))), label_set)
            assert is_tree(heads) and set(deps) <= {"ROOT", "nsubj", "obj"}
            assert all(h <= 5 for i, h in enumerate(heads) if h != i)  # only known positions


def test_the_encodings_look_as_documented():
    heads, deps, pos = [1, 1, 3, 1], ["nsubj", "ROOT", "amod", "obj"], ["PRON", "VERB", "ADJ", "NOUN"]
    assert encode(heads, deps, "relative") == ["+1|nsubj", "0|ROOT", "+1|amod", "-2|obj"]
    assert encode(heads, deps, "pos", pos) == ["+1|VERB|nsubj", "0|ROOT|ROOT", "+1|NOUN|amod",
                                                "-1|VERB|obj"]
    # the second NOUN to the right; a relation holding the separator survives
    assert encode([2, 2, 2], ["a|b", "x", "ROOT"], "pos", ["DET", "NOUN", "NOUN"])[0] == "+2|NOUN|a|b"
    assert decode(["+2|NOUN|a|b", "+1|NOUN|x", "0|ROOT|ROOT"], "pos",
                  ["DET", "NOUN", "NOUN"]) == ([2, 2, 2], ["a|b", "x", "ROOT"])
    # a head that is not there decodes to None; a missing head or relation encodes to None
    assert decode(["+3|x", "0|ROOT"], "relative")[0] == [None, 1]
    assert decode(["+1|VERB|x", "0|ROOT|ROOT"], "pos", ["NOUN", "NOUN"])[0] == [None, 1]
    assert encode([None, 1], ["x", ""], "relative") == [None, None]
    assert encode([1, 1], ["x", "ROOT"], "pos", ["NOUN", ""]) == [None, "0|ROOT|ROOT"]
    with pytest.raises(ValueError, match="needs one POS per word: got None for 2 words"):
        decode_scores(numpy.zeros((2, 1)), LabelSet(["0|ROOT|ROOT"], "pos"))


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_decoded_parses_are_trees_for_random_scores(encoding):
    trees = _sample_trees(60)
    labels = sorted({label for heads, deps, pos in trees
                     for label in encode(heads, deps, encoding, pos)})
    label_set = LabelSet(labels, encoding)
    for seed in range(300):
        rng = numpy.random.RandomState(seed)
        n = 1 + seed % 30
        pos = list(rng.choice(UPOS, n))
        scores = rng.standard_normal((n, len(labels))).astype("f")
        if seed % 3 == 0:  # root labels unlikely: the "no root" repair
            scores[:, label_set.roots] -= 10
        elif seed % 3 == 1:  # root labels likely: the "several roots" repair
            scores[:, label_set.roots] += 10
        heads, deps = decode_scores(scores, label_set, pos)
        assert is_tree(heads), (seed, heads)
        assert len(deps) == n and all(deps)


def test_the_repair_keeps_the_best_root_and_breaks_cycles_at_the_cheapest_word():
    label_set = LabelSet(["+1|x", "-1|y", "0|ROOT", "+2|z", "-2|w"], "relative")
    # words 0 and 1 point at each other; word 2 is the only root
    scores = numpy.log(numpy.asarray([
        [0.6, 0.0, 0.1, 0.3, 0.0],   # 0 -> 1 (0.6); to the root 2 costs log .6 - log .3
        [0.0, 0.5, 0.0, 0.0, 0.0],   # 1 -> 0 (0.5); to the root 2 only at ~1e-6
        [0.0, 0.2, 0.8, 0.0, 0.0],   # 2 is the root
    ], dtype="f") + 1e-6)
    heads, deps = decode_scores(scores, label_set)
    assert heads == [2, 0, 2] and deps == ["z", "y", "ROOT"]
    # two roots: the one with the better root score stays
    scores = numpy.log(numpy.asarray([[0.1, 0.0, 0.9, 0.0, 0.0], [0.0, 0.4, 0.6, 0.0, 0.0]],
                                     dtype="f") + 1e-6)
    assert decode_scores(scores, label_set) == ([0, 0], ["ROOT", "y"])
    # no root at all: the word with the highest root score becomes it
    scores = numpy.log(numpy.asarray([[0.9, 0.0, 0.05, 0.0, 0.0], [0.0, 0.9, 0.1, 0.0, 0.0]],
                                     dtype="f") + 1e-6)
    assert decode_scores(scores, label_set) == ([1, 1], ["x", "ROOT"])
    # one word: only the root label is valid
    assert decode_scores(numpy.asarray([[5.0, 4.0, -3.0, 2.0, 1.0]]), label_set) == ([0], ["ROOT"])
    assert decode_scores(numpy.zeros((0, 5)), label_set) == ([], [])


# --- the component -------------------------------------------------------------

TRAIN = [
    ("I like green eggs", [1, 1, 3, 1], ["nsubj", "ROOT", "amod", "obj"],
     ["PRON", "VERB", "ADJ", "NOUN"]),
    ("Eat blue ham", [0, 2, 0], ["ROOT", "amod", "obj"], ["VERB", "ADJ", "NOUN"]),
    ("She likes ham", [1, 1, 1], ["nsubj", "ROOT", "obj"], ["PRON", "VERB", "NOUN"]),
    ("The dog barks loudly", [1, 2, 2, 2], ["det", "nsubj", "ROOT", "advmod"],
     ["DET", "NOUN", "VERB", "ADV"]),
    # a relation that is not one of spaCy's symbols: its string hash is over 2**63
    ("Cats sleep today", [1, 1, 1], ["nsubj", "ROOT", "obl:npmod"], ["NOUN", "VERB", "NOUN"]),
]
TOK2VEC = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 32,
           "depth": 1, "embed_size": 300, "window_size": 1, "maxout_pieces": 2,
           "subword_features": True}
MODEL = {"@architectures": "spacy-elstm.RecurrentTagger.v1", "width": 32, "cell": "lstm",
         "tok2vec": TOK2VEC}
DBRNN = {"@architectures": "spacy-elstm.DBRNNTagger.v1", "width": 32, "cell": "elstm",
         "period": 8, "tok2vec": TOK2VEC}
PIPE = "elstm_seq_parser"


def _nlp(encoding="relative", model=MODEL, tagger=False):
    nlp = spacy.blank("en")
    if tagger:
        nlp.add_pipe("elstm_tagger", config={"attr": "pos", "model": {**MODEL}})
    nlp.add_pipe(PIPE, config={"encoding": encoding, "model": model})
    return nlp


def _examples(nlp):
    return [Example.from_dict(nlp.make_doc(text), {"heads": heads, "deps": deps, "pos": pos})
            for text, heads, deps, pos in TRAIN]


def _train(nlp, examples, n_updates=60):
    fix_random_seed(0)
    nlp.initialize(lambda: examples)
    optimizer = Adam(0.01)
    for _ in range(n_updates):
        nlp.update(examples, sgd=optimizer)
    return nlp


SEQ2SEQ_2T = {"@architectures": "spacy-elstm.Seq2SeqTagger.v1", "width": 32, "cell": "lstm",
              "period": 8, "interleaved": True, "tok2vec": TOK2VEC}


@pytest.mark.parametrize("encoding,model", [("relative", MODEL), ("relative", DBRNN),
                                            ("pos", MODEL), ("interleaved", SEQ2SEQ_2T)])
def test_component_learns_a_tiny_treebank(encoding, model):
    """With the pos encoding, an elstm_tagger before the parser predicts the UPOS
    the parser decodes with."""
    nlp = _nlp(encoding, model, tagger=encoding == "pos")
    examples = _examples(nlp)
    _train(nlp, examples)
    scores = nlp.evaluate(examples)
    assert scores["dep_uas"] == 1.0 and scores["dep_las"] == 1.0, scores
    for text, heads, deps, _ in TRAIN:
        doc = nlp(text)
        assert [t.head.i for t in doc] == heads and [t.dep_ for t in doc] == deps
        assert doc.has_annotation("DEP") and len(list(doc.sents)) == 1


def test_to_disk_and_load_give_the_same_predictions(tmp_path):
    nlp = _train(_nlp(), _examples(spacy.blank("en")), n_updates=5)
    texts = [row[0] for row in TRAIN] + ["ham", "green ham eggs like"]
    parser = nlp.get_pipe(PIPE)
    expected = [parser.predict([nlp.make_doc(t)])[0] for t in texts]
    nlp.to_disk(tmp_path)

    other = _nlp()
    fix_random_seed(1)
    other.initialize(lambda: _examples(other))
    assert not numpy.allclose(other.get_pipe(PIPE).predict([other.make_doc(texts[0])])[0],
                              expected[0])

    loaded = spacy.load(tmp_path)
    again = loaded.get_pipe(PIPE)
    assert again.labels == parser.labels and again.encoding == "relative"
    for text, scores in zip(texts, expected):
        numpy.testing.assert_allclose(again.predict([loaded.make_doc(text)])[0], scores,
                                      rtol=1e-6, atol=1e-6)
        assert ([(t.head.i, t.dep_) for t in loaded(text)]
                == [(t.head.i, t.dep_) for t in nlp(text)])
    assert loaded.get_pipe(PIPE).from_bytes(again.to_bytes()).labels == parser.labels


def test_unknown_encoding_names_the_allowed_ones():
    with pytest.raises(ValueError, match="elstm_seq_parser: unknown encoding 'absolute': "
                                         "choose one of 'relative', 'pos', 'interleaved'"):
        _nlp("absolute")
    with pytest.raises(ValueError, match="'interleaved' needs a model that emits two labels"):
        _nlp("interleaved", MODEL)
    with pytest.raises(ValueError, match="'relative' needs a model that emits one label"):
        _nlp("relative", SEQ2SEQ_2T)
    with pytest.raises(ValueError, match="min_label_freq must be an integer >= 1, got 0"):
        spacy.blank("en").add_pipe(PIPE, config={"min_label_freq": 0, "model": MODEL})


def test_rare_labels_are_dropped_and_give_no_gradient():
    nlp = spacy.blank("en")
    nlp.add_pipe(PIPE, config={"min_label_freq": 2, "model": MODEL})
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    parser = nlp.get_pipe(PIPE)
    assert "+1|nsubj" in parser.labels and "-1|advmod" not in parser.labels  # seen 3 times, once
    scores = parser.model.predict([examples[3].predicted])
    _, d_scores = parser.get_loss([examples[3]], scores)
    assert not d_scores[0][3].any() and d_scores[0][1].any()


def test_missing_heads_give_no_loss():
    nlp = _nlp()
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    parser = nlp.get_pipe(PIPE)
    doc = nlp.make_doc(TRAIN[0][0])
    partial = Example.from_dict(doc, {"heads": [1, 1, None, 1], "deps": ["nsubj", "ROOT", None, "obj"]})
    scores = parser.model.predict([doc])
    _, d_scores = parser.get_loss([partial], scores)
    assert not d_scores[0][2].any() and d_scores[0][[0, 1, 3]].any(axis=1).all()


def test_sentence_boundaries_are_kept_and_no_head_crosses_them():
    nlp = _train(_nlp(), _examples(spacy.blank("en")), n_updates=3)
    words = "I like green eggs . She likes ham Cats sleep".split()
    starts = [True, False, False, False, False, True, False, False, True, False]
    doc = Doc(nlp.vocab, words=words, sent_starts=starts)
    doc = nlp(doc)
    assert [t.is_sent_start for t in doc] == starts
    for sent in doc.sents:
        heads = [t.head.i - sent.start for t in sent]
        assert all(0 <= h < len(sent) for h in heads) and is_tree(heads)
    # a doc without sentence boundaries is parsed as one sentence
    doc = nlp(" ".join(words))
    assert len(list(doc.sents)) == 1 and is_tree([t.head.i for t in doc])
    assert doc[0].is_sent_start and not any(t.is_sent_start for t in doc[1:])


class CountingPOS:
    """A POS sequence that counts how often its items are read."""

    def __init__(self, tags):
        self.tags, self.reads = list(tags), 0

    def __len__(self):
        return len(self.tags)

    def __getitem__(self, i):
        self.reads += 1
        return self.tags[i]

    def __iter__(self):
        for tag in self.tags:
            self.reads += 1
            yield tag


def _pos_reads(n):
    """POS reads of decoding n words whose best label names a tag the sentence
    lacks (a linear scan reads on to the sentence's end for each)."""
    labels = ["+1|ADJ|amod", "+1|VERB|nsubj", "-1|NOUN|obj", "0|ROOT|root"]
    label_set = LabelSet(labels, "pos")
    scores = numpy.tile(numpy.log([0.4, 0.3, 0.2, 0.1]), (n, 1))
    pos = CountingPOS(["NOUN", "VERB"] * (n // 2))
    heads, _ = decode_scores(scores, label_set, pos)
    assert is_tree(heads)
    return pos.reads


def test_pos_decoding_reads_each_words_pos_once():
    """Decoding is O(n log n): each tag's positions are found once, then binary
    searched; it reads no POS per label it tries."""
    assert [_pos_reads(n) for n in (100, 400)] == [100, 400]


@pytest.mark.parametrize("seed", range(3))
def test_pos_heads_match_a_scan_over_the_sentence(seed):
    from spacy_elstm.heads.encoding import PartOfSpeech, Positions

    rng = numpy.random.default_rng(seed)
    pos = list(rng.choice(["NOUN", "VERB", "ADJ", ""], size=40))
    where = Positions(pos)
    for i in range(40):
        for tag in ("NOUN", "VERB", "ADJ", "DET"):
            right = [j for j in range(i + 1, 40) if pos[j] == tag]
            left = [j for j in range(i - 1, -1, -1) if pos[j] == tag]
            for k in range(1, 5):
                assert where.kth(tag, i, k) == (right[k - 1] if k <= len(right) else None)
                assert where.kth(tag, i, -k) == (left[k - 1] if k <= len(left) else None)
        for head in range(40):
            label = PartOfSpeech().encode_head(i, head, pos)
            assert label == PartOfSpeech().encode_head(i, head, where)
            if label is not None:
                assert PartOfSpeech().head(tuple(label.split("|")), i, where) == head


def test_the_pos_encoding_refuses_docs_without_pos_and_writes_nothing():
    nlp = _train(_nlp("pos", tagger=True), _examples(spacy.blank("en")), n_updates=2)
    parser = nlp.get_pipe(PIPE)
    with_pos = Doc(nlp.vocab, words=["Cats", "sleep"], pos=["NOUN", "VERB"])
    without = Doc(nlp.vocab, words=["Dogs", "bark"])
    message = (r"elstm_seq_parser: the 'pos' encoding decodes heads from token.pos_, and a doc "
               r"of 2 tokens has none\. Put a component that sets `pos`")
    with pytest.raises(ValueError, match=message):
        parser(without)
    with pytest.raises(ValueError, match=message):
        list(parser.pipe([with_pos, without]))
    scores = parser.predict([with_pos])
    with pytest.raises(ValueError, match=message):
        parser.set_annotations([with_pos, without], scores * 2)
    assert not with_pos.has_annotation("DEP") and not without.has_annotation("DEP")
    assert nlp("Cats sleep").has_annotation("DEP")  # the tagger sets pos first


def test_a_long_doc_without_sentence_boundaries_is_warned_about_once():
    from spacy_elstm.components.token_labeller import LONG_DOC_TOKENS, LongDocWarning

    nlp = _train(_nlp(), _examples(spacy.blank("en")), n_updates=1)
    words = ["ham"] * (LONG_DOC_TOKENS + 1)
    split = Doc(nlp.vocab, words=words, sent_starts=[i % 10 == 0 for i in range(len(words))])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp(Doc(nlp.vocab, words=words[:LONG_DOC_TOKENS]))  # not over the limit
        nlp(split)  # over it, with sentence boundaries
    with pytest.warns(LongDocWarning, match=rf"elstm_seq_parser: a doc of {len(words)} tokens "
                                            r"has no sentence boundaries") as caught:
        list(nlp.pipe([" ".join(words)] * 2))
        nlp(" ".join(words))
    assert len([w for w in caught if issubclass(w.category, LongDocWarning)]) == 1


def test_empty_doc():
    nlp = _train(_nlp(), _examples(spacy.blank("en")), n_updates=1)
    assert len(nlp("")) == 0
    assert [len(d) for d in nlp.pipe(["", "ham", ""])] == [0, 1, 0]


def test_conllu_and_displacy_read_the_parse():
    from spacy import displacy

    nlp = _train(_nlp(), _examples(spacy.blank("en")), n_updates=2)
    doc = nlp("I like green eggs")
    arcs = displacy.parse_deps(doc)["arcs"]
    assert len(arcs) == len(doc) - 1
    assert doc.to_json()["tokens"][1]["head"] in range(len(doc))


def test_the_factory_comes_by_entry_point_without_import():
    code = (
        "import sys, spacy\n"
        "assert 'spacy_elstm' not in sys.modules\n"
        "nlp = spacy.blank('en')\n"
        "nlp.add_pipe('elstm_seq_parser', config={'encoding': 'pos'})\n"
        "print('ok', nlp.pipe_names)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ok" in result.stdout


def test_the_seq_parser_config_is_valid(tmp_path):
    from spacy.cli.debug_config import debug_config
    from spacy.cli.init_config import fill_config

    path = ROOT / "configs" / "labeller" / "seq_parser.cfg"
    debug_config(path, overrides={"paths.train": str(ROOT / "assets/ud-ewt-sample/train.conllu"),
                                  "paths.dev": str(ROOT / "assets/ud-ewt-sample/dev.conllu")})
    filled = tmp_path / "filled.cfg"
    fill_config(filled, path)
    nlp = spacy.util.load_model_from_config(spacy.util.load_config(filled), auto_fill=True,
                                            validate=True)
    assert nlp.pipe_names == ["tok2vec", "elstm_tagger", "elstm_seq_parser"]
    assert nlp.get_pipe("elstm_seq_parser").encoding == "pos"
    assert nlp.get_pipe("elstm_tagger").attr == "pos"


def test_every_factory_has_an_identical_entry_point():
    from importlib.metadata import entry_points

    from spacy.util import registry

    import spacy_elstm  # noqa: F401  (registers the decorators)

    registered = {n for n in registry.factories.get_all() if n.startswith("elstm_")}
    declared = {ep.name for ep in entry_points(group="spacy_factories")
                if ep.value.startswith("spacy_elstm")}
    assert registered == declared == {"elstm_tagger", "elstm_seq_parser", "elstm_biaffine_parser",
                                      "elstm_senter", "elstm_lemma_lookup", "elstm_lemmatizer"}


def test_interleaved_training_hands_the_model_both_labels_of_each_word():
    nlp = _nlp("interleaved", SEQ2SEQ_2T)
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    parser = nlp.get_pipe(PIPE)
    labels = list(parser.labels)
    assert "@0" in labels and "nsubj" in labels
    ids = parser._label_ids(parser._gold(examples[0]))  # "I like green eggs"
    n = len(labels)
    assert [(labels[i // n], labels[i % n]) for i in ids] == [
        ("nsubj", "@2"), ("ROOT", "@0"), ("amod", "@4"), ("obj", "@2")]
    scores = parser.model.predict([examples[0].predicted])
    assert scores[0].shape == (4, 2 * n)
    loss, d_scores = parser.get_loss([examples[0]], scores)
    # one gradient entry per step: the relation in block 1, the position in block 2
    assert (d_scores[0] != 0).sum() == 8
    assert d_scores[0][2, labels.index("amod")] == -1 and d_scores[0][2, n + labels.index("@4")] == -1


def test_interleaved_parser_saves_and_loads(tmp_path):
    nlp = _train(_nlp("interleaved", SEQ2SEQ_2T), _examples(spacy.blank("en")), n_updates=3)
    nlp.to_disk(tmp_path)
    loaded = spacy.load(tmp_path)
    assert loaded.get_pipe(PIPE).encoding == "interleaved"
    for text in [row[0] for row in TRAIN] + ["ham"]:
        doc = loaded(text)
        assert [(t.head.i, t.dep_) for t in doc] == [(t.head.i, t.dep_) for t in nlp(text)]
        assert is_tree([t.head.i for t in doc])
