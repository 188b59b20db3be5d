"""Breaks: FBD-MOVE-9
Profile: strict
Bug: a forked child starts with an empty owner registry (the port clears it at fork, reasoning that
the child owns nothing), so the child's ``move_from`` takes a file an inherited object owns.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference import ownership

from . import implementation
from ._support import directory, make_file


def _forget_owners() -> None:
    for identity, ref in list(ownership._owners.items()):
        if isinstance(ref(), FileBackedData):
            del ownership._owners[identity]


class FileBackedData(reference.FileBackedData):
    pass


os.register_at_fork(after_in_child=_forget_owners)

IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        owned = impl.FileBackedData.move_from(make_file(os.path.join(tmp, "w"), b"weights"))
        path = impl.path_of(owned)
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                try:
                    impl.FileBackedData.move_from(path)
                except ValueError:
                    status = 0
            finally:
                os._exit(status)
        _, status = os.waitpid(pid, 0)
        present = os.path.exists(path)
        owned.close()
        if os.waitstatus_to_exitcode(status) != 0:
            return f"a forked child took a file an inherited object owns (at its path: {present})"
        return None
