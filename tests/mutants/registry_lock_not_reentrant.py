"""Breaks: FBD-CLOSE-4

The owner registry's lock is a plain ``threading.Lock``: a finalizer that the garbage collector
runs inside a region holding it (any allocation can start a collection) takes it again, and the
thread deadlocks. The lock is swapped in by the first construction or move, so that only a
process that uses this mutant has it.
"""

from __future__ import annotations

import threading
from typing import Any

import reference
from reference import ownership

from . import implementation

_PLAIN = type(threading.Lock())


def _plain_lock() -> None:
    if not isinstance(ownership._owners_lock, _PLAIN):  # also again in a forked child
        ownership._owners_lock = threading.Lock()


class FileBackedData(reference.FileBackedData):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _plain_lock()
        super().__init__(*args, **kwargs)

    @classmethod
    def move_from(cls, *args: Any, **kwargs: Any) -> reference.FileBackedData:
        _plain_lock()
        return super().move_from(*args, **kwargs)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
