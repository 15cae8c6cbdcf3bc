"""spaCy architectures: the one place where the registered names live, by family
(encoders, embeddings, tok2vec, taggers, parsers), each builder checking its arguments
through ``validation``.

Each name is registered by decorator and again, identically, as an entry point
in pyproject.toml (``spacy_elstm.architectures:build_...``), so a packaged
pipeline loads without an import.
"""
from .embeddings import CHAR_RECURRENT_EMBED, build_char_recurrent_embed
from .encoders import (DBRNN_ENCODER, DBRNN_ENCODER_V2, DEFAULT_DROPOUT, DEFAULT_INPUT_DROPOUT,
                       DEFAULT_LAYER_NORM, DEFAULT_PROJECTION, DEFAULT_RESIDUAL,
                       DEFAULT_WORD_DROPOUT, DIRECTIONS_ATTR, RECURRENT_ENCODER,
                       RECURRENT_ENCODER_V2, build_dbrnn_encoder, build_dbrnn_encoder_v2,
                       build_recurrent_encoder, build_recurrent_encoder_v2)
from .parsers import BIAFFINE_PARSER, build_biaffine_parser
from .taggers import (CONV_SEQ2SEQ_TAGGER, DBRNN_TAGGER, LABEL_RECURRENT_TAGGER,
                      RECURRENT_TAGGER, SEQ2SEQ_TAGGER, SEQ2SEQ_TAGGER_V2,
                      build_conv_seq2seq_tagger, build_dbrnn_tagger,
                      build_label_recurrent_tagger, build_recurrent_tagger,
                      build_seq2seq_tagger, build_seq2seq_tagger_v2)
from .tok2vec import SENTENCE_TOK2VEC, build_sentence_tok2vec
from .validation import ARG_RULES, MAX_PERIOD, check_encoder_args

__all__ = [
    "CHAR_RECURRENT_EMBED", "build_char_recurrent_embed",
    "DBRNN_ENCODER", "DBRNN_ENCODER_V2", "RECURRENT_ENCODER", "RECURRENT_ENCODER_V2",
    "DEFAULT_DROPOUT", "DEFAULT_INPUT_DROPOUT", "DEFAULT_LAYER_NORM", "DEFAULT_PROJECTION",
    "DEFAULT_RESIDUAL", "DEFAULT_WORD_DROPOUT", "DIRECTIONS_ATTR",
    "build_dbrnn_encoder", "build_dbrnn_encoder_v2", "build_recurrent_encoder",
    "build_recurrent_encoder_v2",
    "BIAFFINE_PARSER", "build_biaffine_parser",
    "CONV_SEQ2SEQ_TAGGER", "DBRNN_TAGGER", "LABEL_RECURRENT_TAGGER", "RECURRENT_TAGGER",
    "SEQ2SEQ_TAGGER", "SEQ2SEQ_TAGGER_V2", "build_conv_seq2seq_tagger", "build_dbrnn_tagger",
    "build_label_recurrent_tagger", "build_recurrent_tagger", "build_seq2seq_tagger",
    "build_seq2seq_tagger_v2",
    "SENTENCE_TOK2VEC", "build_sentence_tok2vec",
    "ARG_RULES", "MAX_PERIOD", "check_encoder_args",
]
