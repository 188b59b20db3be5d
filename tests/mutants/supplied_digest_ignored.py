"""Breaks: FBD-MOVE-7, NDS-DEDUP-10

A digest supplied to ``move_from`` or the constructor is dropped: ``sha256()`` reads the whole
file to compute it again, and dedup uses the computed digest instead of the supplied one.
"""

from __future__ import annotations

from . import implementation
from ._base import InitArguments, Owners


class FileBackedData(Owners):
    def _arguments(self, given: InitArguments) -> InitArguments:
        path, st, _, owner, location = given
        return path, st, None, owner, location


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
