"""One implementation under measurement, in its own process: ``python worker.py IMPL``.

IMPL is ``reference``, ``executorch`` or ``floor`` (the machine's limit: the same work done with
bare ``os`` and ``hashlib`` calls). The worker reads one JSON request per line on stdin and answers
one JSON line on stdout, so the driver can interleave the three implementations repetition by
repetition. It needs only the standard library and the implementation, so it runs under any
interpreter (ExecuTorch's needs torch). With ``--once REQUEST`` it answers one request and exits: a
fresh process, for peak memory.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import hashlib
import importlib
import importlib.metadata
import io
import json
import os
import struct
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script under any interpreter: the repository's root makes bench/ importable.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.cases import op_scale
from bench.units import MiB

HEADER = b"H" * 16
"""Written before each blob by the end-to-end run, as a serializer writes its segment headers."""


# --------------------------------------------------------------------------------------------
# What this process does, from /proc/self


def proc_io() -> dict[str, int]:
    """rchar/wchar (bytes through read/write-like calls) and read_bytes (from storage)."""
    try:
        text = Path("/proc/self/io").read_text(encoding="ascii")
    except OSError:
        return {}
    return {k: int(v) for k, v in (line.split(": ") for line in text.splitlines())}


def proc_status(*keys: str) -> dict[str, int]:
    """Fields of /proc/self/status in KiB (VmRSS, VmHWM)."""
    try:
        lines = Path("/proc/self/status").read_text(encoding="ascii").splitlines()
    except OSError:
        return {}
    fields = dict(line.split(":", 1) for line in lines if ":" in line)
    return {k: int(fields[k].split()[0]) for k in keys if k in fields}


def reset_peak_rss() -> bool:
    """Make VmHWM restart from VmRSS (Linux >= 4.0); False where it can't."""
    try:
        Path("/proc/self/clear_refs").write_text("5", encoding="ascii")
    except OSError:
        return False
    return True


def drop_cache(path: str) -> None:
    """Evict the file's pages from the page cache: the next read comes from the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def unlink(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


# --------------------------------------------------------------------------------------------
# The implementations


class Impl:
    """Cord, FileBackedData and NamedDataStore of one implementation."""

    def __init__(self, name: str, repo: str) -> None:
        self.name = name
        self.Cord: Any = None
        self.FileBackedData: Any = None
        self.NamedDataStore: Any = None
        self.version = "floor"
        if name == "reference":
            sys.path.insert(0, repo)
            cord = store = importlib.import_module("reference")
            self.version = "reference"
        elif name == "executorch":
            cord = importlib.import_module("executorch.exir._serialize._cord")
            store = importlib.import_module("executorch.exir._serialize._named_data_store")
            self.version = importlib.metadata.version("executorch")
        else:
            return
        self.Cord, self.FileBackedData = cord.Cord, cord.FileBackedData
        self.NamedDataStore = store.NamedDataStore


# The floor of each operation: the same bytes moved or hashed with the fewest calls the OS offers.


def floor_hash(size: int) -> bytes:
    """SHA-256 speed itself: ``size`` bytes hashed from a buffer that stays in the CPU's cache."""
    digest = hashlib.sha256()
    block = memoryview(bytes(MiB))
    for _ in range(size // MiB):
        digest.update(block)
    digest.update(block[: size % MiB])
    return digest.digest()


def floor_read(path: str) -> int:
    """Read the whole file into one reused buffer: the disk (or page cache) read time."""
    buffer = memoryview(bytearray(MiB))
    total = 0
    with open(path, "rb", buffering=0) as f:
        while n := f.readinto(buffer):
            total += n
    return total


def floor_copy(source: str, target: str) -> None:
    """``copy_file_range`` of the whole file: no byte passes through user space."""
    with open(source, "rb", buffering=0) as src, open(target, "wb", buffering=0) as dst:
        while os.copy_file_range(src.fileno(), dst.fileno(), 1 << 30):
            pass


def readinto_all(path: str, buffer: bytearray) -> None:
    view = memoryview(buffer)
    done = 0
    with open(path, "rb", buffering=0) as f:
        while done < len(view) and (n := f.readinto(view[done:])):
            done += n


class Counting:
    """Stands in for ``hashlib.sha256``: counts the objects made and the bytes hashed."""

    def __init__(self) -> None:
        self.real = hashlib.sha256
        self.calls = 0
        self.hashed = 0

    def __call__(self, data: Any = b"") -> Any:
        self.calls += 1
        self.hashed += len(data)
        real = self.real(data)
        counting = self

        class Hash:
            def update(self, more: Any) -> None:
                counting.hashed += len(more)
                real.update(more)

            def digest(self) -> bytes:
                return real.digest()

            def hexdigest(self) -> str:
                return real.hexdigest()

        return Hash()


# --------------------------------------------------------------------------------------------
# Operations: each returns (seconds, extra figures); setup and cleanup are not timed


_spent = {"wall": 0.0, "cpu": 0.0}
"""Wall and CPU seconds (of all this process's threads) inside ``timed`` since the last request."""


def timed(call: Callable[[], object]) -> float:
    cpu, start = time.process_time(), time.perf_counter()
    call()
    wall = time.perf_counter() - start
    _spent["wall"] += wall
    _spent["cpu"] += time.process_time() - cpu
    return wall


def op_hash(
    impl: Impl, path: str, cold: bool = False, inner: int = 1
) -> tuple[float, dict[str, Any]]:
    size = os.path.getsize(path)
    if cold:
        drop_cache(path)
    if impl.FileBackedData is None:
        if cold:  # the larger of the two is what any pipeline that overlaps them can reach
            read = timed(lambda: floor_read(path))
            hashing = timed(lambda: floor_hash(size))
            return max(read, hashing), {"read": read, "hash": hashing}
        return timed(lambda: [floor_hash(size) for _ in range(inner)]) / inner, {}
    blobs = [impl.FileBackedData(path) for _ in range(inner)]
    seconds = timed(lambda: [blob.sha256() for blob in blobs]) / inner
    for blob in blobs:
        blob.close()
    return seconds, {}


def op_copy(impl: Impl, path: str, target: str, inner: int = 1) -> tuple[float, dict[str, Any]]:
    unlink(target)
    if impl.FileBackedData is None:

        def run() -> None:
            for _ in range(inner):
                floor_copy(path, target)
    else:
        blob = impl.FileBackedData(path)

        def run() -> None:
            for _ in range(inner):
                with open(target, "wb") as out:
                    blob.write_to_file(out)

    seconds = timed(run) / inner
    if impl.FileBackedData is not None:
        blob.close()
    written = os.path.getsize(target)
    unlink(target)
    if written != os.path.getsize(path):
        raise AssertionError(f"wrote {written} bytes of {os.path.getsize(path)}")
    return seconds, {}


def op_bytesio(
    impl: Impl, path: str, inner: int = 1, prefaulted: bool = False
) -> tuple[float, dict[str, Any]]:
    size = os.path.getsize(path)
    if impl.FileBackedData is None:
        if prefaulted:  # a memcpy from the page cache into memory already mapped
            buffer = bytearray(size)
            return timed(lambda: readinto_all(path, buffer)), {}

        # what a BytesIO must at least do: get fresh memory for the blob, and read into it
        def fresh_buffers() -> None:
            for _ in range(inner):
                readinto_all(path, bytearray(size))

        return timed(fresh_buffers) / inner, {}
    blob = impl.FileBackedData(path)

    def run() -> None:
        for _ in range(inner):
            out = io.BytesIO()
            blob.write_to_file(out)
            if out.tell() != size:
                raise AssertionError(f"wrote {out.tell()} bytes of {size}")
            del out

    seconds = timed(run) / inner
    blob.close()
    return seconds, {}


def op_dedup_files(impl: Impl, paths: list[str]) -> tuple[float, dict[str, Any]]:
    """Add one file-backed blob per path to a new store: time and bytes read."""
    before = proc_io()
    if impl.FileBackedData is None:

        def run() -> None:
            for path in paths:
                fd = os.open(path, os.O_RDONLY)
                os.pread(fd, 32, 0)
                os.close(fd)

        seconds = timed(run)
        blobs: list[Any] = []
    else:
        store = impl.NamedDataStore()

        def run() -> None:
            for i, path in enumerate(paths):
                blob = impl.FileBackedData(path)
                blobs.append(blob)
                store.add_named_data(f"k{i}", blob)

        blobs = []
        seconds = timed(run)
    after = proc_io()
    buffers = len(store.get_named_data_store_output().buffers) if blobs else len(paths)
    for blob in blobs:
        blob.close()
    return seconds, {"rchar": after.get("rchar", 0) - before.get("rchar", 0), "buffers": buffers}


def op_dedup_duplicates_floor(impl: Impl, paths: list[str]) -> tuple[float, dict[str, Any]]:
    """What 1,000 duplicates need at least: read and hash each once (in one buffer)."""
    before = proc_io()
    buffer = memoryview(bytearray(MiB))

    def run() -> None:
        for path in paths:
            digest = hashlib.sha256()
            with open(path, "rb", buffering=0) as f:
                while n := f.readinto(buffer):
                    digest.update(buffer[:n])

    seconds = timed(run)
    after = proc_io()
    return seconds, {"rchar": after.get("rchar", 0) - before.get("rchar", 0), "buffers": 1}


def op_dedup_bytes(impl: Impl, count: int, size: int) -> tuple[float, dict[str, Any]]:
    """``count`` distinct ``bytes`` blobs of one length and one first 32 bytes: every add after the
    first is a fingerprint match that only digests settle."""
    blobs = [bytes(size - 8) + struct.pack("<q", i) for i in range(count)]
    counting = Counting()
    setattr(hashlib, "sha256", counting)  # noqa: B010  (both implementations look it up at call time)
    try:
        if impl.NamedDataStore is None:
            seconds = timed(lambda: [hashlib.sha256(blob).digest() for blob in blobs])
        else:
            store = impl.NamedDataStore()

            def run() -> None:
                for i, blob in enumerate(blobs):
                    store.add_named_data(f"k{i}", blob)

            seconds = timed(run)
            assert len(store.get_named_data_store_output().buffers) == count
    finally:
        setattr(hashlib, "sha256", counting.real)  # noqa: B010
    return seconds, {"hash_calls": counting.calls, "hashed_bytes": counting.hashed}


def op_move(impl: Impl, directory: str, count: int) -> tuple[float, dict[str, Any]]:
    """Seconds per ``move_from`` (or, for the floor, per bare ``os.rename``) of a small file."""
    sources = [os.path.join(directory, f"move{i}.bin") for i in range(count)]
    for path in sources:
        with open(path, "wb") as f:
            f.write(b"weights")
    moved: list[Any] = []
    if impl.FileBackedData is None:
        targets = [f"{path}.renamed" for path in sources]

        def renames() -> None:
            for source, target in zip(sources, targets, strict=True):
                os.rename(source, target)

        seconds = timed(renames)
        for path in targets:
            os.unlink(path)
    else:
        seconds = timed(lambda: moved.extend(impl.FileBackedData.move_from(s) for s in sources))
        for blob in moved:
            blob.close()
    return seconds / count, {}


def op_end_to_end(impl: Impl, paths: list[str], target: str) -> tuple[float, dict[str, Any]]:
    """Two stores add half the blobs each, one merges the other, a Cord of headers and every
    buffer is written to a file."""
    unlink(target)
    half = len(paths) // 2
    if impl.FileBackedData is None:

        def run() -> None:
            with open(target, "wb", buffering=0) as out:
                for path in paths:
                    out.write(HEADER)
                    with open(path, "rb", buffering=0) as src:
                        while os.copy_file_range(src.fileno(), out.fileno(), 1 << 30):
                            pass

        seconds = timed(run)
        blobs: list[Any] = []
    else:
        blobs = [impl.FileBackedData(path) for path in paths]

        def run() -> None:
            first, second = impl.NamedDataStore(), impl.NamedDataStore()
            for i, blob in enumerate(blobs[:half]):
                first.add_named_data(f"a{i}", blob, 64)
            for i, blob in enumerate(blobs[half:]):
                second.add_named_data(f"b{i}", blob, 64, "weights")
            first.merge_named_data_store(second.get_named_data_store_output())
            cord = impl.Cord()
            for buffer in first.get_named_data_store_output().buffers:
                cord.append(HEADER)
                cord.append(buffer)
            with open(target, "wb") as out:
                cord.write_to_file(out)

        seconds = timed(run)
    expected = sum(os.path.getsize(p) + len(HEADER) for p in paths)
    written = os.path.getsize(target)
    for blob in blobs:
        blob.close()
    unlink(target)
    if written != expected:
        raise AssertionError(f"wrote {written} bytes of {expected}")
    return seconds, {}


def op_memory(impl: Impl, path: str, target: str) -> tuple[float, dict[str, Any]]:
    """Peak RSS above the baseline, and bytes read, while hashing and then writing file -> file.
    Meant for a fresh process (``--once``): the baseline is taken here, before each operation."""
    size = os.path.getsize(path)
    unlink(target)
    blob = impl.FileBackedData(path) if impl.FileBackedData is not None else None

    def hash_it() -> None:
        if blob is None:
            digest = hashlib.sha256()
            buffer = memoryview(bytearray(MiB))
            with open(path, "rb", buffering=0) as f:
                while n := f.readinto(buffer):
                    digest.update(buffer[:n])
        else:
            blob.sha256()

    def write_it() -> None:
        if blob is None:
            floor_copy(path, target)
        else:
            with open(target, "wb") as out:
                blob.write_to_file(out)

    figures: dict[str, Any] = {"size": size}
    total = 0.0
    for name, call in (("hash", hash_it), ("write", write_it)):
        gc.collect()
        exact = reset_peak_rss()
        baseline = proc_status("VmRSS", "VmHWM")
        io_before = proc_io()
        total += timed(call)
        peak = proc_status("VmHWM")
        io_after = proc_io()
        start = baseline["VmRSS"] if exact else baseline["VmHWM"]
        figures[name] = {
            "peak_rss_kib": max(0, peak["VmHWM"] - start),
            "exact": exact,
            **{
                k: io_after[k] - io_before[k]
                for k in ("rchar", "wchar", "read_bytes")
                if k in io_after
            },
        }
    if blob is not None:
        blob.close()
    unlink(target)
    return total, figures


OPS: dict[str, Callable[..., tuple[float, dict[str, Any]]]] = {
    "hash": op_hash,
    "copy": op_copy,
    "bytesio": op_bytesio,
    "dedup_files": op_dedup_files,
    "dedup_duplicates_floor": op_dedup_duplicates_floor,
    "dedup_bytes": op_dedup_bytes,
    "move": op_move,
    "end_to_end": op_end_to_end,
    "memory": op_memory,
    "scale": op_scale,
}


def answer(impl: Impl, request: dict[str, Any]) -> dict[str, Any]:
    args = dict(request)
    op = OPS[args.pop("op")]
    _spent.update(wall=0.0, cpu=0.0)
    try:
        seconds, extra = op(impl, **args)
        if _spent["wall"]:  # CPU seconds for the same work as ``seconds``
            extra.setdefault("cpu", seconds * _spent["cpu"] / _spent["wall"])
    except Exception as exc:  # reported to the driver, which prints it in the table
        return {
            "ok": False,
            "error": f"{type(exc).__name__}: {exc}",
            "trace": traceback.format_exc(),
        }
    return {"ok": True, "seconds": seconds, **extra}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("impl", choices=["reference", "executorch", "floor"])
    parser.add_argument("--repo", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--once", metavar="REQUEST", help="answer this one JSON request and exit")
    parser.add_argument("--nice", type=int, help="run at this niceness (below 0 needs root)")
    args = parser.parse_args()
    niceness = os.getpriority(os.PRIO_PROCESS, 0)
    if args.nice is not None:
        with contextlib.suppress(OSError):  # threads made later inherit it
            os.setpriority(os.PRIO_PROCESS, 0, args.nice)
            niceness = args.nice
    try:
        impl = Impl(args.impl, args.repo)
    except Exception as exc:  # the driver says "not measured: <why>"
        print(json.dumps({"ok": False, "error": f"{type(exc).__name__}: {exc}"}), flush=True)
        raise SystemExit(1) from None
    hello = {
        "ok": True,
        "version": impl.version,
        "python": sys.version.split()[0],
        "nice": niceness,
    }
    if args.once:
        print(json.dumps({**hello, **answer(impl, json.loads(args.once))}), flush=True)
        return
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        print(json.dumps(answer(impl, json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
