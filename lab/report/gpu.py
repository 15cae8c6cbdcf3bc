"""The GPU check's section of the speed page: what `scripts/gpu_check.sh` wrote
on a lent machine (its files committed to ``metrics/gpu-check/``), against the
CPU's own training log of the same pipeline (``CPU_LOG``)."""
import json
from pathlib import Path
from typing import Any, Dict, List, Optional

from .bench import profile_section
from .common import read_json, read_log, table

FOLDER = "gpu-check"
# the CPU run of configs/biaffine/best_elstm.cfg the GPU config is made from (one thread)
CPU_LOG = Path("converged-10000steps") / "train-biaffine-best_elstm.jsonl"
MARGIN = 0.5  # LAS points under the CPU's converged dev LAS that count as reaching it
# scripts/gpu_check.sh's steps in the order it runs them (its CPU test checks the two agree)
STEPS = ("install", "environment", "profile-train", "train", "score", "bench", "raw-train",
         "raw-score", "tests")


def _las_curve(log: List[Dict[str, Any]]) -> List[tuple]:
    return [(r["seconds"], 100 * r["scores"]["dep_las"]) for r in log
            if "dep_las" in r.get("scores", {})]


def _first_reaching(curve: List[tuple], target: float) -> Optional[float]:
    return next((seconds for seconds, las in curve if las >= target), None)


def training_rows(gpu_log: List[Dict], cpu_log: List[Dict]) -> Dict[str, Any]:
    """Dev LAS against wall time on the GPU and on the CPU: the best each
    reached, the CPU's within the GPU's wall time, and the time each took to
    come within MARGIN of the CPU's converged dev LAS."""
    gpu, cpu = _las_curve(gpu_log), _las_curve(cpu_log)
    if not gpu or not cpu:
        raise ValueError("a training log without dev LAS")
    wall = gpu[-1][0]
    target = max(las for _, las in cpu) - MARGIN
    t_gpu, t_cpu = _first_reaching(gpu, target), _first_reaching(cpu, target)
    return {"gpu_seconds": wall, "gpu_best": max(las for _, las in gpu),
            "cpu_at_gpu_wall": max((las for s, las in cpu if s <= wall), default=None),
            "cpu_converged": max(las for _, las in cpu), "cpu_seconds": cpu[-1][0],
            "target": target, "gpu_to_target": t_gpu, "cpu_to_target": t_cpu,
            "speedup": t_cpu / t_gpu if t_gpu and t_cpu else None}


def gpu_check_section(metrics: Path) -> Optional[str]:
    """The section, or None where no GPU check has been committed."""
    folder = metrics / FOLDER
    env = read_json(folder / "environment.json")
    if env is None:
        return None
    parts = [f"`scripts/gpu_check.sh` on {env.get('gpu') or 'no GPU'} (PyTorch {env['torch']}, "
             f"CUDA {env.get('cuda')}, spaCy {env['spacy']}; files in `metrics/{FOLDER}/`)."]
    steps_file = folder / "steps.jsonl"
    if steps_file.is_file():
        steps = [json.loads(line) for line in steps_file.read_text().splitlines() if line]
        done = {s["step"] for s in steps}
        parts.append(table(["step", "exit status", "seconds"],
                           [[s["step"], str(s["rc"]), str(s["seconds"])] for s in steps]
                           + [[name, "not finished in the call's time", "-"]
                              for name in STEPS if name not in done]))
    gpu_log = read_log(folder / "train-gpu.jsonl")
    cpu_log = read_log(metrics / CPU_LOG)
    if gpu_log and cpu_log:
        t = training_rows(gpu_log, cpu_log)

        def s(value):
            return "-" if value is None else f"{value:,.0f}"

        def las(value):
            return "-" if value is None else f"{value:.2f}"
        parts.append(
            table(["run", "wall s", "best dev LAS", f"s to dev LAS {t['target']:.2f}"],
                  [["`configs/gpu/best_elstm.cfg`, GPU", s(t["gpu_seconds"]), las(t["gpu_best"]),
                    s(t["gpu_to_target"])],
                   ["`configs/biaffine/best_elstm.cfg`, CPU, the same wall time",
                    s(t["gpu_seconds"]), las(t["cpu_at_gpu_wall"]), "-"],
                   ["`configs/biaffine/best_elstm.cfg`, CPU, whole run", s(t["cpu_seconds"]),
                    las(t["cpu_converged"]), s(t["cpu_to_target"])]])
            + f"\n\nDev LAS as spaCy scores it in training (`train-gpu.jsonl`; the CPU's from "
              f"`metrics/{CPU_LOG.as_posix()}`, one thread); the target is the CPU's converged "
              f"dev LAS less {MARGIN}: the GPU reached it "
              + ("never in its wall time" if t["speedup"] is None else
                 f"{t['speedup']:.1f}× sooner than the CPU (target: at least 5×)") + ".")
    score = read_json(folder / "gpu-dev.official.json")
    if score is not None:
        parts.append(f"The GPU run's best checkpoint on EWT dev, official script: UPOS "
                     f"{score['UPOS']:.2f}, UAS {score['UAS']:.2f}, LAS {score['LAS']:.2f}.")
    bench = read_json(folder / "bench-gpu.json")
    if bench is not None:
        rows = [[r["name"], r["mode"], f"{r['words']:,}", f"{r['words_per_second']:,.0f}",
                 f"{r['words_per_second'] / ref:.2f}" if (ref := _reference(bench, r)) else "-"]
                for r in bench["rows"]]
        parts.append(table(["pipeline", "mode", "words", "words/s", "× spacy_bilstm"], rows)
                     + "\n\n`spacy-elstm benchmark configs --gpu-id 0` on the same GPU; "
                       "`gpu_best_elstm` is the trained GPU run (its tree decoding depends on "
                       "the scores), the others untrained configs (target: the accurate "
                       "pipeline's inference at least 1.0× spaCy's BiLSTM).")
    profile = profile_section(folder / "profile-train-gpu.json")
    if profile and not profile.startswith("_"):
        parts.append(profile)
    return "\n\n".join(parts)


def _reference(bench: Dict[str, Any], row: Dict[str, Any]) -> Optional[float]:
    """spaCy's BiLSTM pipeline's words/s in the same mode."""
    return next((r["words_per_second"] for r in bench["rows"]
                 if r["name"] == "spacy_bilstm" and r["mode"] == row["mode"]), None)
