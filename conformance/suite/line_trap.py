"""A trace function that stops a thread at the n-th line it runs: the suite forks while another
thread is paused there, inside a call of the implementation."""

from __future__ import annotations

import threading
from types import FrameType
from typing import Any


class LineTrap:
    """Counts the lines a thread traced by :meth:`_trace` runs; at its ``line``-th it sets
    ``reached`` and waits for ``release``, at most ``hold`` seconds (with ``line`` 0 it only
    counts). A subclass starts the thread and installs the trace."""

    def __init__(self, line: int, hold: float) -> None:
        self.line, self.count = line, 0
        self.reached, self.release = threading.Event(), threading.Event()
        self._hold = hold

    def _trace(self, frame: FrameType, event: str, arg: object) -> Any:  # sys.settrace's type
        if event == "line":
            self.count += 1
            if self.count == self.line:
                self.reached.set()
                self.release.wait(self._hold)
        return self._trace
