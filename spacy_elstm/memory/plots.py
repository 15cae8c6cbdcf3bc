"""The PNGs of `spacy-elstm memory` (matplotlib, imported only here)."""
from pathlib import Path
from typing import Dict, List, Sequence


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    _pyplot().close(fig)
    return path


def response_plot(result: Dict, path: Path, labels: Sequence[str] = ()) -> Path:
    """The memory response of each position (its norm over the units where
    there are several), the Jacobian norm if computed, and the scaling factors
    applied at each position (mean and range over the units) for the ELSTMs."""
    plt = _pyplot()
    panels = 2 + ("scale" in result)
    fig, axes = plt.subplots(panels, 1, figsize=(max(6, 0.35 * result["length"]), 2.4 * panels),
                             sharex=True)
    xs = list(range(1, result["length"] + 1))
    one_unit = result["hidden_width"] == 1
    response = [row[0] for row in result["response"]] if one_unit else result["response_norm"]
    axes[0].bar(xs, response, color="tab:blue")
    axes[0].set_ylabel("mr_k" if one_unit else "|mr_k|")
    axes[0].set_title(f"{result['cell']}, {result['direction']}: memory response to the output "
                      f"at position {result['output_position']}")
    if "jacobian_norm" in result:
        axes[1].bar(xs, result["jacobian_norm"], color="tab:orange")
    axes[1].set_ylabel("|dh_T / dx_k|")
    if "scale" in result:
        scale = result["scale"]
        mean = [sum(row) / len(row) for row in scale]
        axes[2].plot(xs, mean, marker=".", color="tab:green", label="mean over units")
        if not one_unit:
            axes[2].fill_between(xs, [min(r) for r in scale], [max(r) for r in scale],
                                 color="tab:green", alpha=0.2, label="range over units")
        axes[2].axhline(1.0, color="grey", lw=0.8, ls="--")
        axes[2].set_ylabel("s_k")
        axes[2].legend(fontsize=7)
    axes[-1].set_xlabel("position k")
    if labels:
        axes[-1].set_xticks(xs)
        axes[-1].set_xticklabels(labels, rotation=60, fontsize=7)
    for ax in axes:
        ax.grid(alpha=0.3)
    return _save(fig, path)


def loss_plot(summary: List[Dict], path: Path) -> Path:
    """Final training loss against T per cell: the mean over seeds, the bars
    from the lowest to the highest seed; the loss of a constant guess dashed."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    cells = sorted({row["cell"] for row in summary})
    for cell in cells:
        rows = [r for r in summary if r["cell"] == cell]
        xs = [r["T"] for r in rows]
        ys = [r["loss_mean"] for r in rows]
        err = [[r["loss_mean"] - r["loss_min"] for r in rows],
               [r["loss_max"] - r["loss_mean"] for r in rows]]
        ax.errorbar(xs, ys, yerr=err, marker=".", capsize=3, label=cell)
    lengths = sorted({r["T"] for r in summary})
    constant = {r["T"]: r["constant_loss"] for r in summary}
    ax.plot(lengths, [constant[t] for t in lengths], color="grey", ls="--",
            label="constant guess")
    ax.set_yscale("log")
    ax.set_xlabel("sequence length T")
    ax.set_ylabel("final training loss")
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(fig, path)


def sample_plot(responses: List[Dict], path: Path) -> Path:
    """Fig. 5 of the paper for one sample: each cell's memory response by
    position (top) and the ELSTMs' scaling factors (bottom). For a layer of one
    unit these are mr_k and s_k themselves; for several units, the norm |mr_k|
    over the units and the mean of s_k over the units."""
    plt = _pyplot()
    first = responses[0]
    one_unit = all(r.get("hidden_width", 1) == 1 for r in responses)
    fig, axes = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
    xs = list(range(1, first["T"] + 1))
    for r in responses:
        response = [row[0] for row in r["response"]] if one_unit else r["response_norm"]
        axes[0].plot(xs, response, marker=".", label=f"{r['cell']} (p = {r['probability']:.2f})")
        if "scale" in r:
            scale = [row[0] if one_unit else sum(row) / len(row) for row in r["scale"]]
            axes[1].plot(xs, scale, marker=".", label=r["cell"])
    for ax in axes:
        ax.axvline(first["position"], color="red", lw=0.8, ls=":")
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:  # no ELSTM: no scaling factors drawn
            ax.legend(fontsize=7)
    width = first.get("hidden_width", 1)
    axes[0].set_ylabel("memory response mr_k" if one_unit else "|mr_k| (norm over units)")
    axes[0].set_title(f"T = {first['T']}, A at position {first['position']} (seed 0), "
                      f"{width} unit{'s' if width > 1 else ''}")
    axes[1].set_ylabel("scaling factor s_k" if one_unit else "s_k (mean over units)")
    axes[1].set_xlabel("position k")
    return _save(fig, path)
