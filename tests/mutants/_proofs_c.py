"""Tools the direct proofs (``scenario``) of several mutants share: owned files, outputs that take
part of a write or fail, sparse files, the shards of a store, the default weights load. Each runs
against any implementation and cleans up what it made."""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import io
import os
import re
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from unittest import mock

from conformance.api import Implementation
from tests.blind._support import directory, make_file, read_cost, read_file

__all__ = [
    "Sink",
    "blob_in",
    "move_that_fails",
    "moved_path",
    "prefix_cost",
    "raised",
    "readd_refused",
    "reads_refused",
    "reaped",
    "shard_tag",
    "shards_problem",
    "sparse_written",
    "tag_problem",
    "to_real_file",
    "weights_loaded",
    "whole_read",
    "written_to",
]

_MiB = 1 << 20


def raised(action: Callable[[], object]) -> BaseException | None:
    """The exception ``action`` raised, or None."""
    try:
        action()
    except Exception as exc:
        return exc
    return None


def move_that_fails(impl: Implementation) -> str | None:
    """``move_from`` whose rename fails with ``EIO`` before it takes effect: it must raise and
    leave the directory as it was, the source whole at its name and no placeholder
    (FBD-MOVE-4, FBD-MOVE-5)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EIO, "injected: the rename failed")

    with directory() as tmp:
        source = make_file(os.path.join(tmp, "weights"), b"precious weights")
        with mock.patch("os.replace", refuse), mock.patch("os.rename", refuse):
            error = raised(lambda: impl.FileBackedData.move_from(source))
        left = sorted(os.listdir(tmp))
        if error is None:
            return "move_from succeeded although its rename failed"
        if not os.path.exists(source) or read_file(source) != b"precious weights":
            return f"a failed move_from lost its source (the directory holds {left})"
        if left != ["weights"]:
            return f"a failed move_from left {left} in the source's directory"
        return None


def prefix_cost(impl: Implementation, want: int = 32, size: int = 4 * _MiB) -> str | None:
    """``prefix(want)`` of a file of ``size`` bytes: those bytes, reading at most ``want`` + 64
    KiB (FBD-READ-1)."""
    with directory() as tmp:
        data = os.urandom(size)
        blob = impl.FileBackedData(make_file(os.path.join(tmp, "w"), data))
        got: list[bytes] = []
        cost = read_cost(lambda: got.append(blob.prefix(want)))
        if got[0] != data[:want]:
            return f"prefix({want}) returned {len(got[0])} bytes, not the file's first {want}"
        if cost > want + (64 << 10) + 4096:
            return f"prefix({want}) of a {size}-byte file read {cost} bytes"
        return None


def whole_read(impl: Implementation, size: int, read: Callable[[Any], bytes]) -> str | None:
    """``read`` of a blob of ``size`` random bytes gives them all."""
    with directory() as tmp:
        data = os.urandom(size)
        got = read(impl.FileBackedData(make_file(os.path.join(tmp, "w"), data)))
        if got != data:
            return f"a blob of {size} bytes was read as {len(got)} bytes (equal: {got == data})"
        return None


@contextlib.contextmanager
def blob_in(impl: Implementation, cleanup: bool = False) -> Iterator[tuple[str, str, Any]]:
    """A blob of ``b"weights"`` over the file ``w`` of a fresh directory, owned or not: the
    directory, the file's path and the blob, closed after the block."""
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"weights")
        blob = impl.FileBackedData(path, cleanup=cleanup)
        try:
            yield tmp, path, blob
        finally:
            blob.close()


def reads_refused(blob: Any, why: str) -> str | None:
    """Each read of ``blob`` (``prefix``, ``sha256``, ``to_bytes``, ``write_to_file``) raises an
    ``OSError``, as it must where its file is no longer what it was (``why``): FBD-CHANGE-1,
    FBD-READ-4."""
    for method, args in (
        ("prefix", (4,)),
        ("sha256", ()),
        ("to_bytes", ()),
        ("write_to_file", (io.BytesIO(),)),
    ):
        error = raised(functools.partial(getattr(blob, method), *args))
        if not isinstance(error, OSError):
            return f"{method}() of a blob {why} gave {error!r}, not an OSError"
    return None


class Sink:
    """A plain writable (no file, no ``BytesIO``): takes at most ``take`` bytes a call, and raises
    ``OSError`` at the calls numbered in ``failing`` (from 1) without taking anything."""

    def __init__(self, take: int | None = None, failing: Sequence[int] = ()) -> None:
        self.data = bytearray()
        self.calls = 0
        self.take = take
        self.failing = failing

    def write(self, data: bytes | memoryview) -> int:
        self.calls += 1
        if self.calls in self.failing:
            raise OSError(errno.EIO, "injected: the output failed")
        piece = bytes(data[: self.take] if self.take is not None else data)
        self.data += piece
        return len(piece)


def written_to(impl: Implementation, size: int, sink: Any) -> str | None:
    """``write_to_file`` of a blob of ``size`` random bytes into ``sink`` (a ``Sink``): every byte
    taken, in order, or an error raised."""
    with directory() as tmp:
        data = os.urandom(size)
        blob = impl.FileBackedData(make_file(os.path.join(tmp, "w"), data))
        error = raised(lambda: blob.write_to_file(sink))
        if error is None and bytes(sink.data) != data:
            return (
                f"write_to_file returned, but its output holds {len(sink.data)} bytes "
                f"of a {size}-byte blob (equal: {bytes(sink.data) == data})"
            )
        return None


def to_real_file(impl: Implementation, data: bytes, before: bytes, seek: int, mode: str) -> bytes:
    """What a file holding ``before``, opened with ``mode`` and at ``seek``, holds after a blob of
    ``data`` is written into it."""
    with directory() as tmp:
        blob = impl.FileBackedData(make_file(os.path.join(tmp, "w"), data))
        out = make_file(os.path.join(tmp, "out"), before)
        with open(out, mode) as f:
            f.seek(seek)
            blob.write_to_file(f)
        return read_file(out)


_HOLE = 64 << 10


def sparse_written(impl: Implementation, before: bytes, mode: str, seek: int) -> str | None:
    """A sparse blob (a hole, data, a hole, data, a hole, each 64 KiB) written into a file holding
    ``before``, opened with ``mode``, at ``seek`` (the end in append mode): the file must hold
    ``before`` up to there, then the blob's bytes, holes as zeros (FBD-WRITE-1)."""
    with directory() as tmp:
        path = os.path.join(tmp, "sparse")
        data = bytearray(5 * _HOLE)
        data[_HOLE : 2 * _HOLE] = os.urandom(_HOLE)
        data[3 * _HOLE : 4 * _HOLE] = os.urandom(_HOLE)
        with open(path, "wb") as f:
            for start in (_HOLE, 3 * _HOLE):
                f.seek(start)
                f.write(data[start : start + _HOLE])
            f.truncate(len(data))
        fd = os.open(path, os.O_RDONLY)
        try:
            first = os.lseek(fd, 0, os.SEEK_DATA)
        finally:
            os.close(fd)
        if first != _HOLE:  # pragma: no cover  # a filesystem without holes
            return f"no sparse file could be made in {tmp} (first data at {first})"
        blob = impl.FileBackedData(path)
        out = make_file(os.path.join(tmp, "out"), before)
        with open(out, mode) as f:
            f.seek(seek)
            blob.write_to_file(f)
        at = len(before) if "a" in mode else seek
        want = before[:at] + bytes(data) + before[at + len(data) :]
        got = read_file(out)
        if got != want:
            wrong = next(
                (i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), None
            )
            return (
                f"a sparse blob written at {at} of a {len(before)}-byte file (mode {mode!r}): "
                f"the file holds {len(got)} bytes ({len(want)} due), the first wrong at {wrong}"
            )
        return None


def _shards(
    impl: Implementation, keys: Sequence[str], sizes: Sequence[int], cap: int
) -> list[tuple[str, list[str]]]:
    """The (tag, keys) of the shards ``externalize_pte_data(cap, "s")`` makes of a store given
    inline ``keys`` in that order, with distinct contents of ``sizes`` bytes."""
    store: Any = impl.NamedDataStore()
    for n, (key, size) in enumerate(zip(keys, sizes, strict=True)):
        store.add_named_data(key, n.to_bytes(4, "big") * (size // 4))
    store.externalize_pte_data(cap, "s")
    external = store.get_named_data_store_output().external_data
    return [(tag, list(entries)) for tag, entries in external.items()]


def shards_problem(
    impl: Implementation, keys: Sequence[str], sizes: Sequence[int], cap: int
) -> str | None:
    """The shards of ``keys`` (added in that order, of ``sizes`` bytes) under ``cap`` against
    what NDS-EXT-3 and NDS-EXT-4 (NDS-EXT-9 for keys holding NUL) give."""
    groups: list[list[str]] = []
    current = 0
    for key, size in sorted(zip(keys, sizes, strict=True)):
        if not groups or current + size > cap:
            groups.append([])
            current = 0
        groups[-1].append(key)
        current += size
    want = [(shard_tag(group), group) for group in groups]
    got = _shards(impl, keys, sizes, cap)
    if got != want:
        return f"externalize_pte_data({cap}) after adding {list(keys)} made {got}, not {want}"
    return None


def shard_tag(keys: Sequence[str]) -> str:
    """NDS-EXT-4's tag of a shard of ``keys`` with prefix ``s``, NULs escaped as NDS-EXT-9 says."""
    joined = b"\0".join(k.encode().replace(b"\0", b"\xff") for k in sorted(keys))
    return f"s_{hashlib.sha256(joined).hexdigest()}"


def weights_loaded(impl: Implementation) -> str | None:
    """The default ``load_weights_blob`` of a blob: its bytes, their lowercase hex SHA-256, and
    the file removed (HOOK-LOAD-1)."""
    assert impl.weights is not None
    with directory() as tmp:
        data = os.urandom(1000)
        path = make_file(os.path.join(tmp, "model_weights.blob"), data)
        got, digest = impl.weights.load(path, ())
        if bytes(got) != data:  # type: ignore[call-overload]  # a CordBuffer
            return "load_weights_blob returned other bytes than the blob's"
        if digest != hashlib.sha256(data).hexdigest():
            return f"load_weights_blob returned the digest {digest!r}, not the lowercase hex"
        if os.path.exists(path):
            return "load_weights_blob left the blob's file on disk"
        return None


def moved_path(impl: Implementation, source: str) -> str:
    """Where ``move_from(source)`` put the file (its owner closed again at once)."""
    blob = impl.FileBackedData.move_from(source)
    try:
        return str(impl.path_of(blob))
    finally:
        blob.close()


def readd_refused(
    impl: Implementation, first: dict[str, Any], second: dict[str, Any]
) -> str | None:
    """Key ``k`` added with ``first`` then re-added, equal contents, with ``second``: refused with
    ``ValueError`` (NDS-KEY-5, NDS-KEY-6)."""
    store: Any = impl.NamedDataStore()
    store.add_named_data("k", b"weights", **first)
    error = raised(lambda: store.add_named_data("k", b"weights", **second))
    if not isinstance(error, ValueError):
        return f"re-adding 'k' ({first} then {second}) gave {error!r}, not ValueError"
    return None


def reaped(pid: int, seconds: float) -> int | None:
    """Wait at most ``seconds`` for the child ``pid`` to end: its wait status, or None when it had
    not ended by then and was killed."""
    deadline = time.monotonic() + seconds
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.01)


def tag_problem(path: str) -> str | None:
    """What is wrong with ``path``'s name as this process's placeholder (FBD-MOVE-10)."""
    with open(f"/proc/{os.getpid()}/stat", "rb") as f:
        line = f.read()
    start = line[line.rfind(b")") + 1 :].split()[19].decode()
    pattern = rf"\.executorch_{os.getpid()}-{start}_[a-z0-9_]{{8}}\.data"
    name = os.path.basename(path)
    if re.fullmatch(pattern, name) is None:
        return f"process {os.getpid()} (started at {start}) named its placeholder {name!r}"
    return None
