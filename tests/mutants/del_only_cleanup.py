"""Breaks: FBD-CLOSE-4, FBD-CLOSE-5

Review defect 1: the first version released owned files in ``__del__`` only, with no
``weakref.finalize`` backstop, so nothing releases an owner that is still alive at interpreter exit
(one referenced from a thread, a cycle, a module that outlives ``__main__``).
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from reference import file_backed
from tests.blind._support import child_says, directory, make_file

from . import implementation
from ._base import Owners


class FileBackedData(Owners):
    def _made_owner(self) -> None:
        self._finalizer.detach()  # still "owned" for close(), but never called again

    def __del__(self) -> None:
        # the reference's own release (same file, this process, interrupts deferred), from here
        if getattr(self, "_owner", False) and not getattr(self, "_closed", True):
            file_backed._release(self._location, self._identity, self._pid)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


_CHILD = """
import threading
owner = impl.FileBackedData({path!r}, cleanup=True)
# still referenced at exit, from a thread that never ends
holder = threading.Thread(target=lambda held: threading.Event().wait(60), args=(owner,))
holder.daemon = True
holder.start()
print("OK")
"""


def scenario(impl: Implementation) -> str | None:
    """An owner still alive at interpreter exit is released then (FBD-CLOSE-5)."""
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"weights")
        said = child_says(impl, _CHILD.format(path=path))
        if said is not None:
            return said
        if os.path.exists(path):
            return "an owner still referenced at interpreter exit left its file"
        return None
