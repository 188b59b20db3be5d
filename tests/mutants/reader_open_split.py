"""Breaks: FBD-INTR-4

A read (``prefix``, ``sha256``, ``to_bytes``, ``write_to_file``) that opens the blob with no
signal deferred, as the reference once did: a raising handler between the ``os.open`` of the blob
(or of its directory) and the file object that owns the descriptor leaves a raw descriptor that
nothing closes, which keeps the owned file's data on disk after its ``close()``.
"""

from __future__ import annotations

import errno

import reference
from reference.location import FileChangedError, Identity, Location, identity_of
from reference.verified_reader import _VerifiedReader

from . import implementation


class _SplitReader(_VerifiedReader):
    def __init__(
        self, location: Location, identity: Identity, size: int, directory: int | None = None
    ) -> None:
        self._location = location
        self._size = size
        self.remaining = size
        if directory is None:
            with location.opened_directory() as held:
                fd, st = location.open_in(held, identity)
        else:
            fd, st = location.open_in(directory, identity)
        self._file = open(fd, "rb", buffering=0)  # noqa: SIM115  # closed by close()
        self._opened = self._stamp(st)
        self._status = st
        self._used = False
        try:
            self._check_size(st.st_size)
            if identity_of(st) != identity:
                raise FileChangedError(errno.ESTALE, "the file was replaced", location.path)
        except BaseException:
            self._file.close()
            raise


class FileBackedData(reference.FileBackedData):
    def _open(self, directory: int | None = None) -> _VerifiedReader:
        return _SplitReader(self._location, self._identity, self._size, directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
