"""Helpers the suite's tests share: files on disk, tracked FileBackedData, placeholder checks."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .api import DataEntry, FileBackedData, Implementation, NamedDataStore

Entry = tuple[str, int, int, object]

__all__ = ["PLACEHOLDER_GLOB", "Blobs", "State", "content", "placeholders", "state"]

PLACEHOLDER_GLOB = ".executorch_*.data"


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

    def path(self, blob: FileBackedData) -> Path:
        """Where ``blob``'s file is now."""
        return Path(self.impl.path_of(blob))

    def close_all(self) -> None:
        """Close every tracked object, newest first; errors of one don't stop the others."""
        errors: list[BaseException] = []
        while self._made:
            try:
                self._made.pop().close()
            except Exception as exc:  # each close is attempted; the first error is re-raised
                errors.append(exc)
        if errors:
            raise errors[0]


@dataclass(frozen=True)
class State:
    """An output, deeply and in order: buffers by identity, every entry by value."""

    buffers: tuple[int, ...]
    pte_data: tuple[Entry, ...]
    external_data: tuple[tuple[str, tuple[Entry, ...]], ...]
    keep: tuple[object, ...] = field(default=(), compare=False, repr=False)  # ids stay unique


def _entries(entries: Mapping[str, DataEntry]) -> tuple[Entry, ...]:
    return tuple((k, e.buffer_index, e.alignment, e.tensor_layout) for k, e in entries.items())


def state(store: NamedDataStore) -> State:
    """The deep state of a fresh output of ``store``."""
    out = store.get_named_data_store_output()
    return State(
        tuple(id(b) for b in out.buffers),
        _entries(out.pte_data),
        tuple((tag, _entries(entries)) for tag, entries in out.external_data.items()),
        tuple(out.buffers),
    )


def content(buffer: bytes | FileBackedData) -> bytes:
    """The bytes of a buffer, whichever its representation."""
    return buffer if isinstance(buffer, bytes) else buffer.to_bytes()
