"""Breaks: FBD-INIT-5
Profile: strict
Bug: the constructor refuses every non-regular file alike with ``ValueError("not a regular
file")``, a directory included, where a directory must be ``IsADirectoryError``.
"""

from __future__ import annotations

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory


class FileBackedData(reference.FileBackedData):
    def __init__(self, path: str, cleanup: bool = False, sha256: bytes | None = None) -> None:
        try:
            super().__init__(path, cleanup, sha256)
        except IsADirectoryError:
            raise ValueError(f"not a regular file: {path!r}") from None


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        try:
            impl.FileBackedData(tmp)
        except IsADirectoryError:
            return None
        except Exception as exc:  # the wrong kind is the violation
            return (
                f"FileBackedData(<a directory>) raised {type(exc).__name__}, not IsADirectoryError"
            )
        return "FileBackedData(<a directory>) was accepted"
