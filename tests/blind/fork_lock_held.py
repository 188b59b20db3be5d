"""Breaks: FBD-FORK-2
Profile: strict
Bug: the port serialises ``move_from`` and ``close()`` with a lock of its own and does not replace
it in a forked child: a child forked while another thread was inside ``move_from`` inherits the
lock held, and its own ``move_from`` waits for ever.
"""

from __future__ import annotations

import os
import signal
import threading
from unittest import mock

import reference
from conformance.api import Implementation

from . import implementation
from ._support import directory, make_file

_lock = threading.RLock()


class FileBackedData(reference.FileBackedData):
    @classmethod
    def move_from(cls, path: object, sha256: object = None) -> reference.FileBackedData:
        with _lock:
            return super().move_from(path, sha256)

    def close(self) -> None:
        with _lock:
            super().close()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    real = os.replace
    inside, release = threading.Event(), threading.Event()
    blocked: list[int] = []

    def slow_replace(src: object, dst: object, **kwargs: object) -> None:
        if threading.get_ident() in blocked:
            inside.set()
            release.wait(10)
        real(src, dst, **kwargs)

    with directory() as tmp:
        first = make_file(os.path.join(tmp, "first"), b"one")
        second = make_file(os.path.join(tmp, "second"), b"two")
        moved: list[object] = []

        def move() -> None:
            blocked.append(threading.get_ident())
            moved.append(impl.FileBackedData.move_from(first))

        with mock.patch("os.replace", slow_replace):
            worker = threading.Thread(target=move)
            worker.start()
            inside.wait(10)
            pid = os.fork()
            if pid == 0:
                status = 1
                try:
                    signal.alarm(3)  # a child that waits for ever is killed
                    impl.FileBackedData.move_from(second)
                    status = 0
                finally:
                    os._exit(status)
            _, status = os.waitpid(pid, 0)
            release.set()
            worker.join(10)
        for blob in moved:
            blob.close()
        if os.WIFSIGNALED(status):
            return "a child forked while a thread was in move_from hung in its own move_from"
        if os.waitstatus_to_exitcode(status) != 0:
            return "a child forked while a thread was in move_from could not move a file"
        return None
