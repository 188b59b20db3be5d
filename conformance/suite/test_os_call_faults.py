"""Faults on both sides of every OS call the spec's operations make: each call of an
operation, in turn, raises ``OSError(EIO)`` before it ran, and again after it took effect (a rename
that happened, a write that landed, an unlink that removed, each then reporting an error). Whatever
the timing, the caller sees the error, the user's data survives (a moved source is back at its
path, a blob still reads right, no digest is cached from a failed read), no placeholder is left,
and a failed ``close()`` can be retried. Only the failure of a descriptor's ``close`` may be
absorbed, and a query's (a ``stat``, a hole lookup), and then the result must still be right."""

from __future__ import annotations

import gc
import io
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.api import FileBackedData, Implementation
from conformance.harness.checks import check
from conformance.harness.helpers import Blobs, placeholders, sha
from conformance.harness.observe import unobserved
from conformance.harness.os_faults import Call, calls_of, each_fault
from conformance.harness.syscall_scenarios import CLOSE, MOVE, reading, run_below_python

clause = pytest.mark.clause
requires = pytest.mark.requires

DATA = random.Random("os-call-faults").randbytes((64 << 10) + 4099)
"""More than a 64 KiB read buffer and not a multiple of it."""
TIMINGS = pytest.mark.parametrize("after", [False, True], ids=["before", "after"])


def _calls(run: Callable[[], object]) -> list[Call]:
    """The faultable calls one clean run of ``run`` makes."""
    gc.collect()  # no finalizer of an earlier test's object runs inside the count
    with calls_of() as seen:
        run()
    return seen


def _count(run: Callable[[], object], doing: str, below: Callable[[str], None]) -> int | None:
    """How many faultable calls one clean run of ``run`` makes; a run in which the harness saw
    none (the implementation reached the OS another way) is judged ``below`` Python instead
    (given why: it raises what it found, or ends the test unobserved), and then None."""
    calls = len(_calls(run))
    if not calls:
        below(f"the implementation made no os call the harness could see while {doing}")
        return None
    return calls


RENAMES = frozenset({"replace", "rename", "link"})
"""What a move must call: the source is renamed (or linked) into place (FBD-MOVE-1)."""
REMOVALS = frozenset({"unlink", "remove", "replace", "rename"})
"""What a close of an owned file must call: the file is removed (FBD-CLOSE-1)."""


@requires("file-backed")
class TestFaultsInMoveFrom:
    @clause("FBD-MOVE-4", "FBD-MOVE-5", "FBD-FAULT-1")
    @TIMINGS
    def test_the_source_survives_a_fault_at_any_call(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, after: bool
    ) -> None:
        def fresh_source(n: int) -> Path:
            directory = tmp_path / f"run{n}"
            directory.mkdir()
            return blobs.file(DATA, "weights.bin", directory)

        def fresh(index: int) -> tuple[Path, int]:
            source = fresh_source(index + 1)
            return source, source.stat().st_ino

        def move(made: tuple[Path, int]) -> FileBackedData:
            return blobs.move(made[0])

        seen = _calls(lambda: blobs.move(fresh_source(0)))
        if not any(call.name in RENAMES for call in seen):
            unseen = "the implementation made no os.replace/os.rename/os.link the harness could see"
            run_below_python(impl, MOVE, tmp_path, unseen, after=after)
            return
        calls = len(seen)
        for one in each_fault(calls, after, fresh, move, "FBD-FAULT-1"):
            (source, inode), fault = one.subject, one.fault
            if one.error is not None:
                check(
                    source.exists() and source.read_bytes() == DATA,
                    f"after a fault {fault.timing} {fault.fired}, the source is lost",
                    "FBD-MOVE-5",
                )
                check(
                    source.stat().st_ino == inode,
                    f"after a fault {fault.timing} {fault.fired}, the source is another file",
                    "FBD-MOVE-5",
                )
                left = placeholders(source.parent)
                for placeholder in left:  # gone before the check fails, so only it reports them
                    placeholder.unlink()
                check(not left, f"a fault {fault.timing} {fault.fired} left {left}", "FBD-MOVE-4")
                continue
            check(not source.exists(), "a move that returned left the source", "FBD-MOVE-5")
            kept = blobs.path(one.returned).read_bytes()  # the file itself, not a read of the blob
            check(kept == DATA, "a move that returned lost data", "FBD-MOVE-5")


@requires("file-backed")
class TestFaultsInClose:
    @clause("FBD-CLOSE-1", "FBD-CLOSE-6", "FBD-CLOSE-7")
    @TIMINGS
    def test_a_failed_release_raises_and_can_be_retried(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, after: bool
    ) -> None:
        def owned(n: int) -> tuple[FileBackedData, Path]:
            blob = blobs.wrap(blobs.file(DATA[:100], f"owned{n}.bin"), cleanup=True)
            return blob, blobs.path(blob)

        def close(made: tuple[FileBackedData, Path]) -> None:
            made[0].close()

        first, _ = owned(0)
        seen = _calls(first.close)
        if not any(call.name in REMOVALS for call in seen):
            unseen = "the implementation made no os.unlink/os.remove the harness could see"
            run_below_python(impl, CLOSE, tmp_path, unseen, after=after)
            return
        calls = len(seen)
        for one in each_fault(calls, after, lambda index: owned(index + 1), close, "FBD-CLOSE-7"):
            (blob, path), fault = one.subject, one.fault
            if one.error is not None:
                check(
                    getattr(blob, "closed", False) is False,
                    f"a close() that raised at {fault.fired} left the object closed",
                    "FBD-CLOSE-7",
                )
                try:
                    blob.close()  # the retry: the file may be gone already ("after" an unlink)
                except Exception as again:
                    check(False, f"the retry of close() raised {again!r}", "FBD-CLOSE-6")
            check(not path.exists(), f"{path} outlived its release", "FBD-CLOSE-1")


def _into_file(tmp_path: Path) -> tuple[Callable[[Callable[[Any], None]], bytes], str]:
    def write(into: Callable[[Any], None]) -> bytes:
        out = tmp_path / "out.bin"
        with open(out, "wb") as f:
            into(f)
        return out.read_bytes()

    return write, "a file"


def _into_bytesio(tmp_path: Path) -> tuple[Callable[[Callable[[Any], None]], bytes], str]:
    def write(into: Callable[[Any], None]) -> bytes:
        out = io.BytesIO()
        into(out)
        return out.getvalue()

    return write, "an io.BytesIO"


SINKS = pytest.mark.parametrize("sink", [_into_file, _into_bytesio], ids=["file", "bytesio"])


@requires("file-backed")
class TestFaultsInReadsAndWrites:
    @clause("FBD-FAULT-1", "FBD-WRITE-1", "CORD-WRITE-1")
    @TIMINGS
    @SINKS
    @pytest.mark.parametrize("how", ["blob", "cord"])
    def test_a_write_raises_the_fault_and_the_blob_stays_whole(
        self,
        impl: Implementation,
        blobs: Blobs,
        tmp_path: Path,
        after: bool,
        sink: Callable[..., Any],
        how: str,
    ) -> None:
        blob = blobs.wrap(blobs.file(DATA))
        write, name = sink(tmp_path)
        if how == "blob":
            into: Callable[[Any], None] = blob.write_to_file
            want = DATA
        else:
            cord = impl.Cord(b"<")
            cord.append(blob)
            cord.append(b">")
            into, want = cord.write_to_file, b"<" + DATA + b">"
        blamed = "FBD-WRITE-1" if how == "blob" else "CORD-WRITE-1"
        clean: list[bytes] = []
        method = (
            f"{'cord-' if how == 'cord' else ''}write-{'file' if name == 'a file' else 'bytesio'}"
        )
        calls = _count(
            lambda: clean.append(write(into)),
            f"writing into {name}",
            lambda unseen: run_below_python(impl, reading(method), tmp_path, unseen, after=after),
        )
        if calls is None:
            return
        check(clean == [want], f"into {name}, without a fault: wrong output", blamed)
        for one in each_fault(calls, after, lambda _: into, write, "FBD-FAULT-1"):
            fault = one.fault
            if one.error is None:
                check(
                    one.returned == want,
                    f"into {name}, {fault.fired} faulted: wrong output",
                    blamed,
                )
            check(
                write(into) == want,
                f"after a fault {fault.timing} {fault.fired}, the blob no longer writes right",
                "FBD-FAULT-1",
            )

    @clause("FBD-FAULT-1", "FBD-HASH-1", "FBD-READ-1", "FBD-READ-2")
    @TIMINGS
    @pytest.mark.parametrize("method", ["sha256", "prefix", "to_bytes"])
    def test_a_read_raises_the_fault_and_caches_nothing(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, after: bool, method: str
    ) -> None:
        path = blobs.file(DATA)
        want = {"sha256": sha(DATA), "prefix": DATA[:40000], "to_bytes": DATA}[method]
        clause_id = {"sha256": "FBD-HASH-1", "prefix": "FBD-READ-1", "to_bytes": "FBD-READ-2"}

        def call(blob: FileBackedData) -> bytes:
            return blob.prefix(40000) if method == "prefix" else getattr(blob, method)()

        clean: list[bytes] = []
        counted = blobs.wrap(path)  # made outside the count, as each faulted one is
        calls = _count(
            lambda: clean.append(call(counted)),
            f"running {method}()",
            lambda unseen: run_below_python(impl, reading(method), tmp_path, unseen, after=after),
        )
        if calls is None:
            return
        check(clean == [want], f"{method}() without a fault answers wrong", clause_id[method])
        for one in each_fault(calls, after, lambda _: blobs.wrap(path), call, "FBD-FAULT-1"):
            fault = one.fault
            if one.error is None:
                check(
                    one.returned == want,
                    f"{method}() with {fault.fired} faulted",
                    clause_id[method],
                )
            check(
                call(one.subject) == want,
                f"after a fault {fault.timing} {fault.fired}, {method}() answers wrong",
                "FBD-FAULT-1",
            )

    @clause("FBD-FAULT-1", "NDS-DEDUP-1", "FBD-HASH-1")
    @TIMINGS
    def test_an_add_raises_the_fault_and_a_retry_shares(
        self, impl: Implementation, blobs: Blobs, after: bool
    ) -> None:
        path = blobs.file(DATA)

        def add(store: Any) -> None:  # a fingerprint match: the new blob must be hashed
            store.add_named_data("again", blobs.wrap(path))

        def store_with_bytes() -> Any:
            store = impl.NamedDataStore()
            store.add_named_data("first", DATA)
            return store

        premise = blobs.wrap(path).sha256() == sha(DATA)
        check(premise, "sha256() is not the contents' digest", "FBD-HASH-1")
        calls = _count(lambda: add(store_with_bytes()), "adding a file-backed blob", unobserved)
        if calls is None:
            return
        for one in each_fault(calls, after, lambda _: store_with_bytes(), add, "FBD-FAULT-1"):
            store, fault = one.subject, one.fault
            if one.error is not None:
                add(store)
            out = store.get_named_data_store_output()
            check(
                len(out.buffers) == 1 and out.pte_data["again"].buffer_index == 0,
                f"after a fault {fault.timing} {fault.fired}, equal blobs do not share",
                "NDS-DEDUP-1",
            )
