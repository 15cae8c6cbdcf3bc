"""The tok2vec's recurrent encoder at a pipeline's own shapes (issue 43): the
batches it meets when the pipeline parses a CoNLL-U file (batches of 256
sentences, the embedding's output as input), timed five ways in interleaved
rounds, one thread:

- ``thinc layer``: the encoder as the pipeline calls it, the thinc/torch
  boundary included (flattening the docs' arrays, numpy to torch and back,
  splitting the output per doc);
- ``torch module``: the same module called on the flat torch tensor and the
  lengths (its packing in and out included, the boundary not);
- ``recurrence``: the module's packed run alone, the packing built beforehand;
- ``torch.nn.LSTM``: torch's own LSTM of the same depth, width and direction on
  the same batches, packed beforehand (``PackedSequence``);
- ``torch.nn.LSTM, packing included``: the same, padding and packing the flat
  tensor and unpacking its output each batch (``pad_sequence``,
  ``pack_padded_sequence``, ``pad_packed_sequence``: what spaCy's
  ``TorchBiLSTMEncoder`` does around torch's LSTM).

``--train`` times forward and backward (the gradient of the output's sum) for
the module, its recurrence and torch's LSTM. The boundary's cost is the
thinc layer's time less the module's; packing's is the module's less the
recurrence's. torch's LSTM has no residual connections, layer norm or
per-position scaling factors: it is the floor a plain LSTM reaches at these
shapes, not the same model.

    python -m lab.encoder_profile configs/best_elstm.cfg [--data dev.conllu] [--rounds 5] [--train] [--output metrics/profile-encoder.json]
"""
import argparse
import json
import platform
import statistics
import time
from pathlib import Path
from typing import Callable, Dict, List

import torch
from spacy.util import minibatch
from thinc.api import Model

from spacy_elstm.benchmarks.pipelines import build_from_config, load_examples
from spacy_elstm.benchmarks.timing import cpu_model
from spacy_elstm.files import write_atomically
from spacy_elstm.pytorch.mode import training_mode
from spacy_elstm.pytorch.packing import Packing

BATCH_DOCS = 256


def encoder_of(nlp) -> Model:
    """The recurrent encoder layer of the pipeline's tok2vec component."""
    tok2vec = nlp.get_pipe("tok2vec").model
    encode = tok2vec.layers[-1]
    if not encode.layers or not encode.layers[0].shims:
        raise SystemExit(f"the tok2vec's encoder ({encode.name}) is not a torch sequence encoder")
    return encode


def lstm_like(input_width: int, width: int, depth: int,
              bidirectional: bool) -> torch.nn.LSTM:
    """torch's LSTM of the encoder's shapes: ``width`` outputs in all, split
    between the directions as the encoder splits them."""
    hidden = width // 2 if bidirectional else width
    return torch.nn.LSTM(input_width, hidden, num_layers=depth, bidirectional=bidirectional)


def _time_into(func: Callable[[], None], rounds: List[float]) -> None:
    start = time.perf_counter()
    func()
    rounds.append(time.perf_counter() - start)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", help="a config (built untrained) or a trained pipeline folder")
    parser.add_argument("--data", type=Path,
                        default=Path("assets/UD_English-EWT/en_ewt-ud-dev.conllu"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--train", action="store_true",
                        help="time forward and backward, not inference")
    parser.add_argument("--output", type=Path, default=Path("metrics/profile-encoder.json"))
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be >= 1, got {args.rounds}")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    nlp, trained = build_from_config(args.config)
    examples = load_examples(args.data, nlp.vocab, None)
    if not trained:
        nlp.initialize(lambda: examples)
    tok2vec = nlp.get_pipe("tok2vec").model
    embed, encode = tok2vec.layers[0], encoder_of(nlp)
    module = encode.layers[0].shims[0]._model
    config = nlp.config["components"]["tok2vec"]["model"]["encode"]
    depth, bidirectional = int(config["depth"]), bool(config["bidirectional"])
    width, input_width = encode.get_dim("nO"), encode.get_dim("nI")
    reference = lstm_like(input_width, width, depth, bidirectional)

    batches = []  # (the docs' input arrays, the flat tensor, the lengths, its packing)
    for chunk in minibatch([e.predicted for e in examples], size=BATCH_DOCS):
        Xs = embed.predict(list(chunk))
        flat = torch.from_numpy(encode.ops.flatten(Xs).copy())
        lengths = torch.tensor([len(X) for X in Xs], dtype=torch.int64)
        batches.append((Xs, flat, lengths, Packing(lengths, flat.device)))
    words = sum(int(b[2].sum()) for b in batches)
    packed = [torch.nn.utils.rnn.pack_sequence(list(torch.split(flat, lengths.tolist())),
                                               enforce_sorted=False)
              for _, flat, lengths, _ in batches]

    def thinc_layer():
        for Xs, _, _, _ in batches:
            encode.predict(Xs)

    def torch_module():
        for _, flat, lengths, _ in batches:
            if args.train:
                x = flat.clone().requires_grad_()
                with training_mode(True):
                    module(x, lengths, flat=True).sum().backward()
            else:
                with training_mode(False), torch.no_grad():
                    module(flat, lengths, flat=True)

    def recurrence():
        for _, flat, _, packing in batches:
            if args.train:
                x = packing.from_flat(flat).requires_grad_()
                with training_mode(True):
                    module.run(x, packing).sum().backward()
            else:
                x = packing.from_flat(flat)
                with training_mode(False), torch.no_grad():
                    module.run(x, packing)

    def lstm_packed():
        for seq in packed:
            if args.train:
                data = seq.data.clone().requires_grad_()
                seq = torch.nn.utils.rnn.PackedSequence(data, seq.batch_sizes,
                                                        seq.sorted_indices, seq.unsorted_indices)
                reference(seq)[0].data.sum().backward()
            else:
                with torch.no_grad():
                    reference(seq)

    def lstm_with_packing():
        for _, flat, lengths, _ in batches:
            x = flat.clone().requires_grad_() if args.train else flat
            with torch.set_grad_enabled(args.train):
                padded = torch.nn.utils.rnn.pad_sequence(list(torch.split(x, lengths.tolist())),
                                                         batch_first=True)
                seq = torch.nn.utils.rnn.pack_padded_sequence(padded, lengths, batch_first=True,
                                                              enforce_sorted=False)
                out, _ = torch.nn.utils.rnn.pad_packed_sequence(reference(seq)[0],
                                                                batch_first=True)
                y = out[torch.arange(out.shape[1]) < lengths[:, None]]  # the docs in turn
                if args.train:
                    y.sum().backward()

    ways: Dict[str, Callable[[], None]] = {}
    if not args.train:
        ways["thinc layer"] = thinc_layer
    ways.update({"torch module": torch_module, "recurrence": recurrence,
                 "torch.nn.LSTM": lstm_packed, "torch.nn.LSTM, packing included": lstm_with_packing})
    for func in ways.values():  # warm-up: torch's and oneDNN's caches
        func()
    rounds: Dict[str, List[float]] = {name: [] for name in ways}
    for _ in range(args.rounds):
        for name, func in ways.items():
            _time_into(func, rounds[name])
    seconds = {name: statistics.median(values) for name, values in rounds.items()}
    lengths_all = torch.cat([b[2] for b in batches]).float()
    out = {
        "benchmark": "encoder_profile", "mode": "train" if args.train else "predict",
        "config": args.config, "data": args.data.name, "rounds": args.rounds,
        "encoder": {"architecture": config.get("@architectures"), "cell": config.get("cell"),
                    "width": width, "input_width": input_width, "depth": depth,
                    "bidirectional": bidirectional},
        "batches": len(batches), "batch_docs": BATCH_DOCS, "words": words,
        "mean_length": round(float(lengths_all.mean()), 2),
        "seconds": seconds,
        "words_per_second": {name: words / s for name, s in seconds.items()},
        "environment": {"torch": torch.__version__, "threads": 1, "cpu": cpu_model(),
                        "machine": platform.machine(), "python": platform.python_version()},
    }
    write_atomically(args.output, (json.dumps(out, indent=2) + "\n").encode("utf8"))
    reference_s = seconds["torch.nn.LSTM"]
    print(f"{args.config}: {len(batches)} batches of up to {BATCH_DOCS} sentences, {words:,} words")
    for name, s in seconds.items():
        print(f"  {name:34s} {s:7.3f} s  {words / s:10,.0f} words/s  "
              f"{reference_s / s:5.2f}x torch.nn.LSTM")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
