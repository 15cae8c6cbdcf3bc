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


def configs_run(bench: Dict[str, Any], file_name: str) -> str:
    """How a `spacy-elstm benchmark configs` run timed its pipelines (data,
    words, rounds, threads, machine, torch), for a line under its numbers."""
    rows = [r for r in bench["rows"] if r["mode"] == "predict"]
    env = bench.get("environment", {})
    words = ", ".join(f"{w:,}" for w in sorted({r["words"] for r in rows}))
    return (f"inference on `{bench['data']}` ({words} words, batches of 256 docs), every "
            f"pipeline in the same run (`spacy-elstm benchmark configs`, `metrics/{file_name}`), "
            f"median of {rows[0]['repeats']} interleaved rounds, {env.get('threads', '?')} "
            f"thread(s) of {env.get('cpu') or env.get('machine', '?')}, torch "
            f"{env.get('torch', '?')}; `× {bench['reference']}` is the ratio to "
            f"`{bench['reference']}` in that run")


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


def parse_section(path: Path) -> Optional[str]:
    """The corpus parsing benchmark table of `path` (`spacy-elstm benchmark
    parse`); None without the file, or (with a warning) if it is unreadable."""
    return _section(path, _parse_table, None)


def _parse_table(path: Path, data: Dict[str, Any]) -> str:
    rows = data["rows"]
    base = rows[0]["words_per_second"]
    lines = [[r["name"], f"{r['words']:,}", f"{r['words_per_second']:,.0f}",
              f"{r['words_per_second'] / base:.2f}",
              f"{r['words_per_second'] / r['n_process']:,.0f}", f"{r['seconds']:.1f}",
              f"{r['cluster_start_seconds']:.1f} (cluster)" if "cluster_start_seconds" in r
              else f"{r['load_seconds']:.1f} (load)",
              ", ".join(f"{b / 2**20:.0f}" for b in r["worker_peak_rss_bytes"])]
             for r in rows]
    env, ratios, overhead = data["environment"], data["ratios"], data["ray_overhead"]
    n = data["n_process"]
    load = ", ".join(f"{x:.1f}" for x in env.get("load_average_before", [])[:1]
                     + env.get("load_average_after", [])[:1])
    note = (f"`spacy-elstm parse` of `{data['model']}` over the text of `{data['data']}`, "
            f"{data['shard_size']} docs a shard, batches of {data['batch_size']}; each setting "
            f"in a fresh process into a fresh folder, one torch thread per worker; "
            f"{_hardware(env)}, {env.get('cpus', '?')} CPUs"
            + (f" (1-minute load average {load} before and after: other jobs shared them)"
               if load else "") + f". From `{path.as_posix()}`.")
    summary = (f"--n-process {n} ÷ 1 process: **{ratios['n_process_vs_one']:.2f}** "
               f"(target ≥ 1.6); Ray ÷ --n-process {n}: **{ratios['ray_vs_n_process']:.2f}** "
               f"(target ≥ 0.8). Ray's overhead: {overhead['cluster_start_seconds']:.1f} s to "
               f"start the local cluster, and {overhead['extra_parse_seconds']:+.1f} s of "
               f"parse time against --n-process {n}. *Parse s* counts reading, parsing, "
               f"writing and starting the workers (Ray's actors load the pipeline, "
               f"--n-process's workers are forked with it); *start s* is the driver's pipeline load, "
               f"or the cluster's start, outside it.")
    ceiling = data.get("machine_parallel_speedup")
    if ceiling:
        summary += (f" The machine's own ceiling, measured in the same run: {n} processes of "
                    f"a fixed CPU-bound loop at once run at **{ceiling['speedup']:.2f}×** one "
                    f"alone (N free cores give N×), so no {n}-process setting can be expected "
                    f"above that here.")
    return note + "\n\n" + table(["setting", "words", "words/s", "× 1 process",
                                   "words/s per worker", "parse s", "start s",
                                   "peak MiB per worker"], lines) + "\n\n" + summary


RAW_KINDS = {"learned": "as trained: the adapted tokenizer, `elstm_senter`",
             "learned_without_senter": "the adapted tokenizer, the parser splitting sentences",
             "spacy_rules": "spaCy's rule tokenizer, the parser splitting sentences"}


def raw_speed_section(path: Path) -> Optional[str]:
    """Whole pipelines on raw text (`python -m lab.raw_speed`); None if it has not run."""
    data = read_json(path)
    if data is None:
        return None
    rows = [[r["name"], RAW_KINDS.get(r["tokenizer"], r["tokenizer"]), f"{r['words']:,}",
             f"{r['words_per_second']:,.0f}", f"{r['vs_spacy_rules']:.2f}"] for r in data["rows"]]
    return (table(["pipeline", "tokenizer and sentences", "words", "words/s", "× spaCy's rules"],
                  rows)
            + f"\n\nEach trained pipeline of `configs/raw/` (or `configs/experiments/raw/`) "
              f"on the raw text of EWT "
              f"{data['split']}'s {data['documents']} documents (`nlp.pipe`, batches of "
              f"{data['batch_size']}), median of {data['rounds']} interleaved rounds, "
              f"{data['threads']} thread, torch {data['torch']} (`python -m lab.raw_speed`, "
              f"`metrics/{path.name}`); `× spaCy's rules`: against the same pipeline with "
              "spaCy's English rule tokenizer and no `elstm_senter`, in the same run.")


# the tok2vec layers `lab.pipeline_profile` times, in the order shown
LAYERS = {"embed": "embedding", "embed/words": "embedding: hashed word features",
          "embed/chars": "embedding: characters", "embed/mix": "embedding: mixing layer",
          "encode": "encoder"}


def profile_section(path: Path) -> Optional[str]:
    """Where each pipeline's inference time goes (`python -m lab.pipeline_profile`)."""
    return _section(path, _profile_table, "_No profile yet._")


def _profile_table(path: Path, data: Dict[str, Any]) -> str:
    results = data["results"]
    names = list(results)
    parts: List[str] = []
    for result in results.values():  # the tokenizer, then the components in pipeline order
        for part in ["tokenizer"] + result["components"] + ["optimizer"]:
            layers = [f"{part}/{layer}{way}" for layer in LAYERS for way in ("", ":backward")
                      ] if "tok2vec" in part else []
            parts += [k for k in [part] + layers if k in result["seconds"] and k not in parts]
    rows = []
    for part in parts:
        component, _, layer = part.partition("/")
        layer, backward, _ = layer.partition(":")
        label = (f"{component}: {LAYERS[layer]}{' (backward)' if backward else ''}" if layer
                 else "optimizer (every finish_update)" if part == "optimizer" else part)
        cells = []
        for name in names:
            seconds = results[name]["seconds"]
            cells.append("-" if part not in seconds else
                         f"{seconds[part]:.2f} ({100 * seconds[part] / seconds['total']:.0f}%)")
        rows.append([label] + cells)
    rows.append(["whole pipeline, s"] + [f"{results[n]['seconds']['total']:.2f}" for n in names])
    rows.append(["words/s"] + [f"{results[n]['words_per_second']:,.0f}" for n in names])
    every = data.get("every_token", [])
    what = (f"Training (`Language.update`'s steps one by one, batches of "
            f"{data['batch_words']:,} words) on the first words of `{data['data']}`"
            if data.get("mode") == "train" else
            f"Inference on `{data['data']}` ({'raw text' if data['raw'] else 'gold words'}, "
            f"batches of 256 Docs)")
    note = (f"{what}, seconds per pass and share of the whole pipeline, median of "
            f"{data['rounds']} interleaved rounds, {_hardware(data['environment'])}, 1 thread, "
            f"torch {data['environment']['torch']}; "
            "a layer's time includes the layers inside it; word caches emptied before every "
            "round (`python -m lab.pipeline_profile`, "
            f"`metrics/{path.name}`; the pipelines: "
            + ", ".join(f"`{n}` = `{p}`" for n, p in data["pipelines"].items()) + ")"
            + (f". `{'`, `'.join(every)}`: the character embedding reading every token's bytes, "
               "each time, as before it read each distinct word of a batch once and kept "
               "words' vectors between batches" if every else "") + ".")
    return note + "\n\n" + table(["part"] + [f"`{n}`" for n in names], rows)


def encoder_profile_section(path: Path) -> Optional[str]:
    """The tok2vec's encoder at a pipeline's shapes, five ways against torch's
    LSTM (`python -m lab.encoder_profile`); None if it has not run."""
    return _section(path, _encoder_profile_table, None)


def _encoder_profile_table(path: Path, data: Dict[str, Any]) -> str:
    seconds, words = data["seconds"], data["words"]
    reference = seconds["torch.nn.LSTM"]
    rows = [[name, f"{s:.3f}", f"{words / s:,.0f}", f"{reference / s:.2f}"]
            for name, s in seconds.items()]
    enc = data["encoder"]
    train = data["mode"] == "train"
    what = "forward and backward (the gradient of the output's sum)" if train else "inference"
    note = (f"The encoder of `{data['config']}` ({enc['architecture']}, {enc['cell']}, "
            f"{enc['depth']} layers, {enc['width']} wide, "
            f"{'bidirectional' if enc['bidirectional'] else 'forward only'}) on the batches "
            f"it meets parsing `{data['data']}` ({data['batches']} batches of up to "
            f"{data['batch_docs']} sentences, {words:,} words, {data['mean_length']} words a "
            f"sentence on average), {what}, median of {data['rounds']} interleaved rounds, "
            f"{_hardware(data['environment'])}, 1 thread, torch {data['environment']['torch']} "
            f"(`python -m lab.encoder_profile{' --train' if train else ''}`, "
            f"`metrics/{path.name}`). *torch module*: the module on the flat tensor, its "
            "packing included; *recurrence*: its packed run alone; *thinc layer*: the "
            "module as the pipeline calls it, the thinc/torch boundary included; "
            "`torch.nn.LSTM`: torch's LSTM of the same depth and widths on the same "
            "batches, packed beforehand (it has no residual connections, layer norm or "
            "scaling factors: the floor a plain LSTM reaches at these shapes); *packing "
            "included*: padding, packing and unpacking each batch around it, as spaCy's "
            "`TorchBiLSTMEncoder` does.")
    summary = (f"Our module runs at {reference / seconds['torch module']:.2f}× torch's "
               f"packed LSTM here ({reference / seconds['recurrence']:.2f}× for its packed "
               f"run alone)")
    if "thinc layer" in seconds:
        boundary = seconds["thinc layer"] - seconds["torch module"]
        summary += (f"; the thinc/torch boundary costs {boundary:+.3f} s of the layer's "
                    f"{seconds['thinc layer']:.3f} s ({100 * boundary / seconds['thinc layer']:+.0f}%)")
    return (note + "\n\n" + table(["way", "seconds", "words/s", "× torch.nn.LSTM"], rows)
            + "\n\n" + summary + ".")


def parse_memory_section(path: Path) -> Optional[str]:
    """Peak memory of `spacy-elstm parse` against the input's size
    (`python -m lab.parse_memory`); None if it has not run."""
    data = read_json(path)
    if data is None:
        return None
    rows = [[f"{r['input_bytes'] / 1e6:,.0f}", f"{r['lines']:,}",
             f"{r['peak_rss_bytes'] / 2**20:,.0f}", f"{r['seconds']:,.0f}"] for r in data["rows"]]
    return (table(["input MB", "lines", "peak RSS MiB", "seconds"], rows)
            + f"\n\nOne `spacy-elstm parse` process per input (`{data['command']}`, "
              f"`metrics/{path.name}`): pipeline `{data['pipeline']}`, `--shard-size "
              f"{data['shard_size']}`, lines of {data['words_per_line']} words of "
              f"{data['word_length']} characters; the largest input's peak is "
              f"{data['peak_ratio_largest_to_smallest']:.2f}× the smallest's (target: at most "
              f"{data['target_ratio']:.0f}×), as the input is read a line at a time.")


def raw_long_section(path: Path) -> Optional[str]:
    """A long document against the same text in pieces, and each component's
    share of the time on dev (`python -m lab.raw_long_docs`); None before it ran."""
    data = read_json(path)
    if data is None:
        return None
    rate = data["words_per_second"]
    seconds = data["component_seconds"]
    total = sum(seconds.values())
    rows = [[f"`{name}`", f"{value:.3f}", f"{100 * value / total:.1f}"]
            for name, value in seconds.items()]
    return (f"`{data['pipeline']}` ({', '.join(data['pipes'])}) on EWT {data['split']}'s text "
            f"in UD's form: one document of {data['words']:,} words at {rate['one_document']:,.0f} "
            f"words/s, the same text in {data['pieces']} pieces of about {data['piece_words']:,} "
            f"words at {rate['pieces']:,.0f} words/s: **{data['one_document_vs_pieces']:.2f}x**. "
            f"Where the time goes on EWT {data['components_on']} in its own documents (each "
            "component over all of them, median of "
            f"{data['rounds']} rounds, {data['threads']} thread, other jobs sharing the machine); "
            f"the tokenizer and `elstm_senter` take **{100 * data['tokenizer_and_senter_share']:.1f}%** "
            "(`python -m lab.raw_long_docs`, `metrics/bench-raw-long.json`; an untrained or "
            "briefly trained pipeline times as a trained one).\n\n"
            + table(["component", "seconds", "% of the pipeline"], rows))
