"""Breaks: FBD-WRITE-1, CORD-WRITE-1

The hole probe (``os.lseek`` with ``SEEK_DATA``) taken to say "cannot tell" only when it fails with
``EINVAL``: on a filesystem that answers ``EOPNOTSUPP`` the write of a blob into a file fails with
that error, where FBD-WRITE-3 says to write the zeros.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from typing import Any

import reference
from conformance.api import Implementation
from reference.verified_reader import _VerifiedReader
from tests.blind._support import directory, make_file, read_file

from . import implementation
from ._proofs_b import on_call, raised


class _Reader(_VerifiedReader):
    def send_sparse(self, fd: int) -> None:
        source = self._file.fileno()
        at = self._size - self.remaining
        try:
            os.lseek(source, at, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno not in (errno.ENXIO, errno.EINVAL):
                raise
        os.lseek(source, at, os.SEEK_SET)
        super().send_sparse(fd)


class FileBackedData(reference.FileBackedData):
    def _open(self, directory: int | None = None) -> _VerifiedReader:
        return _Reader(self._location, self._identity, self._size, directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def _unsupported(real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    raise OSError(errno.EOPNOTSUPP, "this filesystem does not tell holes")


def scenario(impl: Implementation) -> str | None:
    data = os.urandom(64 << 10)
    with directory() as tmp:
        blob = impl.FileBackedData(make_file(os.path.join(tmp, "w"), data))
        probe = on_call(("lseek",), _unsupported, lambda args: args[2:] == (os.SEEK_DATA,), False)
        with open(os.path.join(tmp, "out"), "wb") as out, probe as probed:
            error = raised(lambda: blob.write_to_file(out))
        written = read_file(out.name)
    if not probed:
        raise RuntimeError("write_to_file into a file probed no hole: no fault injected")
    if error is not None or written != data:
        return f"write_to_file where SEEK_DATA fails with EOPNOTSUPP gave {error!r}"
    return None
