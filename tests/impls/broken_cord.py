"""A port with one bug: the reference, but ``Cord.write_to_file`` writes the pieces last to first
(CORD-WRITE-1), each piece checked first and streamed as the reference does."""

from __future__ import annotations

import reference
from reference import DataEntry, FileBackedData, NamedDataStore, NamedDataStoreOutput
from reference.file_backed import Writable

__all__ = ["Cord", "DataEntry", "FileBackedData", "NamedDataStore", "NamedDataStoreOutput"]


class Cord(reference.Cord):
    """The reference Cord, writing its pieces last to first."""

    def write_to_file(self, outfile: Writable) -> None:
        backwards = reference.Cord()
        for piece in reversed(self.pieces):
            backwards.append(piece)
        reference.Cord.write_to_file(backwards, outfile)
