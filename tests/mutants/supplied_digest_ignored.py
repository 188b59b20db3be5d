"""Breaks: FBD-MOVE-7, NDS-DEDUP-10

A digest supplied to ``move_from`` or the constructor is dropped: ``sha256()`` reads the whole
file to compute it again, and dedup uses the computed digest instead of the supplied one.
"""

from __future__ import annotations

import os

import reference
from reference.location import Location

from . import implementation


class FileBackedData(reference.FileBackedData):
    def _init(
        self,
        path: str,
        st: os.stat_result,
        digest: bytes | None,
        owner: bool,
        location: Location,
    ) -> None:
        super()._init(path, st, None, owner, location)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
