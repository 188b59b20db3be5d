"""Breaks: FBD-MOVE-9

Owners registered by resolved path instead of by inode: ``move_from`` or ``cleanup=True`` of the
owned path itself is refused, but of a hard link to the owned file it is not, and two objects then
delete one file.
"""

from __future__ import annotations

import os
import weakref
from typing import Any

import reference
from conformance.api import Implementation
from reference import file_backed, ownership
from reference.location import Identity, Location
from tests.blind._support import directory, make_file

from . import implementation
from ._base import InitArguments, Owners

_BY_PATH: dict[str, weakref.ref[reference.FileBackedData]] = {}


def _owned(path: str) -> bool:
    ref = _BY_PATH.get(os.path.realpath(path))
    owner = ref() if ref is not None else None
    return owner is not None and not owner.closed


def _release(
    real: str,
    key: tuple[int, int],
    location: Location,
    identity: Identity,
    pid: int,
) -> None:
    """The reference's release, then the path forgotten, so that only the check is wrong."""
    try:
        file_backed._release(location, identity, pid)
    finally:
        ownership._owners.pop(key, None)
        if (ref := _BY_PATH.get(real)) is not None and ref() is None:
            del _BY_PATH[real]


class FileBackedData(Owners):
    def _arguments(self, given: InitArguments) -> InitArguments:
        path, st, digest, _, location = given
        return path, st, digest, False, location  # made an owner below, by its path

    def _made_owner(self) -> None:
        real = os.path.realpath(self.path)
        if _owned(real):
            raise ValueError(f"{self.path!r} is already owned")
        # kept in the reference's registry under a key no inode has, so that its release at
        # exit (FBD-CLOSE-5) finds this owner, while its check by inode never does
        self._key = (-1, id(self), 0)
        _BY_PATH[real] = ownership._owners[self._key] = weakref.ref(self)
        self._owner = True
        self._finalizer = weakref.finalize(
            self, _release, real, self._key, self._location, self._identity, self._pid
        )
        self._finalizer.atexit = False

    def _close(self) -> None:
        super()._close()
        self._forget()

    def _disown(self) -> None:
        super()._disown()
        self._forget()

    def _forget(self) -> None:
        key = getattr(self, "_key", None)
        if key is not None:
            ownership._owners.pop(key, None)
            real = os.path.realpath(self._path)
            if (ref := _BY_PATH.get(real)) is not None and ref() is self:
                del _BY_PATH[real]

    @classmethod
    def move_from(cls, path: Any, sha256: Any = None) -> reference.FileBackedData:
        source = file_backed._check_path(path)
        if _owned(source):
            raise ValueError(f"cannot move {source!r}: it is owned")
        return super().move_from(path, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"weights")
        link = os.path.join(tmp, "hard link")
        os.link(path, link)
        owner = impl.FileBackedData(path, cleanup=True)
        try:
            try:
                second = impl.FileBackedData(link, cleanup=True)
            except ValueError:
                return None
            second.close()
            return "a hard link to an owned file was taken by a second owner"
        finally:
            owner.close()
