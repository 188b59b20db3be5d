"""The input classes of the core read, write, hash, prefix and dedup paths: blob sizes on
every boundary a chunked or size-special path has, sparse files with a hole at each end and in the
middle, and sinks at their start, middle and end, over existing bytes, in append mode, raw and
short. Each class knows its contents, and each sink what it must hold after a write, so that a test
compares whole outputs, never a length alone."""

from __future__ import annotations

import io
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .sinks import ShortWriter, WriteOnly

__all__ = [
    "BLOB_CLASSES",
    "CHUNKS",
    "READ_BUFFER",
    "SHORT_WRITE",
    "SINKS",
    "SPARSE_CLASSES",
    "WRITE_CLASSES",
    "BlobClass",
    "Sink",
    "content_of",
]

KiB = 1 << 10
MiB = 1 << 20
READ_BUFFER = 64 * KiB
"""The read buffer FBD-READ-1 and NDS-DEDUP-3 allow beyond a prefix."""
SMALL_FILE = 4 * KiB
"""A page: the reference reads a file of at most this size whole and writes it like a ``bytes``
piece, and copies a larger one in the kernel; a size on each side samples both paths."""
CHUNKS = (MiB, 8 * MiB)
"""Chunk sizes of the implementations known: the reference's 1 MiB, ExecuTorch's 8 MiB."""


@dataclass(frozen=True)
class BlobClass:
    """A blob's shape: its size and, for a sparse file, its data segments (offset, length); the
    rest of a sparse file is holes. A dense blob is data from end to end."""

    name: str
    size: int
    segments: tuple[tuple[int, int], ...] | None = None

    @property
    def sparse(self) -> bool:
        return self.segments is not None

    def data(self) -> bytes:
        return content_of(self)

    def write(self, path: Path) -> Path:
        """Make ``path`` this blob: a dense file, or a sparse one with holes the OS keeps."""
        if self.segments is None:
            path.write_bytes(self.data())
            return path
        rng = random.Random(self.name)
        with open(path, "wb") as f:
            f.truncate(self.size)
            for offset, length in self.segments:
                f.seek(offset)
                f.write(rng.randbytes(length))
        return path


_CONTENTS: dict[BlobClass, bytes] = {}


def content_of(blob: BlobClass) -> bytes:
    """The contents of ``blob``: pseudo-random bytes (so that a shifted or repeated byte shows),
    zeros in a sparse file's holes. Made once per class."""
    if blob not in _CONTENTS:
        if blob.segments is None:
            _CONTENTS[blob] = random.Random(blob.name).randbytes(blob.size)
        else:
            rng = random.Random(blob.name)
            made = bytearray(blob.size)
            for offset, length in blob.segments:
                made[offset : offset + length] = rng.randbytes(length)
            _CONTENTS[blob] = bytes(made)
    return _CONTENTS[blob]


def _dense(size: int, name: str) -> BlobClass:
    return BlobClass(name, size)


HOLE = 64 * KiB
"""A hole this long and this aligned is one on every filesystem that keeps holes."""

SPARSE_CLASSES: tuple[BlobClass, ...] = (
    BlobClass("leading-hole", 2 * HOLE + 777, ((2 * HOLE, 777),)),
    BlobClass("middle-hole", 3 * HOLE + 5, ((0, 20000), (2 * HOLE, HOLE + 5))),
    BlobClass("trailing-hole", 3 * HOLE + 99, ((0, HOLE + 3000),)),
    BlobClass("all-hole", 2 * HOLE + 5, ()),
)
"""Sparse files whose hole leads, sits in the middle, trails, or is the whole file."""

WRITE_CLASSES: tuple[BlobClass, ...] = (
    _dense(0, "empty"),
    _dense(1, "1"),
    _dense(31, "31"),
    _dense(32, "32"),
    _dense(33, "33"),
    _dense(SMALL_FILE, "small-file"),
    _dense(SMALL_FILE + 1, "small-file+1"),
    _dense(READ_BUFFER + 1, "read-buffer+1"),
    _dense(MiB - 1, "chunk-1"),
    _dense(MiB, "chunk"),
    _dense(MiB + 1, "chunk+1"),
    _dense(2 * MiB + 12345, "above-a-chunk"),
    *SPARSE_CLASSES,
)
"""Sizes 0, 1, 31, 32, 33 (around the 32-byte fingerprint), a page and one past it (the size up to
which a file piece may be read whole and written like bytes), one past the read buffer, around a
1 MiB chunk, above a chunk and not a multiple of it, and the sparse files: what every write path
is run with."""

BLOB_CLASSES: tuple[BlobClass, ...] = (*WRITE_CLASSES, _dense(8 * MiB + 3, "above-8MiB-chunk"))
"""The write classes and a blob just above ExecuTorch's 8 MiB chunk: what the read, hash, prefix
and dedup paths are run with (a read costs a fraction of a write into a dozen sinks)."""

SHORT_WRITE = 4099
"""The most a short-writing sink takes in one call."""

FILL = 0xEE
"""What an output holds before a write over existing bytes."""


@dataclass(frozen=True)
class Sink:
    """An output of ``write_to_file``: of a ``kind``, holding ``before`` bytes of existing data
    (``over`` adds as many as the data written, so the write lands inside them), written from
    ``at`` (None: its end)."""

    name: str
    kind: str  # bytesio, file, raw, append, write-only, short
    before: int = 0
    at: int | None = None
    over: bool = False

    def existing(self, size: int) -> bytes:
        return bytes([FILL]) * (self.before + (size if self.over else 0))

    def expected(self, head: bytes, data: bytes) -> bytes:
        """What the output holds after ``head`` was in it and ``data`` was written."""
        if self.kind in ("write-only", "short"):
            return data
        if self.kind == "append":
            return head + data
        at = len(head) if self.at is None else self.at
        padded = head.ljust(at, b"\0")
        return padded[:at] + data + padded[at + len(data) :]

    @contextmanager
    def open(self, directory: Path, size: int) -> Iterator[tuple[Any, Callable[[], bytes]]]:
        """The output, ready at its position, and how to read what it holds once closed."""
        head = self.existing(size)
        at = len(head) if self.at is None else self.at
        if self.kind == "bytesio":
            buffer = io.BytesIO(head)
            buffer.seek(at)
            yield buffer, buffer.getvalue
            return
        if self.kind in ("write-only", "short"):
            sink: Any = WriteOnly() if self.kind == "write-only" else ShortWriter(SHORT_WRITE)
            yield (
                sink,
                lambda: b"".join(sink.parts) if self.kind == "write-only" else bytes(sink.received),
            )
            return
        path = directory / f"out-{self.name}.bin"
        path.write_bytes(head)
        mode = "ab" if self.kind == "append" else "r+b"
        with open(path, mode, buffering=0 if self.kind == "raw" else -1) as f:
            if self.kind != "append":
                f.seek(at)
            yield f, path.read_bytes  # read once the block has closed the file


SINKS: tuple[Sink, ...] = (
    Sink("bytesio-start", "bytesio"),
    Sink("bytesio-end", "bytesio", before=64),
    Sink("bytesio-middle", "bytesio", before=64, at=16),
    Sink("bytesio-over-existing", "bytesio", before=64, at=16, over=True),
    Sink("file-start", "file"),
    Sink("file-end", "file", before=64),
    Sink("file-past-end", "file", before=64, at=100),
    Sink("file-over-existing", "file", before=64, at=16, over=True),
    Sink("file-append", "append", before=64),
    Sink("raw-over-existing", "raw", before=64, at=16, over=True),
    Sink("write-only", "write-only"),
    Sink("short-writes", "short"),
)
"""Outputs at their start, end, past their end and inside existing bytes; an append-mode file; a
raw file; an object with only ``write``; a raw sink taking at most SHORT_WRITE bytes a call."""
