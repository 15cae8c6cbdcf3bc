"""Does a trained pipeline's own tok2vec know where sentences end, beyond what
its senter knows? A probe: the pipeline (tokenizer, `elstm_senter`, tok2vec)
reads EWT train and dev in UD's text form; a model over each word's tok2vec
vector and the next word's (linear, or one hidden layer) learns on train
whether a sentence ends after the word (the words before a blank line left
out: a paragraph always ends one); on dev, sentence ends are scored as places
in the text (non-space characters before them, the paragraph ends counted as
found) for the senter alone, the probe alone, and the mean of the two with the
probe's weight, at each threshold.

The senter's own probabilities on train are not used: it learned from those
sentences and is surer of them than of any other text.

    python -m lab.senter_tok2vec_probe training/raw-ud-10000steps/best_elstm/model-best [--output metrics/tokenizers/senter-tok2vec-probe.json]
"""
import argparse
import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy
import torch

from spacy_elstm.components.elstm_senter import word_characters
from spacy_elstm.files import write_json
from spacy_elstm.text.paragraphs import paragraph_breaks
from spacy_elstm.text.wrapping import unwrapped
from spacy_elstm.treebanks.gold_text import raw_documents

from .senter_errors import gold_ends
from .tokenizers import CONLLU, pipeline_with

THRESHOLDS = (0.3, 0.35, 0.4, 0.45, 0.5)
WEIGHTS = (0.25, 0.5)
HIDDEN = (0, 64)  # 0: a linear probe
EPOCHS, BATCH, LEARN_RATE = 4, 256, 1e-3


class Words:
    """Per word of a split's documents: tok2vec features (its vector and the
    next word's), the senter's probability, the gold label, and whether a
    paragraph ends after it."""

    def __init__(self, features, senter, gold, paragraph):
        self.features, self.senter, self.gold, self.paragraph = features, senter, gold, paragraph


def words_of(nlp, split: str) -> Words:
    path = Path(CONLLU.format(split=split))
    documents = raw_documents(path, "ud")
    lengths = gold_ends(path)
    docs = list(nlp.pipe([d.text for d in documents], batch_size=32))
    senter = nlp.get_pipe("elstm_senter")
    texts = [unwrapped(doc.text) for doc in docs]
    by_words = senter.words.end_probabilities(docs, None, texts)
    by_chars = senter._ends_where_unsure(docs, texts, by_words)
    parts: List[Tuple] = []
    start = 0
    for document, doc, word_ends, char_ends in zip(documents, docs, by_words, by_chars):
        gold = set(numpy.cumsum(lengths[start:start + document.sentences]).tolist())
        start += document.sentences
        words, first, last = word_characters(doc)
        if not len(words):
            continue
        before = numpy.concatenate([[0], numpy.cumsum([not c.isspace() for c in doc.text])])
        breaks = paragraph_breaks(doc.text)
        paragraph = numpy.ones(len(words), dtype=bool)  # the text's end, and blank lines
        paragraph[:-1] = (numpy.searchsorted(breaks, first[1:])
                          > numpy.searchsorted(breaks, last[:-1] + 1))
        vectors = doc.tensor[words]
        following = numpy.vstack([vectors[1:], numpy.zeros_like(vectors[:1])])
        parts.append((numpy.hstack([vectors, following]), (char_ends[last] + word_ends) / 2,
                      numpy.isin(before[last + 1], list(gold)), paragraph))
    return Words(*(numpy.concatenate([p[k] for p in parts]) for k in range(4)))


def probe(train: Words, dev: Words, hidden: int) -> numpy.ndarray:
    torch.manual_seed(0)
    inside = ~train.paragraph
    x = torch.from_numpy(train.features[inside].astype("float32"))
    y = torch.from_numpy(train.gold[inside].astype("float32"))
    mean, scale = x.mean(0), x.std(0) + 1e-5
    model = (torch.nn.Sequential(torch.nn.Linear(x.shape[1], hidden), torch.nn.ReLU(),
                                 torch.nn.Linear(hidden, 1))
             if hidden else torch.nn.Linear(x.shape[1], 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARN_RATE, weight_decay=1e-4)
    for _ in range(EPOCHS):
        order = torch.randperm(len(x))
        for k in range(0, len(x), BATCH):
            batch = order[k:k + BATCH]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                model((x[batch] - mean) / scale).squeeze(-1), y[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        found = model((torch.from_numpy(dev.features.astype("float32")) - mean) / scale)
    return torch.sigmoid(found.squeeze(-1)).numpy()


def end_f1(words: Words, ended: numpy.ndarray) -> float:
    ended = ended | words.paragraph
    return round(200 * float((ended & words.gold).sum()) / float(ended.sum() + words.gold.sum()), 2)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("--output", type=Path,
                        default=Path("metrics/tokenizers/senter-tok2vec-probe.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    nlp = pipeline_with(args.pipeline, ("elstm_senter", "tok2vec"))
    train, dev = words_of(nlp, "train"), words_of(nlp, "dev")
    rows: List[Dict[str, Any]] = [{"model": "senter", **{str(t): end_f1(dev, dev.senter > t)
                                                         for t in THRESHOLDS}}]
    for hidden in HIDDEN:
        found = probe(train, dev, hidden)
        rows.append({"model": f"tok2vec probe, hidden {hidden}",
                     **{str(t): end_f1(dev, found > t) for t in THRESHOLDS}})
        for weight in WEIGHTS:
            mixed = (1 - weight) * dev.senter + weight * found
            rows.append({"model": f"senter and probe (hidden {hidden}), probe weight {weight}",
                         **{str(t): end_f1(dev, mixed > t) for t in THRESHOLDS}})
        for row in rows[-3:]:
            print(json.dumps(row), flush=True)
    write_json(args.output, {"pipeline": args.pipeline.as_posix(), "train_words": len(train.gold),
                             "dev_words": len(dev.gold), "score": "sentence-end F1 on dev, UD's "
                             "form, ends as places in the text", "rows": rows})
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
