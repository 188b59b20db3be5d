"""Breaks: FBD-MOVE-7, NDS-DEDUP-10
Profile: core
Bug: a defensive port checks a supplied digest the first time ``sha256()`` is asked, hashing the
file and raising ``ValueError`` when they differ, instead of trusting it without reading.
"""

from __future__ import annotations

import hashlib
import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file, read_cost


class FileBackedData(reference.FileBackedData):
    _checked = False

    def sha256(self) -> bytes:
        supplied = super().sha256()
        if not self._checked:
            actual = hashlib.sha256()
            self._stream(actual.update)
            if actual.digest() != supplied:
                raise ValueError(f"the digest supplied for {self._path!r} is not its contents'")
            self._checked = True
        return supplied


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        data = os.urandom(1 << 20)
        digest = hashlib.sha256(b"another blob").digest()
        blob = impl.FileBackedData.move_from(make_file(os.path.join(tmp, "w"), data), sha256=digest)
        try:
            got: list[bytes] = []
            try:
                cost = read_cost(lambda: got.append(blob.sha256()))
            except ValueError as exc:
                return f"sha256() with a supplied digest raised {exc!r}"
            if got[0] != digest:
                return "sha256() did not return the supplied digest"
            if cost > 64 << 10:
                return f"sha256() with a supplied digest read {cost} bytes"
            return None
        finally:
            blob.close()
