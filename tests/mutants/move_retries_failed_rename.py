"""Breaks: FBD-FAULT-1

``move_from`` that retries a rename onto the placeholder once when it raises ("a transient error"):
a fault that passes is swallowed, and after a rename that took effect and then raised, the retry's
``FileNotFoundError`` replaces the error the OS gave.
"""

from __future__ import annotations

from typing import Any

from conformance.api import Implementation

from . import implementation
from ._oswrap import Call, FailedTake
from ._proofs_b import eio, move_under, on_call


class FileBackedData(FailedTake):
    @staticmethod
    def _take_failed(rename: Call, source: Any, placeholder: Any, error: OSError) -> None:
        rename(source, placeholder)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return move_under(impl, on_call(("replace", "rename"), eio), OSError)
