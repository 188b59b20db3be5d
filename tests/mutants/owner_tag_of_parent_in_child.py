"""Breaks: FBD-MOVE-10

The owner tag computed once, when the module is imported: a child made by ``fork`` names its
placeholders with its parent's pid and start time, so a sweep after the parent's end takes the
child's live placeholder for an orphan.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.file_backed import PLACEHOLDER_PREFIX
from reference.placeholders import _owner_tag
from tests.blind._support import directory, make_file

from . import implementation
from ._proofs_c import moved_path, reaped, tag_problem

_TAG = _owner_tag()


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _placeholder_prefix() -> str:
        return f"{PLACEHOLDER_PREFIX}{_TAG}_"


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        source = make_file(os.path.join(tmp, "w"), b"weights")
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                said = tag_problem(moved_path(impl, source)) or "OK"
            except BaseException as exc:
                said = f"move_from in a forked child raised {exc!r}"
            finally:
                os.write(write, said.encode())
                os._exit(0)
        os.close(write)
        ended = reaped(pid, 10)
        with os.fdopen(read, "rb") as f:
            said = f.read().decode()
    if ended is None:
        return "move_from in a forked child did not end within 10 s"
    return None if said == "OK" else said or "the forked child reported nothing"
