"""Helpers the suite's tests share: files on disk, tracked FileBackedData, placeholder checks,
contents and digests, and deep views of a store's output."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..api import (
    Capability,
    DataEntry,
    FileBackedData,
    Implementation,
    NamedDataStore,
    NamedDataStoreOutput,
)
from .checks import ClauseFailure, check
from .model import FINGERPRINT_LENGTH, duplicate_key_message

StateEntry = tuple[str, int, int, object]

__all__ = [
    "PLACEHOLDER_GLOB",
    "PREFIX",
    "SHM",
    "Blobs",
    "State",
    "buffer_ids",
    "close_all",
    "close_each",
    "content",
    "duplicate_message",
    "fresh",
    "output_state",
    "placeholders",
    "real_sha256",
    "sha",
    "shm_directory",
    "snapshot",
    "sparse",
    "state",
    "tree",
    "zeros_digest",
]

PLACEHOLDER_GLOB = ".executorch_*.data"
PREFIX = b"P" * FINGERPRINT_LENGTH
"""A common first 32 bytes: blobs starting with it and of equal length share a fingerprint."""

real_sha256 = hashlib.sha256  # taken at import: tests replace hashlib.sha256 to count hashing


def placeholders(directory: Path) -> list[Path]:
    """Every placeholder-named file below ``directory``."""
    return sorted(directory.rglob(PLACEHOLDER_GLOB))


class Blobs:
    """Makes files and FileBackedData objects for one test, and closes every object it made."""

    def __init__(self, impl: Implementation, directory: Path) -> None:
        self.impl = impl
        self.directory = directory
        self._made: list[FileBackedData] = []
        self._names = itertools.count()

    def file(self, data: bytes, name: str | None = None, directory: Path | None = None) -> Path:
        """Write ``data`` to a new file (in the test's directory unless told); return its path."""
        path = (directory or self.directory) / (name or f"blob{next(self._names)}.bin")
        path.write_bytes(data)
        return path

    def track(self, blob: FileBackedData) -> FileBackedData:
        """Close ``blob`` at the end of the test."""
        self._made.append(blob)
        return blob

    def wrap(
        self, path: Path | str, cleanup: bool = False, sha256: bytes | None = None
    ) -> FileBackedData:
        """``FileBackedData(path, cleanup, sha256)``, tracked."""
        return self.track(self.impl.FileBackedData(str(path), cleanup=cleanup, sha256=sha256))

    def move(self, path: Path | str, sha256: bytes | None = None) -> FileBackedData:
        """``FileBackedData.move_from(path, sha256)``, tracked."""
        return self.track(self.impl.FileBackedData.move_from(str(path), sha256=sha256))

    def moved(self, data: bytes, sha256: bytes | None = None) -> FileBackedData:
        """A new file holding ``data``, taken over with ``move_from``."""
        return self.move(self.file(data), sha256=sha256)

    def sparse(self, size: int, head: bytes = b"", tail: bytes = b"") -> Path:
        """A new ``size``-byte file in the test's directory: see :func:`sparse`."""
        return sparse(self.file(b""), size, head, tail)

    def path(self, blob: FileBackedData) -> Path:
        """Where ``blob``'s file is now."""
        return Path(self.impl.path_of(blob))

    def close_all(self) -> None:
        """Close every tracked object, newest first; errors of one don't stop the others."""
        close_all(self._made)

    def require_hashing(self) -> None:
        """Precondition of a test that observes through digests: a borrowed file's ``sha256()``
        is hashlib's 32 raw bytes, else the test stops at FBD-HASH-1, which is then what failed,
        and its own clauses are neither passed nor failed."""
        if Capability.FILE_BACKED not in self.impl.capabilities:
            return  # the hooks' digests are their own, checked against hashlib by each test
        data = b"a digest to observe by"
        # in a directory of its own, so the test's is as it was (some tests count what is in
        # it), and whatever the implementation's close() does to the file is no concern here
        with tempfile.TemporaryDirectory(prefix="cordspec-precondition-") as scratch:
            path = self.file(data, directory=Path(scratch))
            blob = self.impl.FileBackedData(str(path), cleanup=False, sha256=None)
            try:
                got = blob.sha256()
            finally:
                with contextlib.suppress(Exception):
                    blob.close()
        check(
            got == real_sha256(data).digest(),
            f"sha256() of {data!r} gave {got!r}, not SHA-256's 32 bytes",
            "FBD-HASH-1",
        )


def close_each(made: list[FileBackedData]) -> list[BaseException]:
    """Close every object of ``made`` and empty it, newest first; return the errors (each close is
    attempted, so one failing close leaves no other object open). The error of a close of an
    object that was closed already names FBD-CLOSE-2 (a second close must not raise)."""
    errors: list[BaseException] = []
    while made:
        blob = made.pop()
        again = getattr(blob, "closed", False) is True
        try:
            blob.close()
        except Exception as exc:  # the caller decides what to raise
            if again:
                failure = ClauseFailure(f"a second close() raised {exc!r}", ("FBD-CLOSE-2",))
                failure.__cause__ = exc
                errors.append(failure)
            else:
                errors.append(exc)
    return errors


def left_behind(left: Sequence[Path], clauses: Sequence[str] = ()) -> ClauseFailure:
    """The failure for placeholder-named files left once every object was closed: FBD-CLOSE-1's
    (an owned file outlived its close), unless the test checks FBD-MOVE-4 (no placeholder of a
    failed move remains), which then answers for them."""
    blamed = "FBD-MOVE-4" if "FBD-MOVE-4" in clauses else "FBD-CLOSE-1"
    return ClauseFailure(
        f"placeholder(s) left behind: {', '.join(map(str, left))} ({blamed})", (blamed,)
    )


def close_all(made: list[FileBackedData]) -> None:
    """:func:`close_each`, then raise the first error, if any."""
    errors = close_each(made)
    if errors:
        raise errors[0]


def sparse(path: Path, size: int, head: bytes = b"", tail: bytes = b"") -> Path:
    """Make ``path`` a ``size``-byte file: ``head``, a hole of zeros, then ``tail``.

    The hole occupies no disk and reads fast, so files far larger than a memory or read bound are
    cheap."""
    with path.open("wb") as f:
        f.write(head)
        f.truncate(size - len(tail))
        f.seek(size - len(tail))
        f.write(tail)
    return path


SHM = Path("/dev/shm")
"""Where Linux mounts a tmpfs: another filesystem than a disk's, with no journal."""


@contextlib.contextmanager
def shm_directory(room: int = 0) -> Iterator[Path]:
    """A fresh directory under :data:`SHM`, removed with what it holds after the block; OSError
    where there is no ``/dev/shm``, it has less than ``room`` bytes free, or none can be made."""
    free = os.statvfs(SHM)
    if free.f_bavail * free.f_frsize < room:
        raise OSError(errno.ENOSPC, f"less than {room} bytes free", str(SHM))
    directory = Path(tempfile.mkdtemp(prefix="cordspec-", dir=SHM))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def zeros_digest(size: int, head: bytes = b"", tail: bytes = b"") -> bytes:
    """SHA-256 of what :func:`sparse` writes, without holding the zeros in memory."""
    digest = real_sha256(head)
    chunk = bytes(1 << 20)
    left = size - len(head) - len(tail)
    while left:
        n = min(left, len(chunk))
        digest.update(chunk[:n])
        left -= n
    digest.update(tail)
    return digest.digest()


def sha(data: bytes) -> bytes:
    """SHA-256 of ``data``, by the real ``hashlib.sha256`` even while a test has replaced it."""
    return real_sha256(data).digest()


def fresh(data: bytes) -> bytes:
    """An equal ``bytes`` object with an identity of its own."""
    return bytes(bytearray(data))


def duplicate_message(key: str, existing: int, new: int, *, whole: bool = True) -> str:
    """The exact NDS-KEY-3 message as a regex: the whole message, or a prefix if not ``whole``."""
    message = duplicate_key_message(key, existing, new)
    return "^" + re.escape(message) + (r"\Z" if whole else "")


@dataclass(frozen=True)
class State:
    """An output, deeply and in order: buffers by identity, every entry by value."""

    buffers: tuple[int, ...]
    pte_data: tuple[StateEntry, ...]
    external_data: tuple[tuple[str, tuple[StateEntry, ...]], ...]
    keep: tuple[object, ...] = field(default=(), compare=False, repr=False)  # ids stay unique


def _entries(entries: Mapping[str, DataEntry]) -> tuple[StateEntry, ...]:
    return tuple((k, e.buffer_index, e.alignment, e.tensor_layout) for k, e in entries.items())


def output_state(out: NamedDataStoreOutput) -> State:
    """The deep state of ``out`` as it is now."""
    return State(
        tuple(id(b) for b in out.buffers),
        _entries(out.pte_data),
        tuple((tag, _entries(entries)) for tag, entries in out.external_data.items()),
        tuple(out.buffers),
    )


def buffer_ids(store: NamedDataStore) -> list[int]:
    """The identities of the buffers of a fresh output of ``store``, in order."""
    return [id(b) for b in store.get_named_data_store_output().buffers]


def state(store: NamedDataStore) -> State:
    """The deep state of a fresh output of ``store``."""
    return output_state(store.get_named_data_store_output())


def snapshot(store: Any) -> tuple[object, ...]:
    """A looser view than :func:`state`: ``bytes`` buffers by value, others by identity, and entries
    as maps (their order is not compared); for stores handed hostile or faulty input."""
    out = store.get_named_data_store_output()
    return (
        [b if isinstance(b, bytes) else id(b) for b in out.buffers],
        {k: (e.buffer_index, e.alignment, e.tensor_layout) for k, e in out.pte_data.items()},
        {
            tag: {k: (e.buffer_index, e.alignment, e.tensor_layout) for k, e in entries.items()}
            for tag, entries in out.external_data.items()
        },
    )


def content(buffer: bytes | FileBackedData) -> bytes:
    """The bytes of a buffer, whichever its representation (checked to be ``bytes``)."""
    if isinstance(buffer, bytes):
        return buffer
    data = buffer.to_bytes()
    assert isinstance(data, bytes), f"to_bytes() returned {type(data).__name__}"
    return data


def tree(directory: Path) -> set[str]:
    """Every entry below ``directory`` (files, directories, links), relative to it."""
    found = set()
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            found.add(os.path.relpath(os.path.join(root, name), directory))
    return found
