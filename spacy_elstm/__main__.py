from .cli import app

app(prog_name="spacy-elstm")
