"""Breaks: FBD-INIT-6
Profile: strict
Bug: the supplied digest is checked with ``type(sha256) is bytes``, so a digest of a subclass of
``bytes`` (which is ``bytes``) is refused with ``TypeError``.
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from reference import file_backed

from . import implementation


def _exact_digest(sha256: object) -> None:
    if sha256 is not None and type(sha256) is not bytes:
        raise TypeError(f"sha256 must be bytes or None, not {type(sha256).__name__}")


class FileBackedData(file_backed.FileBackedData):
    def __init__(
        self, path: str | os.PathLike[str], cleanup: bool = False, sha256: bytes | None = None
    ) -> None:
        _exact_digest(sha256)
        super().__init__(path, cleanup, sha256)

    @classmethod
    def move_from(
        cls, path: str | os.PathLike[str], sha256: bytes | None = None
    ) -> file_backed.FileBackedData:
        _exact_digest(sha256)
        return super().move_from(path, sha256)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


class _Digest(bytes):
    pass


def scenario(impl: Implementation) -> str | None:
    from ._support import directory, make_file, sha

    digest = _Digest(sha(b"abc"))
    with directory() as d:
        try:
            blob = impl.FileBackedData(make_file(os.path.join(d, "w"), b"abc"), sha256=digest)
        except TypeError as exc:
            return f"a digest of a bytes subclass was refused: {exc}"
        try:
            got = blob.sha256()
        finally:
            blob.close()
    return None if got == digest else f"the supplied digest came back as {got!r}"
