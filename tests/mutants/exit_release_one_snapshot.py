"""Breaks: FBD-EXIT-3

The release at exit takes one snapshot of the owners and accepts new ones meanwhile: an owner a
daemon thread makes while the release runs is never released. The release is swapped in by the
first construction or move, so that only a process that uses this mutant has it.
"""

from __future__ import annotations

import atexit
import contextlib
from typing import Any

import reference
from reference import deferral, ownership

from . import implementation


def _one_snapshot() -> None:
    previous: deferral._Handlers = {}
    with contextlib.suppress(BaseException):
        previous = deferral._python_handlers()
        deferral._replace(previous, ownership._ignore)
    try:
        for identity, ref in list(ownership._owners.items()):  # taken once, refusing nothing
            ownership._release_entry(identity, ref)
    finally:
        deferral._restore(previous)


def _swap() -> None:
    atexit.unregister(ownership._release_all_at_exit)
    atexit.unregister(_one_snapshot)
    atexit.register(_one_snapshot)


class FileBackedData(reference.FileBackedData):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _swap()
        super().__init__(*args, **kwargs)

    @classmethod
    def move_from(cls, *args: Any, **kwargs: Any) -> reference.FileBackedData:
        _swap()
        return super().move_from(*args, **kwargs)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
