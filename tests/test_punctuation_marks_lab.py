"""lab.punctuation_marks: the learned tokenizer without the marks it learned
splits as the rules did before, and keeps its other rules."""
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from lab.punctuation_marks import described, without_marks
from spacy_elstm.text.treebank_tokenizer import NAME


def test_the_marks_taken_out_again_leave_the_mark_on_the_word():
    nlp = spacy.blank("hy", config={"nlp": {"tokenizer": {"@tokenizers": NAME}}})
    words = ["Ես", "գնում", "եմ", "տուն", "։", "Նա", "(", "կարդում", ")", "գիրք", "։"] * 2
    spaces = [True, True, True, False, True, True, False, False, True, False, True] * 2
    gold = Doc(nlp.vocab, words=words, spaces=spaces)
    nlp.tokenizer.initialize(lambda: [Example(nlp.make_doc(gold.text), gold)], nlp=nlp)
    marks = nlp.tokenizer.learned["punctuation_marks"]
    assert marks == {"prefix": [], "suffix": ["։"]} and described(marks) == "suffix ։"
    rules = without_marks(nlp.tokenizer.rules, marks)
    assert [t.text for t in rules("Դու (գրում) նամակ։")] == ["Դու", "(", "գրում", ")", "նամակ։"]
    assert [t.text for t in nlp.tokenizer.rules("Դու նամակ։")] == ["Դու", "նամակ", "։"]
    assert described({"prefix": [], "suffix": []}) == "none"
