"""Throughput against blob size, for the floor, the reference and ExecuTorch (matplotlib, Agg)."""

from __future__ import annotations

from typing import Any

TITLES = {
    "hash": "SHA-256 of a file (warm cache)",
    "copy": "file → file",
    "bytesio": "file → io.BytesIO",
}
STYLE = {
    "floor": ("machine floor", "0.45", "--", "s"),
    "reference": ("reference", "tab:blue", "-", "o"),
    "executorch": ("ExecuTorch 1.5.1", "tab:orange", "-", "^"),
}


def draw(result: dict[str, Any], path: str) -> None:
    """Write the PNG; raises ImportError when matplotlib is missing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plots = result["plot"]
    fig, axes = plt.subplots(1, len(TITLES), figsize=(15, 4.8), sharey=False)
    for ax, (op, title) in zip(axes, TITLES.items(), strict=True):
        figures = plots.get(op, [])
        for variant, (label, colour, line, marker) in STYLE.items():
            points = [
                (f["size"], f["size"] / f["median"][variant] / 1e9)
                for f in figures
                if f["median"].get(variant)
            ]
            if points:
                xs, ys = zip(*points, strict=True)
                ax.plot(xs, ys, line, marker=marker, color=colour, label=label, linewidth=2)
        ax.set_xscale("log", base=2)
        ax.set_xticks([f["size"] for f in figures])
        ax.set_xticklabels([_size(f["size"]) for f in figures], rotation=0)
        ax.set_title(title)
        ax.set_xlabel("blob size")
        ax.set_ylabel("GB/s (higher is better)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize=9, framealpha=0.85)
    m = result["machine"]
    fig.suptitle(
        f"cordspec bench: {m['cores']} cores, {m['cpu']}, Python {m['python']}, "
        f"medians of {result['reps']}",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _size(size: int) -> str:
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= scale:
            return f"{size // scale}{unit}"
    return str(size)
