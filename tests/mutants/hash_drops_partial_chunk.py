"""Breaks: FBD-HASH-1

``sha256()`` that hashes a blob of more than one chunk as ``size // chunk`` whole chunks and
forgets the remainder: the digest of a blob over 1 MiB that is not a multiple of it is the digest
of its start. A supplied digest is still trusted.
"""

from __future__ import annotations

import hashlib
import os
import weakref
from typing import Any

import reference
from conformance.api import Implementation
from tests.blind._support import directory, make_file, sha

from . import implementation

_CHUNK = 1 << 20
_KNOWN: weakref.WeakKeyDictionary[reference.FileBackedData, bytes] = weakref.WeakKeyDictionary()
_SUPPLIED: weakref.WeakSet[reference.FileBackedData] = weakref.WeakSet()


class FileBackedData(reference.FileBackedData):
    def __init__(self, path: Any, cleanup: Any = False, sha256: Any = None) -> None:
        super().__init__(path, cleanup, sha256)
        if sha256 is not None:
            _SUPPLIED.add(self)

    @classmethod
    def move_from(cls, path: Any, sha256: bytes | None = None) -> reference.FileBackedData:
        made = super().move_from(path, sha256)
        if sha256 is not None:
            _SUPPLIED.add(made)
        return made

    def sha256(self) -> bytes:
        if self.closed or self in _SUPPLIED or len(self) <= _CHUNK or len(self) % _CHUNK == 0:
            return super().sha256()
        if self not in _KNOWN:
            self.prefix(0)
            digest = hashlib.sha256()
            with open(self.path, "rb") as f:
                for _ in range(len(self) // _CHUNK):
                    digest.update(f.read(_CHUNK))
            _KNOWN[self] = digest.digest()
        return _KNOWN[self]


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    data = os.urandom((1 << 20) + 7)
    with directory() as tmp:
        digest = impl.FileBackedData(make_file(os.path.join(tmp, "w"), data)).sha256()
    if digest != sha(data):
        return "sha256() of a blob of 1 MiB and 7 bytes is not the SHA-256 of its bytes"
    return None
