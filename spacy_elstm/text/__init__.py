"""Raw text into the treebank's words and sentences: the paragraph rule
(`paragraphs.py`), the input modes (`input_modes.py`: a text cut into docs, and
made a Doc from raw text, one sentence a line or pretokenized words), a text
longer than `spacy-elstm parse --max-length` cut into pieces (`pieces.py`), the
character segmenter's training, windows and labels
(`segmenter.py`, over the network of `pytorch/segmenter.py`) with the settings and
training Docs it shares between the tokenizer and `elstm_senter`, multiword tokens
(`multiword.py`) and the two registered tokenizers (`treebank_tokenizer.py`,
`char_tokenizer.py`). The sentence splitter itself is a component
(`components/elstm_senter.py`).
"""
