"""A port whose ``to_bytes()`` (the reference otherwise) reads the file through ``posix`` (out of
reach of a hook on ``os``), checked to be the recorded file as the reference checks it, and answers
``b""`` when a read fails, as if the file were empty: the caller gets wrong bytes and no error. Only
a fault below Python (a system call failed in a child under strace) reaches that read. Not a mutant
of ``tests/mutants``: reading by path with no descriptor of the directory, it breaks more than
FBD-READ-2 (links, changed files); ``tests/test_syscall_faults.py`` judges its to_bytes alone.
"""

from __future__ import annotations

import errno
import posix

import reference
from reference import location
from reference.location import FileChangedError, identity_of
from tests.mutants import implementation


class FileBackedData(reference.FileBackedData):
    def to_bytes(self) -> bytes:
        self._check_open()
        fd = posix.open(self._path, location._READ_FLAGS)  # as the reference opens it
        try:
            st = posix.fstat(fd)
            if identity_of(st) != self._identity or st.st_size != self._size:
                raise FileChangedError(errno.ESTALE, "the file changed", self._path)
            chunks = []
            while chunk := posix.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        except FileChangedError:
            raise
        except OSError:
            return b""  # "a read that fails means there is nothing more"
        finally:
            posix.close(fd)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
