"""Breaks: FBD-MOVE-6, FBD-FAULT-1

``move_from`` that falls back to copying the source onto the placeholder and removing the source
when the rename raises (as for a cross-device rename): the owned file is a copy (another inode),
and the rename's error is never seen.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from conformance.api import Implementation

from . import implementation
from ._oswrap import Call, FailedTake
from ._proofs_b import eio, move_under, on_call


class FileBackedData(FailedTake):
    @staticmethod
    def _take_failed(rename: Call, source: Any, placeholder: Any, error: OSError) -> None:
        shutil.copyfile(source, placeholder)
        os.unlink(source)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return move_under(impl, on_call(("replace", "rename"), eio), OSError)
