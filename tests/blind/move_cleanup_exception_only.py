"""Breaks: FBD-MOVE-4, FBD-INTR-1
Profile: core
Bug: ``move_from`` cleans up after ``except Exception`` only, as ExecuTorch does: a
``KeyboardInterrupt`` (or a ``SystemExit`` from a SIGTERM handler) raised by the rename leaves the
empty placeholder behind.
"""

from __future__ import annotations

import contextlib
import os
import sys
from unittest import mock

import reference
from conformance.api import Implementation
from reference.placeholders import _Move

from . import implementation
from ._support import directory, make_file


class FileBackedData(reference.FileBackedData):
    @classmethod
    def _undo(cls, move: _Move) -> None:
        if isinstance(sys.exc_info()[1], Exception):  # an interrupt is not an Exception
            super()._undo(move)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    with directory() as tmp:
        source = make_file(os.path.join(tmp, "weights"), b"weights")
        with mock.patch("os.replace", interrupted), contextlib.suppress(KeyboardInterrupt):
            impl.FileBackedData.move_from(source)
        left = sorted(os.listdir(tmp))
        if left != ["weights"]:
            return f"an interrupted rename left {left}"
        return None
