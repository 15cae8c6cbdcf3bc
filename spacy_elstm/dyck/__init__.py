"""Bounded Dyck-2 languages as a long-distance memory test (second-order LSTM
paper, Sec. 4): the strings (``data``), the bracket prediction metrics LDPA and
WCPA (``metrics``), and the language models trained and scored on them
(``experiment``, run by ``spacy-elstm dyck``)."""
