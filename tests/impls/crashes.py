"""A port that kills the interpreter in one call: the reference, but ``Cord.write_to_file`` ends
the process with ``os._exit(0)`` (as a crash in an extension module would, here with a status that
says success). ``cordspec run`` must still reach a verdict, failing that call's clauses as
crashed."""

from __future__ import annotations

import os

import reference
from reference import DataEntry, FileBackedData, NamedDataStore, NamedDataStoreOutput
from reference.file_backed import Writable

__all__ = ["Cord", "DataEntry", "FileBackedData", "NamedDataStore", "NamedDataStoreOutput"]


class Cord(reference.Cord):
    """The reference Cord, whose write ends the process."""

    def write_to_file(self, outfile: Writable) -> None:
        os._exit(0)
