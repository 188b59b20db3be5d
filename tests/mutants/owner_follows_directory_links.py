"""Breaks: FBD-INIT-9

The owning constructor and ``move_from`` find the file by its path as the OS resolves it, following
every directory link on the way: another user who swaps a directory on the path for a link of
theirs chooses which directory's file is owned, and ``close()`` deletes it. Swapped in by the first
construction or move, so that only a process that uses this mutant has it.
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from reference import file_backed
from reference.location import Location, locate
from tests.blind._support import child_says

from . import implementation
from ._base import SwappedIn


def _located(path: str) -> tuple[Location, os.stat_result]:
    st = os.lstat(path)
    file_backed._require_regular(path, st)
    return locate(path, False), st


class FileBackedData(SwappedIn):
    @staticmethod
    def _swap_in() -> None:
        file_backed._located_owned = _located


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


_CHILD = """
import os, shutil, tempfile
tmp = os.path.realpath(tempfile.mkdtemp(prefix="cordspec-proof-"))
try:
    os.mkdir(os.path.join(tmp, "real"))
    with open(os.path.join(tmp, "real", "w"), "wb") as f:
        f.write(b"weights")
    link = os.path.join(tmp, "link")
    os.symlink("real", link)
    if os.geteuid() != 0:
        raise SystemExit("not shown here: only root can make a link owned by another user")
    os.lchown(link, 65534, 65534)  # another user's link
    try:
        blob = impl.FileBackedData(os.path.join(link, "w"), cleanup=True)
    except ValueError:
        print("OK")
    else:
        blob.close()
        print("the owning constructor followed another user's directory link on the path")
finally:
    shutil.rmtree(tmp)
"""


def scenario(impl: Implementation) -> str | None:
    # in a child: the mutant swaps its walk into the reference's module for good
    return child_says(impl, _CHILD)
