"""Read a short paragraph with a trained pipeline: print its sentences, then
each sentence's analysis as a table. A raw-text pipeline (configs/raw/) splits
the sentences and tokenises as its treebank does; a line break inside a
sentence, as in wrapped text, is whitespace like a space.

Usage:
    python scripts/demo.py training/sample/model-best ["Some text."]
"""
import argparse

import spacy

DEFAULT_TEXT = ("I bought this phone last week and it doesn't charge.\n"
                "The store won't take it back. What should I do now?")
COLUMNS = ("text", "tag_", "pos_", "morph", "lemma_", "dep_", "head")


def rows(sentence):
    for token in sentence:
        if token.is_space:
            continue
        yield (token.text, token.tag_, token.pos_, str(token.morph) or "_",
               token.lemma_ or "_", token.dep_, token.head.text)


def format_table(header, body):
    table = [header, *body]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="pipeline directory or installed package name")
    parser.add_argument("text", nargs="?", default=DEFAULT_TEXT, help="text to read")
    args = parser.parse_args(argv)
    nlp = spacy.load(args.model)
    doc = nlp(args.text)
    sentences = list(doc.sents)
    print(f"{len(sentences)} sentences:")
    for k, sentence in enumerate(sentences, 1):
        print(f"  {k}. {' '.join(sentence.text.split())}")
    for k, sentence in enumerate(sentences, 1):
        print(f"\nsentence {k}")
        print(format_table(COLUMNS, list(rows(sentence))))


if __name__ == "__main__":
    main()
