"""Breaks: FBD-MOVE-7, NDS-DEDUP-10

A digest supplied to ``move_from`` or the constructor is dropped: ``sha256()`` reads the whole
file to compute it again, and dedup uses the computed digest instead of the supplied one.
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from tests.blind._support import directory, make_file

from . import implementation
from ._base import InitArguments, Owners


class FileBackedData(Owners):
    def _arguments(self, given: InitArguments) -> InitArguments:
        path, st, _, owner, location = given
        return path, st, None, owner, location


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    promised = bytes(range(32))
    with directory() as tmp:
        blob = impl.FileBackedData.move_from(make_file(os.path.join(tmp, "w"), b"w"), promised)
        got = blob.sha256()
        blob.close()
    if got != promised:
        return f"sha256() of a blob moved with a supplied digest returned {got.hex()}"
    return None
