"""Breaks: FBD-MOVE-2, FBD-MOVE-3
Profile: core
Bug: the placeholder's directory is ``os.path.dirname(path) or None``: for a bare file name that is
``None``, so ``mkstemp`` puts the placeholder in the system temporary directory, not the current
one (and across filesystems the rename fails with ``EXDEV``).
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _placeholder_dir(source: str) -> str:
        return os.path.dirname(source) or None


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    here = os.getcwd()
    with directory() as tmp:
        make_file(os.path.join(tmp, "weights.bin"), b"weights")
        try:
            os.chdir(tmp)
            blob = impl.FileBackedData.move_from("weights.bin")
        finally:
            os.chdir(here)
        try:
            where = os.path.dirname(os.path.realpath(os.path.join(tmp, impl.path_of(blob))))
            if where != tmp:
                return (
                    f"the placeholder of a bare name is in {where}, not the current directory {tmp}"
                )
            return None
        finally:
            blob.close()
