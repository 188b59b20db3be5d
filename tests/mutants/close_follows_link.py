"""Breaks: FBD-CLOSE-8

Release checks that the path still names the owned file with ``stat``, which follows a symbolic
link, and removes the path: a link put at the name that leads to the owned file (moved aside) is
taken for it and deleted, though it is another file.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from tests.blind._support import directory

from . import implementation
from ._proofs_a import owned


class FileBackedData(reference.FileBackedData):
    def close(self) -> None:
        path = self.path
        if self._owner and not self._closed and os.path.islink(path):
            try:
                st = os.stat(path)  # follows the link
            except OSError:
                pass
            else:
                if (st.st_dev, st.st_ino) == self._identity[:2]:
                    os.unlink(path)
        super().close()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    """The owned file moved aside and a link to it put at its name: the link is another file."""
    with directory() as tmp:
        owner, path = owned(impl, tmp)
        aside = os.path.join(tmp, "aside")
        os.rename(path, aside)
        os.symlink(aside, path)
        owner.close()
        if not os.path.islink(path):
            return "close() removed a link at the owned file's name, which is not the owned file"
        return None
