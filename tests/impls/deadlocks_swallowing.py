"""A port that deadlocks and will not be interrupted: the reference, but ``Cord.write_to_file``
waits on a lock its own thread holds, in a loop that swallows every exception (as a clean-up that
retries whatever went wrong would), so the exception a time limit raises in it is lost. Only a
limit that does not need the implementation's help (ending the worker process) stops it; a run
must still reach a verdict, failing that call's clauses as hung. Its wait gives up after
``GIVE_UP`` seconds and raises, so that a suite whose limit fails still ends."""

from __future__ import annotations

import threading
import time

import reference
from reference import DataEntry, FileBackedData, NamedDataStore, NamedDataStoreOutput
from reference.file_backed import Writable

__all__ = ["Cord", "DataEntry", "FileBackedData", "NamedDataStore", "NamedDataStoreOutput"]

GIVE_UP = 60.0
_LOCK = threading.Lock()


class Cord(reference.Cord):
    """The reference Cord, whose write waits for ever on its own lock, swallowing interrupts."""

    def write_to_file(self, outfile: Writable) -> None:
        _LOCK.acquire(blocking=False)  # held from now on: nothing ever releases it
        started = time.monotonic()
        while time.monotonic() - started < GIVE_UP:
            try:
                _LOCK.acquire(timeout=0.05)
            except BaseException:  # the bug: every exception swallowed, the limit's too
                continue
        raise RuntimeError(f"gave up waiting after {GIVE_UP} s")
