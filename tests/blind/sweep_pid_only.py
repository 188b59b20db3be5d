"""Breaks: FBD-SWEEP-1
Profile: strict
Bug: the sweep judges a placeholder's owner alive whenever a process has its pid, ignoring the
start time in the name: an orphan whose pid was reused by another process is never removed.
"""

from __future__ import annotations

import os

from conformance.api import Implementation
from reference import sweep as reference_sweep

from . import implementation
from ._support import directory, make_file
from ._sweep import Sweep


def owner_state(pid: int | None, start_time: int | None) -> str:
    if pid is None:
        return "unknown"
    if pid == os.getpid():
        return "alive"
    return "alive" if reference_sweep._exists(pid) else "gone"


IMPLEMENTATION = implementation(__name__, sweep=Sweep(owner_state=owner_state))


def scenario(impl: Implementation) -> str | None:
    assert impl.sweep is not None
    live = os.getppid()  # a live process; the name records another start time for it
    with directory() as tmp:
        orphan = make_file(os.path.join(tmp, f".executorch_{live}-1_abcdefgh.data"), b"orphan")
        removed = impl.sweep.sweep(tmp, dry_run=False)
        if os.path.exists(orphan) or removed != [orphan]:
            return (
                f"a placeholder whose pid was reused (start time 1) was kept (removed: {removed})"
            )
        return None
