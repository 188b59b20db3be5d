"""Breaks: FBD-EXIT-2

The release opens the owned file's directory with no descriptor kept for it: a process that exits
with every descriptor in use (which is how a process that ran out of them ends) warns ``EMFILE``
and leaves every owned file behind. The reserve is dropped by the first construction or move, so
that only a process that uses this mutant lacks it.
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from reference import ownership
from reference.location import Identity, Location
from tests.blind._support import directory, in_child, make_file

from . import implementation
from ._base import SwappedIn


def _remove(location: Location, identity: Identity) -> None:
    location.remove_if(identity)


class FileBackedData(SwappedIn):
    @staticmethod
    def _swap_in() -> None:
        ownership._remove_with_reserve = _remove  # also in a forked child, which inherits it


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


_CHILD = """
import os, resource, sys
blob = impl.FileBackedData({path!r}, cleanup=True)
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
soft = 256 if hard == resource.RLIM_INFINITY else min(256, hard)
resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
held = []
while True:  # every descriptor in use, as when a process ran out of them
    try:
        held.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        break
sys.exit(0)
"""


def scenario(impl: Implementation) -> str | None:
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"weights")
        done = in_child(impl, _CHILD.format(path=path))
        if done.returncode != 0 or os.path.exists(path):
            return (
                f"a process that exited (status {done.returncode}) with every descriptor in use "
                f"left its owned file: {done.stderr.strip()[-300:]}"
            )
        return None
