"""Breaks: FBD-CLOSE-7

``close()`` that raises a failed removal only for the errors it expects (``EACCES``, ``EPERM``,
``EROFS``: a read-only directory) and swallows any other (``EIO``, ``EBUSY``), leaving the file
behind without a word.
"""

from __future__ import annotations

import errno

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_a import removal_failure_reported

_EXPECTED = (errno.EACCES, errno.EPERM, errno.EROFS)


class FileBackedData(reference.FileBackedData):
    def close(self) -> None:
        try:
            super().close()
        except OSError as exc:
            if exc.errno in _EXPECTED:
                raise


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return removal_failure_reported(impl)
