"""Breaks: FBD-MOVE-10
Profile: strict
Bug: the placeholder prefix with its owner tag (pid and start time) is computed once, when the
module is imported, so a forked child names its placeholders after its parent.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.placeholders import PLACEHOLDER_PREFIX, _owner_tag

from . import implementation
from ._support import directory, forked_says, make_file

_PREFIX = f"{PLACEHOLDER_PREFIX}{_owner_tag()}_"


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _placeholder_prefix() -> str:
        return _PREFIX


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        source = make_file(os.path.join(tmp, "weights"), b"weights")

        def move() -> str:  # in the child: its pid, and the name of the placeholder it made
            blob = impl.FileBackedData.move_from(source)
            return f"{os.getpid()} {os.path.basename(impl.path_of(blob))}"

        child, name = forked_says(move).split()
        if not name.startswith(f".executorch_{child}-") and not name.startswith(
            f".executorch_{child}_"
        ):
            return f"a placeholder made by child {child} is named {name}"
        return None
