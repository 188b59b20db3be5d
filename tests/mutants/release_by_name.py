"""Breaks: FBD-CLOSE-8

``close()`` that removes the owned path by name, without checking it still names the owned file:
a file put at that path since is deleted. It does so inside ``close()``'s own uninterruptible
step and only in the owning process, as the reference does.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.file_backed import _unlink_quietly
from tests.blind._support import make_file

from . import implementation
from ._proofs_c import blob_in


class FileBackedData(reference.FileBackedData):
    def _close(self) -> None:
        if not self._closed and self._owner and os.getpid() == self._pid:
            _unlink_quietly(self._path)  # whatever file is there now
        super()._close()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with blob_in(impl, cleanup=True) as (tmp, path, owner):
        os.rename(path, os.path.join(tmp, "aside"))
        make_file(path, b"another file")
        owner.close()
        if not os.path.exists(path):
            return "close() deleted another file put at the owned file's name"
        return None
