"""The window a child process opens in its own exit: the release at exit's first removal waits
while another thread acts, so that what a thread does during that release can be tested (in a
child script, as its main module's last statement)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

__all__ = ["pause_the_exit_release"]


def pause_the_exit_release(begun: threading.Event, done: threading.Event, bound: float) -> None:
    """From now on, the first removal (``os.unlink`` or ``os.remove``) the main thread makes sets
    ``begun`` and waits for ``done``, ``bound`` seconds at the most. Called once the main module
    has done all else, that removal is the release at exit's."""

    def paused(real: Callable[..., None]) -> Callable[..., None]:
        def call(*args: object, **kwargs: object) -> None:
            if not begun.is_set() and threading.current_thread() is threading.main_thread():
                begun.set()
                done.wait(bound)
            return real(*args, **kwargs)

        return call

    os.unlink, os.remove = paused(os.unlink), paused(os.remove)
