"""Breaks: FBD-MOVE-4, FBD-INTR-1
Profile: core
Bug: ``move_from`` cleans up after ``except Exception`` only, as ExecuTorch does: a
``KeyboardInterrupt`` (or a ``SystemExit`` from a SIGTERM handler) raised by the rename leaves the
empty placeholder behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from unittest import mock

import reference
from conformance.api import Implementation
from reference.location import FileChangedError, identity_of, locate

from . import implementation
from ._support import directory, make_file


class FileBackedData(reference.FileBackedData):
    @classmethod
    def _move_held(cls, source: str, identity: object, digest: object) -> reference.FileBackedData:
        fd, placeholder = tempfile.mkstemp(
            prefix=cls._placeholder_prefix(),
            suffix=reference.file_backed.PLACEHOLDER_SUFFIX,
            dir=cls._placeholder_dir(source),
        )
        try:
            os.close(fd)
            where = locate(placeholder, False)
            cls._take(source, placeholder)
        except Exception:  # an interrupt is not an Exception
            cls._undo(source, placeholder, identity)
            raise
        try:
            moved = os.lstat(placeholder)
            if identity_of(moved) != identity:
                raise FileChangedError(0, "the source was replaced while it was moved", source)
            result = cls.__new__(cls)
            result._init(placeholder, moved, digest, owner=True, location=where)
        except Exception:
            cls._put_back(source, placeholder)
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
