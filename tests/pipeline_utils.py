"""Small inline pipelines for the tests: tok2vec + tagger + parser on a few sentences."""
from typing import Dict

import spacy
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import Adam, Config, fix_random_seed

ENCODERS: Dict[str, str] = {
    "elstm": '@architectures = "spacy-elstm.RecurrentEncoder.v1"\nwidth = 32\ncell = "elstm"\nperiod = 3',
    "elstm2": '@architectures = "spacy-elstm.RecurrentEncoder.v1"\nwidth = 32\ncell = "elstm2"\nperiod = 3',
    "elstm-input": '@architectures = "spacy-elstm.RecurrentEncoder.v1"\nwidth = 32\ncell = "elstm"\ngates = "input"',
    "dbrnn": '@architectures = "spacy-elstm.DBRNNEncoder.v1"\nwidth = 32\ncell = "elstm"\nperiod = 3',
    "lstm": '@architectures = "spacy-elstm.RecurrentEncoder.v1"\nwidth = 32\ncell = "lstm"',
    "gru": '@architectures = "spacy-elstm.RecurrentEncoder.v1"\nwidth = 32\ncell = "gru"\ndepth = 2',
    "srn": '@architectures = "spacy-elstm.RecurrentEncoder.v1"\nwidth = 32\ncell = "srn"\nbidirectional = false',
}

CONFIG = """
[nlp]
lang = "en"
pipeline = ["tok2vec", "tagger", "parser"]

[components]

[components.tok2vec]
factory = "tok2vec"

[components.tok2vec.model]
@architectures = "spacy.Tok2Vec.v2"

[components.tok2vec.model.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 32
attrs = ["NORM", "SHAPE"]
rows = [500, 50]
include_static_vectors = false

[components.tok2vec.model.encode]
{encoder}

[components.tagger]
factory = "tagger"

[components.tagger.model]
@architectures = "spacy.Tagger.v2"
nO = null

[components.tagger.model.tok2vec]
@architectures = "spacy.Tok2VecListener.v1"
width = 32

[components.parser]
factory = "parser"
min_action_freq = 1

[components.parser.model]
@architectures = "spacy.TransitionBasedParser.v2"
state_type = "parser"
extra_state_tokens = false
hidden_width = 16
maxout_pieces = 2
use_upper = true
nO = null

[components.parser.model.tok2vec]
@architectures = "spacy.Tok2VecListener.v1"
width = 32
"""

TRAIN = [
    (["I", "like", "green", "eggs"], ["PRP", "VBP", "JJ", "NNS"], [1, 1, 3, 1],
     ["nsubj", "ROOT", "amod", "obj"]),
    (["Eat", "blue", "ham"], ["VB", "JJ", "NN"], [0, 2, 0], ["ROOT", "amod", "obj"]),
    (["She", "reads", "long", "books", "today"], ["PRP", "VBZ", "JJ", "NNS", "NN"],
     [1, 1, 3, 1, 1], ["nsubj", "ROOT", "amod", "obj", "obl"]),
]


def make_nlp(name: str, encoders: Dict[str, str] = ENCODERS):
    """The pipeline with encoder ``name`` of ``encoders`` (a table like ``ENCODERS``)."""
    config = Config().from_str(CONFIG.format(encoder=encoders[name]))
    return spacy.util.load_model_from_config(config, auto_fill=True, validate=True)


def make_examples(nlp):
    examples = []
    for words, tags, heads, deps in TRAIN:
        doc = Doc(nlp.vocab, words=words)
        examples.append(Example.from_dict(doc, {"words": words, "tags": tags, "heads": heads,
                                                 "deps": deps}))
    return examples


def trained_nlp(name: str, n_iter: int = 20, encoders: Dict[str, str] = ENCODERS):
    """Returns (nlp, list of total losses per iteration)."""
    fix_random_seed(0)
    nlp = make_nlp(name, encoders)
    examples = make_examples(nlp)
    nlp.initialize(lambda: examples)
    optimizer = Adam(0.01)
    history = []
    for _ in range(n_iter):
        losses: Dict[str, float] = {}
        nlp.update(examples, sgd=optimizer, losses=losses)
        history.append(losses["tagger"] + losses["parser"])
    return nlp, history


def predictions(nlp, texts):
    """(tag, head, dep) of every token of every text."""
    return [[(t.tag_, t.head.i, t.dep_) for t in doc] for doc in nlp.pipe(texts)]
