"""Breaks: FBD-MOVE-8
Profile: strict
Bug: ``move_from`` resolves its source with ``os.path.realpath`` first (to put the placeholder
beside the real file), so a symbolic link is not refused: the file it leads to is taken away
from under its own name, and the link is left dangling.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import linked


class FileBackedData(reference.FileBackedData):
    @classmethod
    def move_from(
        cls, path: str | os.PathLike[str], sha256: bytes | None = None
    ) -> reference.FileBackedData:
        if type(path) is str:
            path = os.path.realpath(path)
        return super().move_from(path, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with linked(b"weights") as (target, link):
        try:
            blob = impl.FileBackedData.move_from(link)
        except ValueError:
            if not os.path.islink(link) or not os.path.exists(target):
                return "the refused move changed the link or its target"
            return None
        moved = not os.path.exists(target)
        blob.close()
        return (
            f"move_from(<a symbolic link>) was accepted (its target {'moved' if moved else 'kept'})"
        )
