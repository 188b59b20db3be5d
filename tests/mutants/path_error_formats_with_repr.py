"""Breaks: FBD-INIT-10

A ``FileBackedData`` whose constructor formats a path of a wrong type with ``{path!r}``, as the
reference did before FBD-INIT-10: a path object whose ``__repr__`` raises gives that error instead
of FBD-INIT-5's ``TypeError``.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_c import raised


class FileBackedData(reference.FileBackedData):
    def __init__(
        self, path: str | os.PathLike[str], cleanup: bool = False, sha256: bytes | None = None
    ) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(
                f"path must be str or os.PathLike[str], not {type(path).__name__}: {path!r}"
            )
        super().__init__(path, cleanup, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


class _Unshowable:
    def __repr__(self) -> str:
        raise RuntimeError("this value cannot be shown")


def scenario(impl: Implementation) -> str | None:
    error = raised(lambda: impl.FileBackedData(_Unshowable()))
    if not isinstance(error, TypeError) or "_Unshowable" not in str(error):
        return f"a path of a wrong type whose __repr__ raises gave {error!r}"
    return None
