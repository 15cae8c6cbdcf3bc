"""The paper's settings (Su & Kuo, Table 4): configs/paper/ (POS and parsing), the
gold-lemma reader, AdaGrad, and `spacy-elstm score --gold-lemmas`; and Table 8's
convseq2seq (configs/paper/dep_convseq2seq.cfg) with its optimizer, NAG."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.training import Example
from spacy.util import registry
from thinc.api import fix_random_seed

from spacy_elstm.training.optimizers import ADAGRAD, NAG, Adagrad, NesterovSGD, create_adagrad, create_nag
from spacy_elstm.training.readers import GOLD_LEMMA_CORPUS, copy_gold_lemmas, create_gold_lemma_reader
from spacy_elstm.treebanks.scoring import SCORER_ASSET, SCORER_ENV, predict, read_gold, score

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "assets" / "ud-ewt-sample"
PAPER = ROOT / "configs" / "paper"
# model -> (architecture, bidirectional, Ts), as the paper sets them
PAPER_MODELS = {
    "pos_rnn": ("spacy-elstm.RecurrentTagger.v1", False, 1),
    "pos_brnn": ("spacy-elstm.RecurrentTagger.v1", True, 1),
    "pos_dbrnn": ("spacy-elstm.DBRNNTagger.v1", None, 1),
    "pos_seq2seq": ("spacy-elstm.Seq2SeqTagger.v1", False, 100),
    "pos_seq2seq_att": ("spacy-elstm.Seq2SeqTagger.v1", False, 100),
    "dep_rnn": ("spacy-elstm.RecurrentTagger.v1", False, 100),
    "dep_brnn": ("spacy-elstm.RecurrentTagger.v1", True, 100),
    "dep_dbrnn": ("spacy-elstm.DBRNNTagger.v1", None, 100),
    "dep_seq2seq": ("spacy-elstm.Seq2SeqTagger.v1", False, 100),
    "dep_seq2seq_att": ("spacy-elstm.Seq2SeqTagger.v1", False, 100),
}


def component(name):
    return "elstm_seq_parser" if name.startswith("dep_") else "elstm_tagger"
SCRIPT = Path(os.environ.get(SCORER_ENV) or ROOT / SCORER_ASSET)
# the training run's overrides: the paper's pos_brnn, only small
SMALL = ["--components.elstm_tagger.model.width", "16",
         "--components.elstm_tagger.model.tok2vec.*.embed.layer.nO", "16",
         "--components.elstm_tagger.model.tok2vec.*.embed.layer.nV", "1000"]


def run(*args, **kwargs):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          **kwargs)


@pytest.fixture(scope="module")
def trained(sample_corpus, tmp_path_factory):
    """pos_brnn trained for 40 steps with spacy train: (output folder, its log)."""
    out = tmp_path_factory.mktemp("paper-train")
    result = run("-m", "spacy", "train", PAPER / "pos_brnn.cfg", "--output", out,
                 "--paths.train", sample_corpus / "train.spacy",
                 "--paths.dev", sample_corpus / "dev.spacy",
                 "--paths.train_log", out / "log.jsonl", "--training.max_steps", 40,
                 "--training.eval_frequency", 20, *SMALL)
    assert result.returncode == 0, result.stderr + result.stdout
    return out, [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]


# --- the configs ------------------------------------------------------------------

@pytest.mark.parametrize("name", list(PAPER_MODELS))
def test_the_paper_config_is_valid_and_builds(tmp_path, name):
    from spacy.cli.debug_config import debug_config
    from spacy.cli.init_config import fill_config

    path = PAPER / f"{name}.cfg"
    debug_config(path, overrides={"paths.train": str(SAMPLE / "train.conllu"),
                                  "paths.dev": str(SAMPLE / "dev.conllu")})
    filled = tmp_path / "filled.cfg"
    fill_config(filled, path)
    config = spacy.util.load_config(filled)
    nlp = spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
    assert nlp.pipe_names == [component(name)]
    if name.startswith("pos_"):
        assert nlp.get_pipe("elstm_tagger").attr == "pos"
    else:  # the paper's interleaved target for seq2seq, one label per word otherwise
        assert nlp.get_pipe("elstm_seq_parser").encoding == \
            ("interleaved" if "seq2seq" in name else "relative")


@pytest.mark.parametrize("name", list(PAPER_MODELS))
def test_the_paper_config_has_the_papers_settings(name):
    config = spacy.util.load_config(PAPER / f"{name}.cfg")
    architecture, bidirectional, period = PAPER_MODELS[name]
    assert config["components"][component(name)]["normalize"] is True  # the mean loss
    model = config["components"][component(name)]["model"]
    assert model["@architectures"] == architecture
    assert (model["width"], model["period"], model["dropout"], model["cell"]) == \
           (512, period, 0.0, "elstm")
    assert model.get("depth", 1) == 1
    if bidirectional is not None:
        assert model["bidirectional"] is bidirectional
    features, embed = model["tok2vec"]["*"].values()
    assert features["columns"] == ["LEMMA"] and embed["layer"]["nO"] == 512
    training = config["training"]
    assert (training["max_epochs"], training["max_steps"], training["patience"],
            training["dropout"]) == (11, 0, 0, 0.0)
    assert training["batcher"]["@batchers"] == "spacy.batch_by_sequence.v1"
    assert training["batcher"]["size"] == 20
    assert training["optimizer"]["@optimizers"] == ADAGRAD
    assert training["optimizer"]["learn_rate"] == 0.5
    for split in ("train", "dev"):
        assert config["corpora"][split]["@readers"] == GOLD_LEMMA_CORPUS
        assert config["corpora"][split]["gold_preproc"] is True


def test_the_convseq2seq_config_is_valid_and_builds(tmp_path):
    from spacy.cli.debug_config import debug_config
    from spacy.cli.init_config import fill_config

    path = PAPER / "dep_convseq2seq.cfg"
    debug_config(path, overrides={"paths.train": str(SAMPLE / "train.conllu"),
                                  "paths.dev": str(SAMPLE / "dev.conllu")})
    filled = tmp_path / "filled.cfg"
    fill_config(filled, path)
    nlp = spacy.util.load_model_from_config(spacy.util.load_config(filled), auto_fill=True,
                                            validate=True)
    assert nlp.pipe_names == ["elstm_seq_parser"]
    assert nlp.get_pipe("elstm_seq_parser").encoding == "interleaved"


def test_the_convseq2seq_config_has_table_8s_settings():
    """Table 8's convseq2seq: 4 + 4 layers, kernel 3, embedding 512, dropout,
    NAG at 0.25, 11 epochs; and everything else as dep_seq2seq_att's."""
    config = spacy.util.load_config(PAPER / "dep_convseq2seq.cfg", interpolate=False)
    model = config["components"]["elstm_seq_parser"]["model"]
    assert model["@architectures"] == "spacy-elstm.ConvSeq2SeqTagger.v1"
    assert (model["enc_layers"], model["dec_layers"], model["kernel_size"]) == (4, 4, 3)
    assert model["width"] == 512 and model["label_width"] is None  # the embedding's, 512
    assert model["tok2vec"]["*"]["embed"]["layer"]["nO"] == 512
    assert model["interleaved"] is True and 0 < model["dropout"] < 1
    optimizer = config["training"]["optimizer"]
    assert optimizer["@optimizers"] == NAG
    # Gehring et al.'s clipping: all gradients together to a norm of 0.1, none per parameter
    assert (optimizer["learn_rate"], optimizer["momentum"], optimizer["grad_clip"]) == \
           (0.25, 0.99, 0.0)
    assert config["components"]["elstm_seq_parser"]["max_grad_norm"] == 0.1
    other = spacy.util.load_config(PAPER / "dep_seq2seq_att.cfg", interpolate=False)
    assert model["tok2vec"] == other["components"]["elstm_seq_parser"]["model"]["tok2vec"]
    for config_ in (config, other):
        config_["components"]["elstm_seq_parser"].pop("model")
        config_["components"]["elstm_seq_parser"].pop("max_grad_norm", None)
        config_["training"].pop("optimizer")
    assert config == other


def test_a_short_paper_training_runs_and_learns(trained):
    out, log = trained
    assert (out / "model-last").is_dir()
    assert [record["step"] for record in log] == [0, 20, 40]
    assert log[-1]["scores"]["pos_acc"] > log[0]["scores"]["pos_acc"]


@pytest.mark.skipif(not SCRIPT.is_file(), reason=f"the CoNLL 2018 evaluation script is not at "
                    f"{SCRIPT}: run `python -m spacy project assets` or set {SCORER_ENV}")
def test_the_interleaved_paper_parser_trains_and_is_scored_officially(sample_corpus, tmp_path):
    small = [arg.replace("elstm_tagger", "elstm_seq_parser") for arg in SMALL]
    result = run("-m", "spacy", "train", PAPER / "dep_seq2seq_att.cfg", "--output", tmp_path,
                 "--paths.train", sample_corpus / "train.spacy",
                 "--paths.dev", sample_corpus / "dev.spacy", "--training.max_steps", 4,
                 "--training.eval_frequency", 2, *small,
                 "--components.elstm_seq_parser.model.label_width", 16)
    assert result.returncode == 0, result.stderr + result.stdout
    output = tmp_path / "scores.json"
    result = run("-m", "spacy_elstm", "score", tmp_path / "model-last", SAMPLE / "dev.conllu",
                 "--output", output, "--scorer", SCRIPT, "--gold-lemmas")
    assert result.returncode == 0, result.stderr
    scores = json.loads(output.read_text())
    assert scores["input"] == "gold lemmas" and 0.0 <= scores["LAS"] <= scores["UAS"] <= 100.0
    assert "overrides" not in scores
    # beam search, set by a config override as the pipeline loads; a bad value is named
    beam = tmp_path / "beam.json"
    result = run("-m", "spacy_elstm", "score", tmp_path / "model-last", SAMPLE / "dev.conllu",
                 "--output", beam, "--scorer", SCRIPT, "--gold-lemmas",
                 "--components.elstm_seq_parser.model.beam_width", 3)
    assert result.returncode == 0, result.stderr
    scores = json.loads(beam.read_text())
    assert scores["overrides"] == {"components.elstm_seq_parser.model.beam_width": 3}
    assert 0.0 <= scores["LAS"] <= scores["UAS"] <= 100.0
    result = run("-m", "spacy_elstm", "score", tmp_path / "model-last", SAMPLE / "dev.conllu",
                 "--scorer", SCRIPT, "--components.elstm_seq_parser.model.beam_width", 0)
    assert result.returncode == 1
    assert "beam_width must be a positive integer, got 0" in result.stderr


# --- the reader -------------------------------------------------------------------

def test_the_reader_gives_the_predicted_docs_the_gold_lemmas_only(sample_corpus):
    nlp = spacy.blank("en")
    examples = list(create_gold_lemma_reader(sample_corpus / "dev.spacy", gold_preproc=True)(nlp))
    assert len(examples) == 150  # one per gold sentence
    for example in examples:
        assert [t.lemma_ for t in example.predicted] == [t.lemma_ for t in example.reference]
        for attr in ("TAG", "POS", "MORPH", "DEP", "ENT_IOB"):
            assert not example.predicted.has_annotation(attr), attr
    assert any(t.lemma_ != t.text for eg in examples for t in eg.predicted)


def test_the_reader_is_spacys_corpus_otherwise(sample_corpus):
    nlp = spacy.blank("en")
    ours = list(create_gold_lemma_reader(sample_corpus / "dev.spacy", gold_preproc=True, limit=3)(nlp))
    theirs = list(registry.readers.get("spacy.Corpus.v1")(sample_corpus / "dev.spacy",
                                                          gold_preproc=True, limit=3)(nlp))
    assert [eg.predicted.text for eg in ours] == [eg.predicted.text for eg in theirs]
    assert all(not eg.predicted.has_annotation("LEMMA") for eg in theirs)


def test_a_reference_without_lemmas_is_refused():
    nlp = spacy.blank("en")
    example = Example.from_dict(nlp.make_doc("no lemmas here"), {"pos": ["DET", "NOUN", "ADV"]})
    with pytest.raises(ValueError, match="has no lemmas"):
        copy_gold_lemmas(example)


def test_a_null_path_is_refused():
    with pytest.raises(ValueError, match=f"{GOLD_LEMMA_CORPUS}: path is null"):
        create_gold_lemma_reader(None, gold_preproc=True)


# --- AdaGrad ----------------------------------------------------------------------

def test_adagrad_is_the_hand_computed_update():
    optimizer = create_adagrad(0.5, initial_accumulator_value=0.1, eps=0.0)
    weights = numpy.array([1.0, -2.0, 0.5], dtype="f")
    first = numpy.array([0.5, 1.0, -2.0], dtype="f")
    second = numpy.array([-1.0, 0.0, 3.0], dtype="f")
    weights, _ = optimizer((0, "W"), weights, first.copy())
    # a = 0.1 + g^2 = (0.35, 1.1, 4.1); w - 0.5 * g / sqrt(a)
    expected = [1.0 - 0.25 / 0.35 ** 0.5, -2.0 - 0.5 / 1.1 ** 0.5, 0.5 + 1.0 / 4.1 ** 0.5]
    numpy.testing.assert_allclose(weights, expected, rtol=1e-6)
    weights, gradient = optimizer((0, "W"), weights, second.copy())
    # a = (1.35, 1.1, 13.1)
    expected = [expected[0] + 0.5 / 1.35 ** 0.5, expected[1], expected[2] - 1.5 / 13.1 ** 0.5]
    numpy.testing.assert_allclose(weights, expected, rtol=1e-6)
    assert not gradient.any()
    # another parameter has its own accumulator
    other, _ = optimizer((1, "W"), numpy.zeros(1, dtype="f"), numpy.ones(1, dtype="f"))
    numpy.testing.assert_allclose(other, [-0.5 / 1.1 ** 0.5], rtol=1e-6)


@pytest.mark.parametrize("touched", [0, 3, 40])
def test_adagrad_updates_only_the_touched_rows_of_a_table_to_the_same_numbers(touched):
    """An embedding table's gradient is zero in the rows a batch did not touch;
    skipping them must give exactly the dense update (here: a 1-d view of the
    same numbers, which always takes the dense path)."""
    rng = numpy.random.default_rng(0)
    table = rng.normal(size=(40, 6)).astype("f")
    sparse, dense = create_adagrad(0.5, grad_clip=1.0), create_adagrad(0.5, grad_clip=1.0)
    w_sparse, w_dense = table.copy(), table.copy().ravel()
    for step in range(3):
        gradient = numpy.zeros_like(table)
        rows = rng.choice(40, size=touched, replace=False)
        gradient[rows] = rng.normal(size=(touched, 6))
        w_sparse, g_sparse = sparse(("E", 1), w_sparse, gradient.copy())
        w_dense, g_dense = dense(("E", 1), w_dense, gradient.copy().ravel())
        numpy.testing.assert_array_equal(w_sparse.ravel(), w_dense)
        numpy.testing.assert_array_equal(sparse.mom2[("E", 1)].ravel(), dense.mom2[("E", 1)])
        assert not g_sparse.any() and not g_dense.any()
    assert touched == 0 or not numpy.array_equal(w_sparse, table)


def test_adagrad_eps_and_schedules():
    optimizer = create_adagrad([0.5, 0.25], initial_accumulator_value=0.0, eps=1.0)
    assert isinstance(optimizer, Adagrad) and optimizer.learn_rate == 0.5
    weights, _ = optimizer((0, "W"), numpy.zeros(1, dtype="f"), numpy.full(1, 3.0, dtype="f"))
    numpy.testing.assert_allclose(weights, [-0.5 * 3.0 / (3.0 + 1.0)])
    optimizer.step_schedules()
    assert optimizer.learn_rate == 0.25


def test_a_bad_initial_accumulator_is_refused():
    with pytest.raises(ValueError, match="initial_accumulator_value must be a number >= 0, "
                                         "got -1"):
        create_adagrad(0.5, initial_accumulator_value=-1)


def test_adagrad_trains_a_tagger_with_spacy_update():
    nlp = spacy.blank("en")
    model = {"@architectures": "spacy-elstm.RecurrentTagger.v1", "width": 16, "cell": "elstm",
             "period": 1,
             "tok2vec": {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None,
                         "width": 16, "depth": 1, "embed_size": 300, "window_size": 1,
                         "maxout_pieces": 2, "subword_features": True}}
    nlp.add_pipe("elstm_tagger", config={"attr": "pos", "model": model})
    rows = [("I like green eggs", ["PRON", "VERB", "ADJ", "NOUN"]),
            ("Eat blue ham", ["VERB", "ADJ", "NOUN"])]
    examples = [Example.from_dict(nlp.make_doc(text), {"pos": pos}) for text, pos in rows]
    fix_random_seed(0)
    nlp.initialize(lambda: examples)
    optimizer = create_adagrad(0.05)
    losses = []
    for _ in range(20):
        step = {}
        nlp.update(examples, sgd=optimizer, losses=step)
        losses.append(step["elstm_tagger"])
    assert losses[-1] < 0.5 * losses[0], losses
    assert optimizer.mom2  # the accumulators, per parameter


# --- NAG ---------------------------------------------------------------------------

def _torch_nag(weights, gradients, *, clip, **settings):
    import torch

    param = torch.nn.Parameter(torch.tensor(weights))
    optimizer = torch.optim.SGD([param], nesterov=True, **settings)
    for gradient in gradients:
        param.grad = torch.tensor(gradient)
        if clip:
            torch.nn.utils.clip_grad_norm_([param], clip)
        optimizer.step()
    return param.detach().numpy()


@pytest.mark.parametrize("clip", [0.0, 0.1])
def test_nag_is_torchs_sgd_with_nesterov_momentum(clip):
    """Gehring et al.'s setting (momentum 0.99, clipping at 0.1, learning rate
    0.25) against torch.optim.SGD(nesterov=True), over gradients of norms
    below and above the clipping threshold."""
    rng = numpy.random.default_rng(0)
    weights = rng.normal(size=(4, 3))
    gradients = [rng.normal(size=(4, 3)) * scale for scale in (0.01, 1.0, 0.02, 3.0, 0.05)]
    optimizer = create_nag(0.25, momentum=0.99, grad_clip=clip)
    ours = weights.copy()
    for gradient in gradients:
        ours, left = optimizer((0, "W"), ours, gradient.copy())
        assert not left.any()
    expected = _torch_nag(weights, gradients, clip=clip, lr=0.25, momentum=0.99)
    # torch divides by the norm + 1e-6 when it clips
    numpy.testing.assert_allclose(ours, expected, rtol=1e-5 if clip else 1e-12, atol=1e-12)
    assert not numpy.allclose(ours, weights - 0.25 * sum(gradients))  # the momentum acts


def test_nag_keeps_a_velocity_per_parameter_and_takes_l2_and_schedules():
    optimizer = create_nag([0.5, 0.25], momentum=0.5, grad_clip=0.0, L2=0.1)
    assert isinstance(optimizer, NesterovSGD) and optimizer.learn_rate == 0.5
    weights, _ = optimizer((0, "W"), numpy.ones(1), numpy.ones(1))
    # g = 1 + 0.1 * 1; b = g; w = 1 - 0.5 * (g + 0.5 * b)
    numpy.testing.assert_allclose(weights, [1 - 0.5 * 1.1 * 1.5])
    other, _ = optimizer((1, "W"), numpy.zeros(1), numpy.ones(1))
    numpy.testing.assert_allclose(other, [-0.5 * 1.5])
    optimizer.step_schedules()
    assert optimizer.learn_rate == 0.25
    expected = _torch_nag(numpy.ones(1), [numpy.ones(1), numpy.full(1, 2.0)], clip=0.0,
                          lr=0.5, momentum=0.5, weight_decay=0.1)
    optimizer = create_nag(0.5, momentum=0.5, grad_clip=0.0, L2=0.1)
    weights = numpy.ones(1)
    for gradient in (1.0, 2.0):
        weights, _ = optimizer((0, "W"), weights, numpy.full(1, gradient))
    numpy.testing.assert_allclose(weights, expected, rtol=1e-12)


@pytest.mark.parametrize("momentum", [1.0, -0.1, True])
def test_a_bad_momentum_is_refused(momentum):
    with pytest.raises(ValueError, match=rf"{NAG}: momentum must be a number in \[0, 1\), "
                                         rf"got {momentum!r}"):
        create_nag(0.25, momentum=momentum)


def test_the_names_come_by_entry_point_without_import():
    code = ("import sys\n"
            "from spacy.util import registry\n"
            "assert 'spacy_elstm' not in sys.modules\n"
            f"registry.optimizers.get({ADAGRAD!r})\n"
            f"registry.optimizers.get({NAG!r})\n"
            f"registry.readers.get({GOLD_LEMMA_CORPUS!r})\n")
    result = run("-c", code)
    assert result.returncode == 0, result.stderr


# --- score --gold-lemmas ---------------------------------------------------------

def test_predict_gives_the_input_the_gold_lemmas_when_asked(trained):
    nlp = spacy.load(trained[0] / "model-last")
    gold = read_gold(SAMPLE / "dev.conllu", nlp.vocab)[:20]
    with_lemmas, _ = predict(nlp, gold, gold_lemmas=True)
    words_only, _ = predict(nlp, gold)
    assert [[t.lemma_ for t in d] for d in with_lemmas] == [[t.lemma_ for t in s.doc] for s in gold]
    assert not any(d.has_annotation("LEMMA") for d in words_only)
    # the tagger reads the lemmas: without them its tags change
    assert [[t.pos_ for t in d] for d in with_lemmas] != [[t.pos_ for t in d] for d in words_only]


@pytest.mark.skipif(not SCRIPT.is_file(), reason=f"the CoNLL 2018 evaluation script is not at "
                    f"{SCRIPT}: run `python -m spacy project assets` or set {SCORER_ENV}")
def test_score_command_with_gold_lemmas(trained, tmp_path):
    model = trained[0] / "model-last"
    results = {}
    for flag in ([], ["--gold-lemmas"]):
        output = tmp_path / f"scores{len(flag)}.json"
        result = run("-m", "spacy_elstm", "score", model, SAMPLE / "dev.conllu", "--output",
                     output, "--scorer", SCRIPT, *flag)
        assert result.returncode == 0, result.stderr
        results[bool(flag)] = json.loads(output.read_text())
    assert results[True]["input"] == "gold lemmas" and results[False]["input"] == "words"
    assert results[True]["UPOS"] != results[False]["UPOS"]
    assert score(model, SAMPLE / "dev.conllu", scorer=SCRIPT, gold_lemmas=True)["UPOS"] == \
           results[True]["UPOS"]


@pytest.mark.parametrize("env,message", [
    ({"OWN": "abc", "MODELS": "pos_seq2seq"}, "OWN must be a number in [0, 1], got 'abc'"),
    ({"OWN": "1.5", "MODELS": "pos_seq2seq"}, "OWN must be a number in [0, 1], got '1.5'"),
    ({"OWN": "0.25", "MODELS": "pos_seq2seq pos_rnn"},
     "OWN applies to the seq2seq models only (pos_seq2seq, pos_seq2seq_att, dep_seq2seq, "
     "dep_seq2seq_att), not pos_rnn"),
    ({"OWN": "0.25", "NORMALIZE": "false", "MODELS": "pos_seq2seq"},
     "OWN and NORMALIZE=false do not go together"),
    ({"CLIP": "x", "MODELS": "dep_dbrnn"}, "CLIP must be a number > 0, got 'x'"),
    ({"CLIP": "0.0", "MODELS": "dep_dbrnn"}, "CLIP must be a number > 0, got '0.0'"),
    ({"CLIP": "5", "OWN": "0.25", "MODELS": "dep_seq2seq"},
     "CLIP goes with neither OWN nor NORMALIZE=false"),
    ({"SEED": "one", "MODELS": "pos_rnn"}, "SEED must be a whole number >= 0, got 'one'"),
    ({"SEED": "-1", "MODELS": "pos_rnn"}, "SEED must be a whole number >= 0, got '-1'"),
    ({"CLIP": "5", "MODELS": "dep_brnn dep_tdp"},
     "OWN, CLIP and NORMALIZE apply to the recurrent models only, not dep_tdp"),
    ({"NORMALIZE": "false", "MODELS": "dep_tdp"},
     "OWN, CLIP and NORMALIZE apply to the recurrent models only, not dep_tdp"),
])
def test_paper_tables_refuses_a_bad_scheduled_sampling_run_before_training(env, message):
    """scripts/paper_tables.sh checks OWN, CLIP and SEED before it trains anything."""
    result = subprocess.run(["bash", str(ROOT / "scripts" / "paper_tables.sh")],
                            cwd=ROOT, capture_output=True, text=True, timeout=60,
                            env={**os.environ, **env})
    assert result.returncode == 2
    assert message in result.stderr
    assert "===" not in result.stdout


@pytest.mark.parametrize("env,message", [
    ({"WIDTHS": "4 x"}, "WIDTHS must be positive integers, got 'x'"),
    ({"WIDTHS": "0"}, "WIDTHS must be positive integers, got '0'"),
    ({"MODELS": "pos_seq2seq pos_brnn"}, "beam search is for the seq2seq models, not pos_brnn"),
])
def test_paper_beam_refuses_bad_settings_before_scoring(env, message):
    result = subprocess.run(["bash", str(ROOT / "scripts" / "paper_beam.sh")], cwd=ROOT,
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, **env})
    assert result.returncode == 2
    assert message in result.stderr
    assert "===" not in result.stdout
