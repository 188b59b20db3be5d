"""The driver: makes the files, runs the three workers interleaved, prints the table, the targets,
and writes JSON and the plot.

Every figure is measured for the machine's floor, the reference and ExecuTorch in turn, repetition
after repetition, so that a burst of load elsewhere hits all three alike. The table gives the median
time of each, and ratios as the median over repetitions of the per-repetition ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .units import LABELS, VARIANTS, GiB, MiB, human

WORKER = Path(__file__).with_name("worker.py")
REPO = Path(__file__).resolve().parent.parent
DEDUP_BLOB = MiB
"""Size of each file of the dedup figures (the target's 1,000 × 1 MiB)."""
INNER_BYTES = 64 * MiB
"""Small blobs are processed several times per timing, until about this many bytes."""


def parse_size(text: str) -> int:
    match = re.fullmatch(r"(\d+)([KMG]?)i?B?", text.strip(), re.IGNORECASE)
    if not match:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 64M, 1G, 4G)")
    unit = {"": 1, "K": 1 << 10, "M": MiB, "G": GiB}[match.group(2).upper()]
    return int(match.group(1)) * unit


# --------------------------------------------------------------------------------------------
# Workers


class Worker:
    """A worker process answering requests, one JSON line each way."""

    def __init__(self, variant: str, python: str, nice: int | None = None) -> None:
        self.variant = variant
        self.python = python
        self.process = subprocess.Popen(
            [python, str(WORKER), variant, "--repo", str(REPO), *nice_args(nice)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        hello = self._read()
        self.version = hello.get("version", "?")
        self.python_version = hello.get("python", "?")
        self.nice = hello.get("nice", 0)

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.process.wait()
            error = (self.process.stderr.read() if self.process.stderr else "").strip()
            raise RuntimeError(error.splitlines()[-1] if error else "the worker exited")
        answer: dict[str, Any] = json.loads(line)
        if not answer.get("ok"):
            raise RuntimeError(answer.get("error", "failed"))
        return answer

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


def nice_args(nice: int | None) -> list[str]:
    return [] if nice is None else ["--nice", str(nice)]


def once(
    variant: str, python: str, request: dict[str, Any], nice: int | None = None
) -> dict[str, Any]:
    """Answer one request in a fresh worker process."""
    command = [python, str(WORKER), variant, "--repo", str(REPO), *nice_args(nice)]
    done = subprocess.run(
        [*command, "--once", json.dumps(request)],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    answer: dict[str, Any] = json.loads(lines[-1]) if lines else {}
    if not answer.get("ok"):
        raise RuntimeError(answer.get("error") or done.stderr.strip().splitlines()[-1])
    return answer


def start_executorch(python: str, nice: int | None) -> tuple[Worker | None, str]:
    """The ExecuTorch worker, or None and why it is not measured."""
    if shutil.which(python) is None and not os.access(python, os.X_OK):
        return None, f"no interpreter {python!r}"
    try:
        return Worker("executorch", python, nice), ""
    except (RuntimeError, OSError) as exc:
        return None, f"{python} cannot import ExecuTorch: {exc}"


# --------------------------------------------------------------------------------------------
# Files


def write_file(path: Path, size: int, seed: int = 0) -> Path:
    """``size`` random bytes, each 16 MiB stamped with ``seed`` and its number so that no two
    files share their first 32 bytes; fsynced, so the cold figures can drop them from the cache."""
    block = bytearray(os.urandom(min(size, 16 * MiB)))
    with path.open("wb") as f:
        done, turn = 0, 0
        while done < size:
            block[:16] = (seed << 64 | turn).to_bytes(16, "little")[: len(block)]
            n = min(len(block), size - done)
            f.write(memoryview(block)[:n])
            done += n
            turn += 1
        f.flush()
        os.fsync(f.fileno())
    return path


@contextmanager
def workspace(parent: str | None) -> Iterator[Path]:
    directory = Path(tempfile.mkdtemp(prefix="cordspec-bench-", dir=parent))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Measuring


@dataclass
class Figure:
    """One row: the same work for each variant, measured ``reps`` times, interleaved."""

    name: str
    unit: str = "s"  # "s" for a time, "us/op" for a time per operation
    size: int | None = None  # bytes processed, for throughput
    seconds: dict[str, list[float]] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)
    extra: dict[str, dict[str, Any]] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)

    def median(self, variant: str) -> float | None:
        values = self.seconds.get(variant)
        return statistics.median(values) if values else None

    def ratio(self, top: str, bottom: str) -> float | None:
        a, b = self.seconds.get(top), self.seconds.get(bottom)
        if not a or not b:
            return None
        return statistics.median(
            x / y for x, y in zip(a, b, strict=False)
        )  # a failed variant may have fewer

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "unit": self.unit,
            "size": self.size,
            "seconds": self.seconds,
            "median": {v: self.median(v) for v in self.seconds},
            "cpu": {v: statistics.median(c) for v, c in self.cpu.items() if c},
            "reference/floor": self.ratio("reference", "floor"),
            "executorch/reference": self.ratio("executorch", "reference"),
            "extra": self.extra,
            "missing": self.missing,
        }


class Bench:
    def __init__(self, workers: dict[str, Worker | None], why: dict[str, str], reps: int) -> None:
        self.workers = workers
        self.why = why
        self.reps = reps
        self.figures: list[Figure] = []

    def measure(
        self,
        name: str,
        requests: dict[str, dict[str, Any]],
        reps: int | None = None,
        size: int | None = None,
        unit: str = "s",
        show: bool = True,
    ) -> Figure:
        figure = Figure(name, unit, size)
        for variant in requests:
            if self.workers.get(variant) is None:
                figure.missing[variant] = self.why.get(variant, "not measured")
        for _ in range(reps or self.reps):
            for variant, request in requests.items():
                worker = self.workers.get(variant)
                if worker is None or variant in figure.missing:
                    continue
                try:
                    answer = worker.ask(request)
                except RuntimeError as exc:
                    figure.missing[variant] = f"failed: {exc}"
                    figure.seconds.pop(variant, None)
                    continue
                figure.seconds.setdefault(variant, []).append(answer.pop("seconds"))
                if "cpu" in answer:
                    figure.cpu.setdefault(variant, []).append(answer.pop("cpu"))
                answer.pop("ok", None)
                if answer:
                    figure.extra[variant] = answer
        if show:
            self.figures.append(figure)
        print(f"  {name}: " + progress(figure), file=sys.stderr, flush=True)
        return figure


def progress(figure: Figure) -> str:
    parts = []
    for variant in VARIANTS:
        m = figure.median(variant)
        if m is not None:
            parts.append(f"{LABELS[variant]} {format_time(m, figure.unit)}")
    return ", ".join(parts)


def format_time(seconds: float, unit: str) -> str:
    if unit == "us/op":
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def inner(size: int) -> int:
    return max(1, min(64, INNER_BYTES // max(size, 1)))


def sizes_up_to(size: int) -> list[int]:
    sizes, s = [], MiB
    while s < size:
        sizes.append(s)
        s *= 4
    return [*sizes, size]


# --------------------------------------------------------------------------------------------
# The machine


def machine(directory: str) -> dict[str, Any]:
    cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
    flags = re.search(r"^flags\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
    meminfo = Path("/proc/meminfo").read_text(encoding="ascii")
    total = re.search(r"^MemTotal:\s*(\d+) kB", meminfo, re.MULTILINE)
    return {
        "cores": os.cpu_count(),
        "cpu": model.group(1).strip() if model else platform.processor(),
        "sha_extensions": bool(flags and "sha_ni" in flags.group(1).split()),
        "memory": human(int(total.group(1)) * 1024) if total else "?",
        "python": platform.python_version(),
        "kernel": platform.release(),
        "filesystem": filesystem_of(directory),
        "temp_dir": directory,
        "load_average": os.getloadavg(),
    }


def filesystem_of(directory: str) -> str:
    """The type of the filesystem mounted at the longest prefix of ``directory``."""
    best, kind = "", "?"
    real = os.path.realpath(directory)
    for line in Path("/proc/mounts").read_text(encoding="utf-8").splitlines():
        fields = line.split()
        mount = fields[1]
        if (real == mount or real.startswith(mount.rstrip("/") + "/")) and len(mount) > len(best):
            best, kind = mount, f"{fields[2]} ({fields[0]} on {mount})"
    return kind


# --------------------------------------------------------------------------------------------
# The run


def run(args: argparse.Namespace) -> dict[str, Any]:
    size: int = args.size
    parent = args.dir or tempfile.gettempdir()
    workers: dict[str, Worker | None] = {
        "floor": Worker("floor", sys.executable, args.nice),
        "reference": Worker("reference", sys.executable, args.nice),
    }
    et, why_not = start_executorch(args.executorch_python, args.nice)
    workers["executorch"] = et
    why = {"executorch": f"not measured: {why_not}"} if et is None else {}
    print(
        "ExecuTorch: "
        + (
            f"{et.version} (Python {et.python_version}, {args.executorch_python})"
            if et
            else why["executorch"]
        ),
        file=sys.stderr,
    )
    bench = Bench(workers, why, args.reps)
    plot: dict[str, list[Figure]] = {"hash": [], "copy": [], "bytesio": []}
    memory: dict[str, Any] = {}
    description = machine(parent)
    started = time.time()
    try:
        with workspace(parent) as work:
            for s in sizes_up_to(size):
                print(f"blob of {human(s)}:", file=sys.stderr, flush=True)
                path = str(write_file(work / f"blob{s}.bin", s))
                target = str(work / "out.bin")
                main = s == size
                k = inner(s)
                plot["hash"].append(
                    bench.measure(
                        f"SHA-256, warm cache ({human(s)})",
                        {
                            "floor": {"op": "hash", "path": path, "inner": k},
                            "reference": {"op": "hash", "path": path, "inner": k},
                            "executorch": {"op": "hash", "path": path, "inner": k},
                        },
                        size=s,
                        show=main,
                    )
                )
                if main:
                    bench.measure(
                        f"SHA-256, cold cache ({human(s)})",
                        {v: {"op": "hash", "path": path, "cold": True} for v in VARIANTS},
                        size=s,
                    )
                plot["copy"].append(
                    bench.measure(
                        f"file → file ({human(s)})",
                        {
                            v: {"op": "copy", "path": path, "target": target, "inner": k}
                            for v in VARIANTS
                        },
                        size=s,
                        show=main,
                    )
                )
                plot["bytesio"].append(
                    bench.measure(
                        f"file → BytesIO ({human(s)})",
                        {v: {"op": "bytesio", "path": path, "inner": k} for v in VARIANTS},
                        size=s,
                        show=main,
                    )
                )
                if main:
                    bench.measure(
                        f"file → memory already mapped ({human(s)})",
                        {"floor": {"op": "bytesio", "path": path, "prefaulted": True}},
                        size=s,
                    )
                    memory = measure_memory(workers, why, args, path, target)
                os.unlink(path)
            dedup(bench, work, args)
            end_to_end(bench, work, size)
    finally:
        for worker in workers.values():
            if worker is not None:
                worker.close()
    description["load_average_end"] = os.getloadavg()
    description["minutes"] = round((time.time() - started) / 60, 1)
    versions = {v: (w.version, w.python_version) for v, w in workers.items() if w is not None}
    description["nice"] = {v: w.nice for v, w in workers.items() if w is not None}
    return {
        "size": size,
        "reps": args.reps,
        "machine": description,
        "versions": versions,
        "figures": [f.as_dict() for f in bench.figures],
        "plot": {op: [f.as_dict() for f in figures] for op, figures in plot.items()},
        "memory": memory,
        "why": why,
    }


def measure_memory(
    workers: dict[str, Worker | None],
    why: dict[str, str],
    args: argparse.Namespace,
    path: str,
    target: str,
) -> dict[str, Any]:
    print("peak memory (fresh processes):", file=sys.stderr, flush=True)
    result: dict[str, Any] = {}
    pythons = {
        "floor": sys.executable,
        "reference": sys.executable,
        "executorch": args.executorch_python,
    }
    for variant in VARIANTS:
        if workers.get(variant) is None:
            result[variant] = {"missing": why.get(variant, "not measured")}
            continue
        try:
            request = {"op": "memory", "path": path, "target": target}
            answer = once(variant, pythons[variant], request, args.nice)
        except RuntimeError as exc:
            result[variant] = {"missing": f"failed: {exc}"}
            continue
        result[variant] = {k: answer[k] for k in ("hash", "write")}
        print(
            f"  {LABELS[variant]}: hash {answer['hash']['peak_rss_kib']} KiB, "
            f"write {answer['write']['peak_rss_kib']} KiB",
            file=sys.stderr,
        )
    return result


def dedup(bench: Bench, work: Path, args: argparse.Namespace) -> None:
    count = args.dedup_count
    reps = min(bench.reps, 3) if args.size < GiB else bench.reps
    print(f"dedup ({count} × {human(DEDUP_BLOB)} files):", file=sys.stderr, flush=True)
    distinct = work / "distinct"
    distinct.mkdir()
    block = os.urandom(DEDUP_BLOB)
    paths = []
    for i in range(count):
        path = distinct / f"{i}.bin"
        path.write_bytes(i.to_bytes(8, "little") * 4 + block[32:])  # its own first 32 bytes
        paths.append(str(path))
    bench.measure(
        f"dedup: {count} distinct file-backed blobs",
        {v: {"op": "dedup_files", "paths": paths} for v in VARIANTS},
        reps=reps,
    )
    shutil.rmtree(distinct)
    same = work / "same"
    same.mkdir()
    paths = []
    for i in range(count):
        path = same / f"{i}.bin"
        path.write_bytes(block)
        paths.append(str(path))
    bench.measure(
        f"dedup: {count} equal file-backed blobs",
        {
            "floor": {"op": "dedup_duplicates_floor", "paths": paths},
            "reference": {"op": "dedup_files", "paths": paths},
            "executorch": {"op": "dedup_files", "paths": paths},
        },
        reps=reps,
    )
    shutil.rmtree(same)
    total = min(args.size, GiB)
    blob = max(64 << 10, total // 100)
    bench.measure(
        f"dedup: 100 bytes blobs of {human(blob)}, one fingerprint",
        {v: {"op": "dedup_bytes", "count": 100, "size": blob} for v in VARIANTS},
        reps=reps,
    )
    moves = work / "moves"
    moves.mkdir()
    bench.measure(
        "move_from (floor: bare rename)",
        {v: {"op": "move", "directory": str(moves), "count": 200} for v in VARIANTS},
        unit="us/op",
    )


def end_to_end(bench: Bench, work: Path, size: int) -> None:
    each = max(4096, size // 100)
    print(f"end to end (100 × {human(each)}):", file=sys.stderr, flush=True)
    blobs = work / "e2e"
    blobs.mkdir()
    paths = [str(write_file(blobs / f"{i}.bin", each, seed=i)) for i in range(100)]
    bench.measure(
        f"store + merge + Cord write, 100 file-backed blobs of {human(each)}",
        {
            v: {"op": "end_to_end", "paths": paths, "target": str(work / "e2e.out")}
            for v in VARIANTS
        },
        size=100 * each,
    )
    shutil.rmtree(blobs)
