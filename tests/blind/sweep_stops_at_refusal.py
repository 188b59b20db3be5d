"""Breaks: FBD-SWEEP-5
Profile: strict
Bug: the sweep lets an ``OSError`` of an unlink propagate: the first orphan it may not remove
(another user's, in a sticky directory) stops it, and the orphans after it stay.
"""

from __future__ import annotations

import errno
import os
from unittest import mock

from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file
from ._sweep import Sweep

IMPLEMENTATION = implementation(__name__, sweep=Sweep(go_on=False))


def _dead_pid() -> int:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def scenario(impl: Implementation) -> str | None:
    assert impl.sweep is not None
    gone = _dead_pid()
    real = os.unlink

    def unlink(path: object, *args: object, **kwargs: object) -> None:
        if "aaaaaaaa" in str(path):
            raise PermissionError(errno.EPERM, "Operation not permitted")
        real(path, *args, **kwargs)

    with directory() as tmp:
        names = [f".executorch_{gone}_{c * 8}.data" for c in "abc"]
        for name in names:
            make_file(os.path.join(tmp, name), b"orphan")
        with mock.patch("os.unlink", unlink):
            try:
                impl.sweep.sweep(tmp, dry_run=False)
            except OSError as exc:
                return f"the sweep stopped at the orphan it may not remove: {exc!r}"
        left = sorted(os.listdir(tmp))
        if left != [names[0]]:
            return f"after a refused unlink the sweep left {left}"
        return None
