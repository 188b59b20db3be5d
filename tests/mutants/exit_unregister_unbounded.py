"""Breaks: FBD-EXIT-4

The release at exit unregisters each owner it released under the registry lock with no time limit,
as the reference once did: a daemon thread stopped while it held that lock (a trace function, or a
finalizer that blocks, inside a ``move_from``) makes the process hang at exit for ever. Swapped in
by the first construction or move, so that only a process that uses this mutant has it.
"""

from __future__ import annotations

from typing import Any

import reference
from reference import ownership
from reference.location import Identity

from . import implementation


def _unregister(identity: Identity) -> None:
    with ownership._owners_lock:
        ownership._owners.pop(identity, None)


def _swap() -> None:
    ownership._unregister = _unregister


class FileBackedData(reference.FileBackedData):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _swap()
        super().__init__(*args, **kwargs)

    @classmethod
    def move_from(cls, *args: Any, **kwargs: Any) -> reference.FileBackedData:
        _swap()
        return super().move_from(*args, **kwargs)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
