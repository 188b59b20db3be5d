"""Breaks: FBD-MOVE-5
Profile: core
Bug: when the rename step fails, the clean-up assumes the placeholder is still the empty file it
made and unlinks it; when the failure comes after the rename itself (an interrupt as
``os.replace`` returns), that unlinks the source's data.
"""

from __future__ import annotations

import contextlib
import os
from unittest import mock

import reference
from conformance.api import Implementation
from reference.placeholders import _Move

from . import implementation
from ._support import directory, make_file, read_file


class FileBackedData(reference.FileBackedData):
    @classmethod
    def _undo(cls, move: _Move) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(move.placeholder)  # the placeholder is assumed empty


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    real = os.replace

    def replace_then_interrupt(src: str, dst: str, **kwargs: object) -> None:
        real(src, dst, **kwargs)
        if os.path.basename(str(dst)).startswith(".executorch_"):
            raise KeyboardInterrupt

    with directory() as tmp:
        source = make_file(os.path.join(tmp, "weights"), b"precious weights")
        with mock.patch("os.replace", replace_then_interrupt):
            try:
                impl.FileBackedData.move_from(source)
            except KeyboardInterrupt:
                pass
            else:
                return None  # the interrupt did not land in move_from: nothing to judge
        left = sorted(os.listdir(tmp))
        if not os.path.exists(source) or read_file(source) != b"precious weights":
            return f"an interrupt right after the rename lost the source (directory: {left})"
        if left != ["weights"]:
            return f"an interrupt right after the rename left {left}"
        return None
