"""Parse one sentence with a trained pipeline and print its analysis as a table.

Usage:
    python scripts/demo.py training/sample-elstm_brnn/model-best ["Some text."]
"""
import argparse

import spacy

DEFAULT_TEXT = "The quick brown fox jumped over the lazy dog near the river bank."
COLUMNS = ("text", "tag_", "pos_", "morph", "dep_", "head")


def rows(doc):
    for token in doc:
        yield (
            token.text,
            token.tag_,
            token.pos_,
            str(token.morph) or "_",
            token.dep_,
            token.head.text,
        )


def format_table(header, body):
    table = [header, *body]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="pipeline directory or installed package name")
    parser.add_argument("text", nargs="?", default=DEFAULT_TEXT, help="text to parse")
    args = parser.parse_args(argv)
    nlp = spacy.load(args.model)
    doc = nlp(args.text)
    print(format_table(COLUMNS, list(rows(doc))))


if __name__ == "__main__":
    main()
