"""Breaks: FBD-EXIT-5

The release at exit knows nothing of moves under way, as the reference once did: a daemon thread
inside ``move_from`` between its rename and its owner's registration when the interpreter exits is
frozen there, its source gone and its data at a placeholder no owner holds, which a sweep deletes.
Swapped in by the first construction or move, so that only a process that uses this mutant has it.
"""

from __future__ import annotations

from typing import Any

import reference
from reference import ownership

from . import implementation


def _swap() -> None:
    ownership._put_back_moves = lambda: None


class FileBackedData(reference.FileBackedData):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _swap()
        super().__init__(*args, **kwargs)

    @classmethod
    def move_from(cls, *args: Any, **kwargs: Any) -> reference.FileBackedData:
        _swap()
        return super().move_from(*args, **kwargs)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
