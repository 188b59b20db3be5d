"""Forks a test makes while another thread of its process is inside the layer: the fork itself
(the warning about forking a threaded process is the point, not a fault) and a bounded wait for
the child, which is killed when it hangs on a lock the parent's thread held."""

from __future__ import annotations

import os
import signal
import time
import warnings

__all__ = ["bounded_wait", "fork_threaded"]


def fork_threaded() -> int:
    """``os.fork()`` with the DeprecationWarning of a fork of a threaded process silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork of a threaded process
        return os.fork()


def bounded_wait(pid: int, bound: float) -> int | None:
    """The exit status of child ``pid``, or None when it had not ended within ``bound`` seconds
    (it is then killed and reaped)."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.002)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None
