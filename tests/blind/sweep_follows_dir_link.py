"""Breaks: FBD-SWEEP-3, FBD-SWEEP-2
Profile: strict
Bug: the sweep opens its directory with ``O_DIRECTORY`` but without ``O_NOFOLLOW``: given a
symbolic link to a directory, it sweeps the directory the link leads to instead of refusing.
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from reference import sweep as reference_sweep

from . import implementation
from ._support import directory, make_file
from ._sweep import Sweep

IMPLEMENTATION = implementation(
    __name__, sweep=Sweep(open_flags=reference_sweep._OPEN_FLAGS & ~os.O_NOFOLLOW)
)


def scenario(impl: Implementation) -> str | None:
    assert impl.sweep is not None
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    with directory() as tmp:
        real = os.path.join(tmp, "real")
        os.mkdir(real)
        orphan = make_file(os.path.join(real, f".executorch_{pid}_abcdefgh.data"), b"orphan")
        link = os.path.join(tmp, "link")
        os.symlink(real, link)
        try:
            removed = impl.sweep.sweep(link, dry_run=False)
        except OSError:
            return None if os.path.exists(orphan) else "it raised, but removed the orphan"
        return f"a sweep of a symbolic link to a directory swept it: removed {removed}"
