"""Helpers the suite's tests share: files on disk, tracked FileBackedData, placeholder checks."""

from __future__ import annotations

import itertools
from pathlib import Path

from .api import FileBackedData, Implementation

__all__ = ["PLACEHOLDER_GLOB", "Blobs", "placeholders"]

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
