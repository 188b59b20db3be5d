"""A call run in a thread of its own for a test: one that may hang (a read waiting on a FIFO),
or race another (two ``close()`` calls at once), with whatever it raises kept for the test."""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["in_thread"]


def in_thread(call: Callable[[], object], raised: list[BaseException]) -> threading.Thread:
    """Start ``call`` in a daemon thread (a hung one does not keep the process alive); what it
    raises is appended to ``raised``."""

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # reported by the test
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread
