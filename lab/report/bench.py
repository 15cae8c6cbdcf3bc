"""The speed page's layer and pipeline benchmark tables, from the
``bench-*.json`` files that `spacy-elstm benchmark` writes."""
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from .common import read_json, table, warn


def _section(path: Path, build: Callable[[Path, Dict[str, Any]], str], absent: str) -> Optional[str]:
    """`build(path, data)`, `absent` if there is no file, None (with a warning)
    if the file lacks what `build` needs."""
    data = read_json(path)
    if data is None:
        return None if path.is_file() else absent
    try:
        return build(path, data)
    except (KeyError, TypeError, ValueError, IndexError) as err:
        problem = f"no key {err}" if isinstance(err, KeyError) else str(err)
        warn(f"{path}: {problem}; skipped.")
        return None


def layers_section(path: Path) -> Optional[str]:
    """The layer benchmark table of `path`; None (with a warning) if unreadable."""
    return _section(path, _layers_table, "_No layer benchmark yet._")


def _layers_table(path: Path, data: Dict[str, Any]) -> str:
    rows = [[r["device"], f"{r['batch']}×{r['length']}×{r['width']}", r["name"],
             r.get("kernel", "-"), f"{r['tokens_per_second']:,.0f}", f"{r['vs_LSTM']:.2f}",
             f"{r['vs_GRU']:.2f}",
             "-" if r.get("peak_memory_bytes") is None else f"{r['peak_memory_bytes'] / 2**20:.0f}"]
            for r in data["rows"]]
    env = data["environment"]
    rounds = sorted({r.get("repeats", data["repeats"]) for r in data["rows"]}, reverse=True)
    note = (f"Forward+backward, one direction, input = hidden width, median of "
            f"{' or '.join(map(str, rounds))} interleaved rounds (the long sequences fewer); "
            f"kernel: the one the registry picked (`Recurrence.kernel_for`); "
            f"{_hardware(env)}; torch {env['torch']}, {env['threads']} threads; allocator: "
            f"{data.get('allocator', 'default')}. From `{path.as_posix()}`.")
    return note + "\n\n" + table(["device", "B×T×W", "layer", "kernel", "tokens/s",
                                   "× nn.LSTM", "× nn.GRU", "peak MiB"], rows)


def _hardware(env: Dict[str, Any]) -> str:
    """Where a benchmark ran: the GPU's name, or the CPU's."""
    if env.get("gpu"):
        return f"GPU: {env['gpu']}"
    return f"CPU: {env.get('cpu') or env.get('processor') or 'unknown'}"


def pipelines_section(path: Path) -> Optional[str]:
    """The pipeline benchmark table of `path`; None (with a warning) if unreadable."""
    return _section(path, _pipelines_table, "_No pipeline benchmark yet._")


def _pipelines_table(path: Path, data: Dict[str, Any]) -> str:
    rows = [[r["name"], r["mode"], f"{r['words']:,}", f"{r['words_per_second']:,.0f}",
             f"{r['vs_spacy-cnn']:.2f}" if "vs_spacy-cnn" in r else "-",
             f"{r['vs_spacy-bilstm']:.2f}" if "vs_spacy-bilstm" in r else "-",
             "-" if r.get("peak_memory_bytes") is None else f"{r['peak_memory_bytes'] / 2**20:.0f}"]
            for r in data["rows"]]
    env = data["environment"]
    repeats = data["rows"][0].get("repeats", 1) if data["rows"] else 1
    note = (f"tok2vec + tagger + parser, width {data['width']}, untrained weights, on "
            f"`{data['data']}`; median of {repeats} interleaved rounds; {_hardware(env)}; "
            f"torch {env['torch']}, "
            f"{env['threads']} threads; allocator: {data.get('allocator', 'default')}. "
            f"From `{path.as_posix()}`.")
    return note + "\n\n" + table(["encoder", "mode", "words", "words/s", "× spaCy CNN",
                                   "× spaCy BiLSTM", "peak MiB"], rows)


def biaffine_decoding_section(path: Path) -> Optional[str]:
    """The biaffine parser's predict, old and new decoders (the file
    ``lab/bench_biaffine_decoding.py`` writes); None without the file."""
    return _section(path, _biaffine_decoding_table, None) if path.is_file() else None


def _biaffine_decoding_table(path: Path, data: Dict[str, Any]) -> str:
    setups = {"sentences": "one doc per sentence", "docs": "whole docs, no boundaries"}
    rows = []
    for setup, r in data["results"].items():
        t = r["seconds"]
        rows.append([setups.get(setup, setup), f"{r['sentences']:,}", f"{r['words']:,}",
                     f"{100 * r['greedy_share']:.1f}",
                     f"{t['decode_old']:.2f} → {t['decode_new']:.2f}", f"{r['decode_speedup']:.2f}",
                     f"{t['labels_old']:.2f} → {t['labels_new']:.2f}", f"{r['labels_speedup']:.2f}",
                     f"{t['predict_old']:.2f} → {t['predict_new']:.2f}",
                     f"{r['predict_speedup']:.2f}",
                     f"{r['words_per_second_old']:,} → {r['words_per_second_new']:,}",
                     f"{r['labels_differing']}"])
    env = data["environment"]
    note = (f"`elstm_biaffine_parser.predict` of `{data['model']}` over the words of "
            f"`{data['corpus']}`, batches of {data['batch_size']} docs, the components before "
            f"it run beforehand: the sentence-by-sentence decoder against the batch one "
            f"(greedy trees found with numpy, Chu-Liu/Edmonds for the rest; the heads "
            f"identical, checked on every doc), the labels' argmax over all scores against "
            f"the head-side `best_labels`; seconds for the whole split, median of "
            f"{data['repeats']} interleaved rounds; {_hardware(env)}; torch {env['torch']}, "
            f"{env['threads']} threads. *Greedy %*: sentences whose best heads already form "
            f"a one-root tree. From `{path.as_posix()}` "
            f"(`python -m lab.bench_biaffine_decoding`).")
    return note + "\n\n" + table(["docs", "sentences", "words", "greedy %", "decode s",
                                   "×", "labels s", "×", "predict s", "×", "words/s",
                                   "labels differing"], rows)


def default_first(metrics: Path, stem: str) -> List[Path]:
    """``stem.json`` (the default settings), then its variants ``stem-*.json``."""
    variants = sorted(metrics.glob(f"{stem}-*.json"))
    return [metrics / f"{stem}.json"] + variants
