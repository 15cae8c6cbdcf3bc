"""Copy the first N sentences of a CoNLL-U file, unchanged, into a new file.

A sentence is one block of lines ended by a blank line, comment lines
(``# sent_id``, ``# text`` ...) included, so the output is itself valid
CoNLL-U. Used to build the small sample committed under assets/ud-ewt-sample.

Example:
    python scripts/make_sample.py assets/UD_English-EWT/en_ewt-ud-train.conllu \
        assets/ud-ewt-sample/train.conllu 400
"""
import argparse
import sys
from pathlib import Path


def take_sentences(lines, n_sents):
    """Yield lines up to and including the blank line that closes sentence n_sents."""
    seen = 0
    in_block = False
    for line in lines:
        if seen >= n_sents:
            return
        yield line
        if line.strip():
            in_block = True
        elif in_block:
            seen += 1
            in_block = False
    if in_block:
        # The file ended without a closing blank line; close the last block.
        yield "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", type=Path, help="CoNLL-U file to read")
    parser.add_argument("output", type=Path, help="CoNLL-U file to write")
    parser.add_argument("n_sents", type=int, help="number of sentences to keep")
    args = parser.parse_args(argv)
    if args.n_sents < 1:
        parser.error("n_sents must be positive")

    args.output.parent.mkdir(parents=True, exist_ok=True)
    n_sents = n_tokens = 0
    # newline="" keeps the file's own line endings byte for byte.
    with args.input.open(encoding="utf8", newline="") as fin, args.output.open(
        "w", encoding="utf8", newline=""
    ) as fout:
        for line in take_sentences(fin, args.n_sents):
            fout.write(line)
            first = line.split("\t", 1)[0]
            # Count syntactic words: integer IDs only, not ranges (3-4) or empty nodes (5.1).
            if "\t" in line and first.isdigit():
                n_tokens += 1
            elif not line.strip():
                n_sents += 1
    if n_sents < args.n_sents:
        print(f"warning: {args.input} holds only {n_sents} sentences", file=sys.stderr)
    print(f"{args.output}: {n_sents} sentences, {n_tokens} tokens (syntactic words)")


if __name__ == "__main__":
    main()
