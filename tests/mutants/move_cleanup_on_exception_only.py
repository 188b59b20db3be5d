"""Breaks: FBD-MOVE-4

``move_from`` that cleans up after ``except Exception`` rather than any ``BaseException``, as
ExecuTorch 1.5.1 does: a ``KeyboardInterrupt`` (or ``SystemExit``) while the source is renamed
leaves the placeholder behind.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import reference
from conformance.api import Implementation
from reference.placeholders import _Move

from . import implementation
from ._proofs_b import move_under, on_call


class FileBackedData(reference.FileBackedData):
    @classmethod
    def _undo(cls, move: _Move) -> None:
        # called from the reference's ``except BaseException``: acts only as ``except Exception``
        if isinstance(sys.exc_info()[1], Exception):
            super()._undo(move)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def _interrupt(real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    raise KeyboardInterrupt  # as a SIGINT handler raises it, where the rename would be


def scenario(impl: Implementation) -> str | None:
    return move_under(impl, on_call(("replace", "rename"), _interrupt), KeyboardInterrupt)
