"""Attack: a child forked while another thread of the parent is inside an object's ``close()``
(held at its removal) closes that inherited object; it must not wait for ever on a lock that
thread held at the fork (FBD-FORK-2).

Exit 0 when the child's close() returns within 10 s; 1 when it hangs (the child is killed).
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable
from typing import Any

from _common import harness, verdict

from reference import FileBackedData

forks = harness("forks")

with tempfile.TemporaryDirectory() as directory:
    source = os.path.join(directory, "weights.bin")
    with open(source, "wb") as f:
        f.write(b"w" * 4096)
    blob = FileBackedData.move_from(source)
    inside, go_on = threading.Event(), threading.Event()
    real_unlink, real_remove = os.unlink, os.remove

    def hooked(real: Callable[..., None]) -> Callable[..., None]:
        """``real``, but the closing thread stops at its removal, inside close()."""

        def call(*args: Any, **kwargs: Any) -> None:
            if threading.current_thread().name == "closer" and not inside.is_set():
                inside.set()
                go_on.wait(30)
            return real(*args, **kwargs)

        return call

    os.unlink, os.remove = hooked(real_unlink), hooked(real_remove)
    closer = threading.Thread(target=blob.close, name="closer", daemon=True)
    closer.start()
    if not inside.wait(10):
        verdict("close() made no removal through os.unlink or os.remove: window not reached")
    pid = forks.fork_threaded()
    if pid == 0:
        blob.close()
        os._exit(0)
    code = forks.bounded_wait(pid, 10)
    go_on.set()
    closer.join(10)
    os.unlink, os.remove = real_unlink, real_remove
    verdict(
        None
        if code == 0
        else "the forked child's close() of the inherited object "
        + ("hung for 10 s (killed)" if code is None else f"failed (status {code})")
    )
