"""Breaks: FBD-MOVE-4, FBD-INTR-1
Profile: core
Bug: ``move_from`` cleans up after ``except Exception`` only, as ExecuTorch does: a
``KeyboardInterrupt`` (or a ``SystemExit`` from a SIGTERM handler) raised by the rename leaves the
empty placeholder behind.
"""

from __future__ import annotations

import contextlib
import os
from unittest import mock

import reference
from conformance.api import Implementation
from reference.location import FileChangedError, identity_of, locate
from reference.placeholders import PLACEHOLDER_SUFFIX, _Move, make_placeholder

from . import implementation
from ._support import directory, make_file


class FileBackedData(reference.FileBackedData):
    @classmethod
    def _move_held(cls, move: _Move, digest: bytes | None) -> reference.FileBackedData:
        fd, move.placeholder = make_placeholder(
            cls._placeholder_prefix(), PLACEHOLDER_SUFFIX, cls._placeholder_dir(move.source)
        )
        try:
            try:
                move.empty = identity_of(os.fstat(fd))
            finally:
                os.close(fd)
            move.where = locate(move.placeholder, False)
            cls._take(move.source, move.placeholder)
        except Exception:  # an interrupt is not an Exception
            cls._undo(move)
            raise
        try:
            moved = os.lstat(move.placeholder)
            if identity_of(moved) != move.identity:
                raise FileChangedError(0, "the source was replaced while it was moved", move.source)
            result = cls.__new__(cls)
            result._init(move.placeholder, moved, digest, owner=True, location=move.where)
        except Exception:
            cls._put_back(move)
            raise
        return result


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


def demonstrate() -> str | None:
    return scenario(IMPLEMENTATION)
