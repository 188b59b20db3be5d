"""Breaks: FBD-EXIT-2

The release opens the owned file's directory with no descriptor kept for it: a process that exits
with every descriptor in use (which is how a process that ran out of them ends) warns ``EMFILE``
and leaves every owned file behind. The reserve is dropped by the first construction or move, so
that only a process that uses this mutant lacks it.
"""

from __future__ import annotations

from typing import Any

import reference
from reference import ownership
from reference.location import Identity, Location

from . import implementation


def _remove(location: Location, identity: Identity) -> None:
    location.remove_if(identity)


def _no_reserve() -> None:
    ownership._remove_with_reserve = _remove  # also in a forked child, which inherits it


class FileBackedData(reference.FileBackedData):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _no_reserve()
        super().__init__(*args, **kwargs)

    @classmethod
    def move_from(cls, *args: Any, **kwargs: Any) -> reference.FileBackedData:
        _no_reserve()
        return super().move_from(*args, **kwargs)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
