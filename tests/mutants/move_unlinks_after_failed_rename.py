"""Breaks: FBD-MOVE-5

``move_from`` that answers a rename onto the placeholder that raised by removing the placeholder,
taking "raised" for "did not happen": when the rename took effect and then reported an error (as a
network filesystem can), the placeholder holds the user's file, and removing it loses the data.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from conformance.api import Implementation

from . import implementation
from ._oswrap import Call, FailedTake
from ._proofs_b import eio_after, move_under, on_call


class FileBackedData(FailedTake):
    @staticmethod
    def _take_failed(rename: Call, source: Any, placeholder: Any, error: OSError) -> None:
        with contextlib.suppress(OSError):
            os.unlink(placeholder)  # "the rename failed, so the placeholder is still the empty one"
        raise error


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return move_under(impl, on_call(("replace", "rename"), eio_after), OSError)
