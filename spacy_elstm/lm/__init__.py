"""Word-level language models on the recurrent cells (``spacy-elstm lm``): the
text streams (``data``) and training and evaluation (``training``). No
pipeline imports it."""
