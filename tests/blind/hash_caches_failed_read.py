"""Breaks: FBD-FAULT-1
Profile: core
Bug: ``sha256()`` stores the digest in a ``finally`` clause, so a read that fails half-way (a file
that shrank, an ``EIO``) still caches the digest of what was read; the next call returns it.
"""

from __future__ import annotations

import hashlib
import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import sha, wrapped


class FileBackedData(reference.FileBackedData):
    def sha256(self) -> bytes:
        self._check_open()
        if self._sha256 is None:
            digest = hashlib.sha256()
            try:
                self._stream(digest.update)
            finally:
                self._sha256 = digest.digest()  # also after a failed read
        return self._sha256


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    data = os.urandom(3 << 20)
    with wrapped(impl, data) as (path, blob):
        os.truncate(path, 1 << 20)  # the read of the recorded size fails
        try:
            blob.sha256()
        except OSError:
            pass
        else:
            return "sha256() of a file cut to a third of its size returned a digest"
        try:
            digest = blob.sha256()
        except OSError:
            return None
        if digest == sha(data):
            return None
        return "after a read that failed, sha256() returned a cached digest of what was read"
