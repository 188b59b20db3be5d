"""A deliberately broken implementation: the reference, but ``Cord.write_to_file`` writes the
pieces in reverse order (CORD-WRITE-1)."""

from __future__ import annotations

import reference
from reference import DataEntry, FileBackedData, NamedDataStore, NamedDataStoreOutput
from reference.file_backed import Writable

__all__ = ["Cord", "DataEntry", "FileBackedData", "NamedDataStore", "NamedDataStoreOutput"]


class Cord(reference.Cord):
    """The reference Cord, writing its pieces last to first."""

    def write_to_file(self, outfile: Writable) -> None:
        for piece in reversed(self.pieces):
            if isinstance(piece, bytes):
                outfile.write(piece)
            else:
                piece.write_to_file(outfile)
