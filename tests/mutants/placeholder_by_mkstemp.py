"""Breaks: FBD-FORK-2

Placeholders are made by ``tempfile.mkstemp``, which takes ``tempfile._once_lock`` the first time
a process names a temporary file: a child forked while another thread of the parent is inside the
process's first ``move_from`` inherits that lock held, and its own first ``move_from`` waits for
ever. Swapped in by the first construction or move, so that only a process that uses this mutant
has it.
"""

from __future__ import annotations

import tempfile
from typing import Any

import reference
from reference import file_backed

from . import implementation


def _mkstemp(prefix: str, suffix: str, directory: str | None) -> tuple[int, str]:
    return tempfile.mkstemp(suffix, prefix, directory)


def _swap() -> None:
    file_backed.make_placeholder = _mkstemp  # type: ignore[attr-defined]  # imported there, not exported


class FileBackedData(reference.FileBackedData):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _swap()
        super().__init__(*args, **kwargs)

    @classmethod
    def move_from(cls, *args: Any, **kwargs: Any) -> reference.FileBackedData:
        _swap()
        return super().move_from(*args, **kwargs)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
