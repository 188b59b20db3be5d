"""Breaks: FBD-HASH-1
Profile: core
Bug: digests are memoized in a process-wide cache keyed by the file's path, so a new object for a
new file at a path that held another file is given the old file's digest.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file, sha

_DIGESTS: dict[str, bytes] = {}


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        self._check_open()
        digest = _DIGESTS.get(self.path)
        if digest is None:
            digest = _DIGESTS[self.path] = super().sha256()
        return digest


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"first contents")
        impl.FileBackedData(path).sha256()
        os.remove(path)
        make_file(path, b"second, other contents")
        got = impl.FileBackedData(path).sha256()
    if got != sha(b"second, other contents"):
        return "sha256() of a new file at a reused path is not that file's digest"
    return None
