"""The results as Markdown: the machine, the table of medians and ratios, peak memory, and the
performance targets with the measured figure and whether it is met."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .units import LABELS, VARIANTS, human


def publish(
    result: dict[str, Any],
    text: str,
    json_path: str | None,
    markdown_path: str | None,
    plot_path: str | None,
    draw: Callable[[dict[str, Any], str], None],
) -> None:
    """Print a run's Markdown ``text`` and write the run where asked: ``result`` as JSON, the
    text, and the plot ``draw`` makes (which raises ImportError without the bench extra)."""
    print()
    print(text)
    if json_path:
        Path(json_path).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if markdown_path:
        Path(markdown_path).write_text(text, encoding="utf-8")
    if plot_path:
        try:
            draw(result, plot_path)
            print(f"plot written to {plot_path}")
        except ImportError as exc:
            print(f"plot not drawn: {exc} (install the bench extra: pip install -e '.[bench]')")


def time_cell(seconds: float | None, unit: str) -> str:
    if seconds is None:
        return "–"
    if unit == "us/op":
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.3f} s"


def ratio_cell(ratio: float | None) -> str:
    return "–" if ratio is None else f"{ratio:.2f}x"


def notes(figure: dict[str, Any]) -> str:
    extra: dict[str, dict[str, Any]] = figure["extra"]
    parts: list[str] = []
    size, median = figure["size"], figure["median"]
    if size and median.get("reference"):
        speeds = [f"{LABELS[v]} {size / median[v] / 1e9:.2f}" for v in VARIANTS if median.get(v)]
        parts.append("GB/s: " + ", ".join(speeds))
    cpu = figure.get("cpu", {})
    if size and cpu.get("reference"):
        parts.append(
            "CPU s: " + ", ".join(f"{LABELS[v]} {cpu[v]:.3f}" for v in VARIANTS if v in cpu)
        )
    if "read" in extra.get("floor", {}):
        f = extra["floor"]
        parts.append(f"floor = max(cold read {f['read']:.3f} s, hash {f['hash']:.3f} s)")
    reads = _per_variant(extra, "rchar", lambda e: human(e["rchar"]))
    if reads:
        parts.append("read: " + reads)
    calls = _per_variant(
        extra, "hash_calls", lambda e: f"{e['hash_calls']} ({human(e['hashed_bytes'])})"
    )
    if calls:
        parts.append("hashes: " + calls)
    parts.extend(f"{LABELS[v]} {why}" for v, why in figure["missing"].items() if v != "executorch")
    return "; ".join(parts)


def table(result: dict[str, Any]) -> list[str]:
    lines = [
        "| figure | floor | reference | ExecuTorch | reference / floor "
        "| ExecuTorch / reference | notes |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for figure in result["figures"]:
        unit, median = figure["unit"], figure["median"]
        cells = [time_cell(median.get(v), unit) for v in VARIANTS]
        lines.append(
            f"| {figure['name']} | {' | '.join(cells)} | {ratio_cell(figure['reference/floor'])} "
            f"| {ratio_cell(figure['executorch/reference'])} | {notes(figure)} |"
        )
    return lines


def memory_table(result: dict[str, Any]) -> list[str]:
    memory = result["memory"]
    if not memory:
        return []
    lines = [
        "Peak RSS above the baseline, each implementation in a fresh process, blob of "
        f"{human(result['size'])} file → file (`VmHWM` after the operation minus `VmRSS` "
        "before it; bytes from `/proc/self/io`):",
        "",
        "| implementation | hashing: peak RSS | hashing: read | writing: peak RSS "
        "| writing: read (rchar) | writing: written (wchar) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for variant in VARIANTS:
        m = memory.get(variant, {})
        if "missing" in m:
            lines.append(f"| {LABELS[variant]} | {m['missing']} | | | | |")
            continue
        h, w = m["hash"], m["write"]
        lines.append(
            f"| {LABELS[variant]} | {h['peak_rss_kib'] / 1024:.2f} MiB "
            f"| {human(h.get('rchar', 0))} "
            f"| {w['peak_rss_kib'] / 1024:.2f} MiB | {human(w.get('rchar', 0))} "
            f"| {human(w.get('wchar', 0))} |"
        )
    return lines


def _find(result: dict[str, Any], start: str) -> dict[str, Any] | None:
    return next((f for f in result["figures"] if f["name"].startswith(start)), None)


def targets(result: dict[str, Any]) -> list[tuple[str, str, bool | None]]:
    """(target, measured, met) for each performance target (docs/performance.md) the bench
    measures."""
    out: list[tuple[str, str, bool | None]] = []

    def ratio(start: str, key: str) -> float | None:
        figure = _find(result, start)
        return figure[key] if figure else None

    copy_floor = ratio("file → file", "reference/floor")
    copy_et = ratio("file → file", "executorch/reference")
    out.append(
        ("file → file within 1.10x of copy_file_range", _r(copy_floor), _le(copy_floor, 1.10))
    )
    out.append(
        (
            "file → file at least 1.25x faster than ExecuTorch",
            _r(copy_et) + " (ExecuTorch / reference)",
            None if copy_et is None else copy_et >= 1.25,
        )
    )
    bytesio = ratio("file → BytesIO", "reference/floor")
    out.append(
        (
            "file → BytesIO within 1.2x of readinto a preallocated buffer",
            _r(bytesio) + " (floor: a fresh buffer of the blob's size, read into)",
            _le(bytesio, 1.2),
        )
    )
    mapped = _find(result, "file → memory already mapped")
    bio = _find(result, "file → BytesIO")
    if mapped and bio and mapped["median"].get("floor") and bio["median"].get("reference"):
        r = bio["median"]["reference"] / mapped["median"]["floor"]
        out.append(
            (
                "file → BytesIO against readinto memory already mapped (no page faults)",
                f"{r:.2f}x",
                r <= 1.2,
            )
        )
    warm = ratio("SHA-256, warm", "reference/floor")
    out.append(
        ("SHA-256 warm within 1.10x of hashlib over in-memory data", _r(warm), _le(warm, 1.10))
    )
    cold = ratio("SHA-256, cold", "reference/floor")
    out.append(
        (
            "SHA-256 cold within 1.15x of max(disk read, in-memory hash)",
            _r(cold),
            _le(cold, 1.15),
        )
    )
    ref = result["memory"].get("reference", {})
    if "hash" in ref:
        peak = max(ref["hash"]["peak_rss_kib"], ref["write"]["peak_rss_kib"]) / 1024
        out.append(
            (
                "peak RSS above baseline, hashing and writing "
                f"{human(result['size'])} file → file, under 4 MiB",
                f"{peak:.2f} MiB",
                peak < 4,
            )
        )
    return out


def _r(value: float | None) -> str:
    return "not measured" if value is None else f"{value:.2f}x"


def _le(value: float | None, bound: float) -> bool | None:
    return None if value is None else value <= bound


def _per_variant(extra: dict[str, Any], key: str, show: Callable[[dict[str, Any]], str]) -> str:
    """``show`` of each variant's extras that have ``key``, labelled; "" where none has it."""
    return ", ".join(f"{LABELS[v]} {show(extra[v])}" for v in VARIANTS if key in extra.get(v, {}))


def implementations(result: dict[str, Any]) -> str:
    """Each implementation measured, with its version and its Python's, then why any other was
    not (a benchmark's and a scaling run's report both say so)."""
    versions = result["versions"]
    return ", ".join(
        f"{LABELS[v]} {versions[v][0]} (Python {versions[v][1]})" for v in VARIANTS if v in versions
    ) + "".join(f"; {LABELS[v]} {why}" for v, why in result["why"].items())


def markdown(result: dict[str, Any]) -> str:
    m = result["machine"]
    lines = [
        f"Machine: {m['cores']} cores, {m['cpu']}"
        f"{' (SHA extensions)' if m['sha_extensions'] else ''}, {m['memory']} RAM, "
        f"Linux {m['kernel']}, Python {m['python']}; "
        f"temp dir {m['temp_dir']} on {m['filesystem']}; "
        f"load average {m['load_average'][0]:.2f} at the start, {m['load_average_end'][0]:.2f} at "
        f"the end; measured processes at niceness {max(m.get('nice', {0: 0}).values())}; "
        f"{m['minutes']} min.",
        "",
        f"Blob of {human(result['size'])}, medians of {result['reps']} interleaved repetitions "
        "(dedup figures: up to 3 below 1 GiB); ratios are medians of per-repetition ratios.",
        "",
        f"Implementations: {implementations(result)}",
        "",
        *table(result),
        "",
        *memory_table(result),
        "",
        "Targets:",
        "",
        "| target | measured | met |",
        "| --- | --- | --- |",
    ]
    for target, measured, met in targets(result):
        verdict = {True: "yes", False: "**no**", None: "not measured"}[met]
        lines.append(f"| {target} | {measured} | {verdict} |")
    return "\n".join(lines) + "\n"
