"""A port that deadlocks in one call: the reference, but ``Cord.write_to_file`` takes a lock its
own thread already holds (as a finalizer run by the garbage collector inside a locked region
would), so it never returns. ``cordspec run`` must still reach a verdict, failing that call's
clauses as hung."""

from __future__ import annotations

import threading

import reference
from reference import DataEntry, FileBackedData, NamedDataStore, NamedDataStoreOutput
from reference.file_backed import Writable

__all__ = ["Cord", "DataEntry", "FileBackedData", "NamedDataStore", "NamedDataStoreOutput"]

_LOCK = threading.Lock()


class Cord(reference.Cord):
    """The reference Cord, whose write takes its lock twice."""

    def write_to_file(self, outfile: Writable) -> None:
        with _LOCK, _LOCK:
            super().write_to_file(outfile)
