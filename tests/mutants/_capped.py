"""A ``Cord`` whose write checks its file pieces with the reference's ``checked_readers`` cut into
the steps a mutant breaks: how many readers it may hold, and what it does with a piece past them.
Nothing here is broken by itself."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

import reference
from reference import cord as cord_module
from reference.file_backed import FileBackedData, _readers_allowed, check_writable
from reference.verified_reader import _VerifiedReader

__all__ = ["CappedCord"]


class CappedCord(reference.Cord):
    """The reference's Cord, with ``_allowed`` and ``_past_the_cap`` as steps."""

    @staticmethod
    def _allowed() -> int:
        return _readers_allowed()

    @staticmethod
    def _past_the_cap(piece: FileBackedData) -> None:
        piece._verify()

    def write_to_file(self, outfile: Any) -> None:
        if not self._files:
            super().write_to_file(outfile)
            return
        check_writable(outfile)
        with self._checked(self._buffers) as readers:
            cord_module._write_pieces(outfile, self._buffers, readers)

    @contextlib.contextmanager
    def _checked(self, pieces: Iterable[object]) -> Iterator[dict[int, _VerifiedReader]]:
        readers: dict[int, _VerifiedReader] = {}
        allowed = self._allowed()
        try:
            with contextlib.ExitStack() as held:
                directories: dict[tuple[str, tuple[int, int]], int] = {}
                for piece in pieces:
                    if not isinstance(piece, FileBackedData) or id(piece) in readers:
                        continue
                    if len(readers) + len(directories) >= allowed:
                        self._past_the_cap(piece)
                        continue
                    piece._check_open()
                    where = piece._location
                    key = (where.directory, where.directory_identity)
                    directory = directories.get(key)
                    if directory is None:
                        directory = held.enter_context(where.opened_directory())
                        directories[key] = directory
                    readers[id(piece)] = piece._open(directory)
            yield readers
        finally:
            for reader in readers.values():
                reader.close()
