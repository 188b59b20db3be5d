"""``python -m bench --scaling``: how each store operation grows with N, reference and ExecuTorch.

Every case of bench/cases.py at each N, both implementations in their own worker processes,
interleaved repetition by repetition. The report fits each implementation's exponent (least
squares of log time on log N over the sizes measured) and gives the ratio reference / ExecuTorch
at the largest N both reached. A size whose time, extrapolated from the sizes before it, would
exceed the budget is not run for that implementation (ExecuTorch's quadratic cases at 10^5).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from typing import Any

from .cases import CASES, FILE_CASES, FILE_PIECES, N_FILE_CASES, TITLES, write_files
from .report import implementations, publish
from .run import Bench, Worker, machine, start_executorch, workspace
from .units import LABELS

SIZES = (100, 1_000, 10_000, 100_000)
MEASURED = ("reference", "executorch")


def inner_for(n: int) -> int:
    """Runs per timing: enough that the smallest N still does about 10^4 entries of work."""
    return max(1, 10_000 // n)


def fit(points: list[tuple[int, float]]) -> float | None:
    """The exponent b of t = a N^b, least squares in log-log; None below two points."""
    if len(points) < 2:
        return None
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(max(t, 1e-9)) for _, t in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    covariance = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    return float(covariance / sum((x - mx) ** 2 for x in xs))


def predicted(points: list[tuple[int, float]], n: int) -> float:
    """The time at ``n`` extrapolated from the last two sizes measured (or linearly from one)."""
    if not points:
        return 0.0
    exponent = fit(points[-2:]) if len(points) >= 2 else 1.0
    last_n, last_t = points[-1]
    return float(last_t * (n / last_n) ** max(1.0, exponent or 1.0))


def run_scaling(args: argparse.Namespace) -> dict[str, Any]:
    started = time.time()
    parent = args.dir or tempfile.gettempdir()
    workers: dict[str, Worker | None] = {"reference": Worker("reference", sys.executable)}
    et, why_not = start_executorch(args.executorch_python, args.nice)
    workers["executorch"] = et
    why = {"executorch": f"not measured: {why_not}"} if et is None else {}
    bench = Bench(workers, why, args.reps)
    sizes = sorted(args.sizes)
    cases = args.cases or list(CASES)
    series: dict[str, dict[str, list[dict[str, Any]]]] = {
        c: {v: [] for v in MEASURED} for c in cases
    }
    skipped: dict[str, dict[str, str]] = {c: {} for c in cases}
    description = machine(parent)
    try:
        with workspace(args.dir) as work:
            files = work / "files"  # the first n of them for each n
            files.mkdir()
            if any(case in N_FILE_CASES for case in cases):
                write_files(str(files), sizes[-1])
            elif any(case in FILE_CASES for case in cases):
                write_files(str(files), FILE_PIECES)
            for n in sizes:
                for case in cases:
                    requests: dict[str, dict[str, Any]] = {}
                    for variant in MEASURED:
                        done = [(p["n"], p["median"]) for p in series[case][variant]]
                        guess = predicted(done, n) * args.reps
                        if variant in skipped[case]:
                            continue
                        if guess > args.budget:
                            skipped[case][variant] = (
                                f"not run from N = {n}: about {guess:.0f} s extrapolated"
                            )
                            continue
                        requests[variant] = {
                            "op": "scale",
                            "case": case,
                            "n": n,
                            "inner": inner_for(n),
                            "directory": str(files),
                        }
                    figure = bench.measure(f"{case} N={n}", requests, show=False)
                    for variant, values in figure.seconds.items():
                        point = {"n": n, "median": statistics.median(values), "seconds": values}
                        if variant == "reference" and "executorch" in figure.seconds:
                            point["ratio"] = figure.ratio("reference", "executorch")
                        series[case][variant].append(point)
                    for variant, reason in figure.missing.items():
                        skipped[case].setdefault(variant, reason)
    finally:
        for worker in workers.values():
            if worker is not None:
                worker.close()
    description["load_average_end"] = __import__("os").getloadavg()
    description["minutes"] = round((time.time() - started) / 60, 1)
    versions = {v: (w.version, w.python_version) for v, w in workers.items() if w is not None}
    return {
        "kind": "scaling",
        "sizes": sizes,
        "reps": args.reps,
        "budget": args.budget,
        "machine": description,
        "versions": versions,
        "series": series,
        "skipped": skipped,
        "why": why,
        "summary": summary(series),
    }


def summary(series: dict[str, dict[str, list[dict[str, Any]]]]) -> dict[str, dict[str, Any]]:
    """Per case: each implementation's exponent, and the ratio at the largest N both reached."""
    out: dict[str, dict[str, Any]] = {}
    for case, by_variant in series.items():
        row: dict[str, Any] = {}
        for variant in MEASURED:
            points = [(p["n"], p["median"]) for p in by_variant[variant]]
            row[f"{variant}_exponent"] = fit(points)
            row[f"{variant}_largest"] = points[-1] if points else None
        common = [p for p in by_variant["reference"] if "ratio" in p]
        row["ratio"] = (common[-1]["n"], common[-1]["ratio"]) if common else None
        out[case] = row
    return out


def _time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _n(n: int) -> str:
    exponent = round(math.log10(n))
    return f"10^{exponent}" if 10**exponent == n else str(n)


def markdown(result: dict[str, Any]) -> str:
    m = result["machine"]
    lines = [
        f"Machine: {m['cores']} cores, {m['cpu']}, Python {m['python']}, Linux {m['kernel']}; "
        f"load average {m['load_average'][0]:.2f} at the start, "
        f"{m['load_average_end'][0]:.2f} at the end; {m['minutes']} min.",
        "",
        f"N = {', '.join(_n(n) for n in result['sizes'])}; medians of {result['reps']} "
        "interleaved repetitions of CPU time, GC off in the timed blocks; ratio = median of the "
        "per-repetition ratios reference / ExecuTorch. "
        f"Implementations: {implementations(result)}.",
        "",
        "| case | exponent: reference | exponent: ExecuTorch | reference at largest N "
        "| ExecuTorch at largest N | reference / ExecuTorch |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for case, row in result["summary"].items():
        cells = [TITLES.get(case, case)]
        for variant in MEASURED:
            e = row[f"{variant}_exponent"]
            cells.append("–" if e is None else f"{e:.2f}")
        for variant in MEASURED:
            largest = row[f"{variant}_largest"]
            note = result["skipped"][case].get(variant)
            if largest is None:
                cells.append(note or "–")
            else:
                text = f"{_time(largest[1])} (N = {_n(largest[0])})"
                cells.append(f"{text}; {note}" if note else text)
        ratio = row["ratio"]
        cells.append("–" if ratio is None else f"{ratio[1]:.2f}x (N = {_n(ratio[0])})")
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Every point (median time):", ""]
    header = "| case | implementation | " + " | ".join(f"N = {_n(n)}" for n in result["sizes"])
    lines += [header + " |", "| --- | --- |" + " ---: |" * len(result["sizes"])]
    for case, by_variant in result["series"].items():
        for variant in MEASURED:
            at = {p["n"]: p["median"] for p in by_variant[variant]}
            cells = [_time(at[n]) if n in at else "–" for n in result["sizes"]]
            lines.append(f"| {case} | {LABELS[variant]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def draw(result: dict[str, Any], path: str) -> None:
    """A log-log PNG, one panel per case; raises ImportError when matplotlib is missing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(result["series"])
    columns = 5
    rows = math.ceil(len(cases) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4 * columns, 3.6 * rows), squeeze=False)
    style = {"reference": ("tab:blue", "o"), "executorch": ("tab:orange", "^")}
    for ax, case in zip(axes.flat, cases, strict=False):
        for variant in MEASURED:
            points = result["series"][case][variant]
            if not points:
                continue
            colour, marker = style[variant]
            exponent = result["summary"][case][f"{variant}_exponent"]
            label = LABELS[variant] + ("" if exponent is None else f" (N^{exponent:.2f})")
            ax.plot(
                [p["n"] for p in points],
                [p["median"] for p in points],
                "-",
                marker=marker,
                color=colour,
                label=label,
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(TITLES.get(case, case), fontsize=9)
        ax.set_xlabel("N")
        ax.set_ylabel("CPU seconds")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    for ax in list(axes.flat)[len(cases) :]:
        ax.set_visible(False)
    m = result["machine"]
    fig.suptitle(
        f"cordspec --scaling: {m['cpu']}, Python {m['python']}, medians of {result['reps']}",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scaling",
        action="store_true",
        help="measure how each store operation grows with N instead (bench/cases.py)",
    )
    parser.add_argument(
        "--sizes",
        type=lambda text: [int(float(s)) for s in text.split(",")],
        default=list(SIZES),
        help="--scaling: the values of N, comma-separated (default 100,1000,10000,100000)",
    )
    parser.add_argument(
        "--cases",
        type=lambda text: text.split(","),
        help=f"--scaling: only these cases, comma-separated (of {', '.join(CASES)})",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=120.0,
        help="--scaling: seconds an implementation may take for one size, all repetitions, "
        "extrapolated from the sizes before it; beyond it the size is not run (default 120)",
    )


def main(args: argparse.Namespace) -> int:

    if args.cases:
        unknown = sorted(set(args.cases) - set(CASES))
        if unknown:
            raise SystemExit(f"unknown cases: {', '.join(unknown)} (known: {', '.join(CASES)})")
    result = run_scaling(args)
    plot = args.plot if args.plot != "bench-throughput.png" else "bench-scaling.png"
    publish(result, markdown(result), args.json, args.markdown, plot, draw)
    return 0
