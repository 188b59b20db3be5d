"""Fork from another thread while the main thread is inside ``move_from`` (its signals deferred,
FBD-INTR-1), or inside the release at exit (its signals ignored): the child inherits the layer's
deferral, still active, as the handler of every signal the program handles, and nothing in the
child ever ends it. The child's SIGTERM handler (which exits) and SIGINT's ``KeyboardInterrupt``
never run: the child cannot be stopped but by SIGKILL (the threat model: "the process's signal
handlers run as if the layer were not there"; FBD-FORK-2 covers locks, no clause covers handlers).

Exits 1 naming each step whose child ignored SIGTERM and SIGINT, 0 when every child obeys."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from types import FrameType
from typing import Any

from _campaign import bounded_wait, file_in, pausing_at

from reference.file_backed import FileBackedData

WAIT = 5.0


def on_term(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(7)


def child_obeys(pid: int) -> bool:
    """Whether the child ``pid``, which signals itself, ended by its handler in time."""
    return bounded_wait(pid, WAIT) in (7, 130)


def fork_at(code: Any, marker: str, step: Any) -> bool:
    """Run ``step`` in the main thread; when it reaches the line holding ``marker`` of ``code``,
    another thread forks; whether the child obeyed its SIGTERM."""
    reached = threading.Event()
    forked = threading.Event()
    result: list[bool] = []

    def forker() -> None:
        reached.wait(WAIT)
        pid = os.fork()
        if pid == 0:
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.5)
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(WAIT)
            except BaseException as exc:
                os._exit(7 if isinstance(exc, SystemExit) else 130)
            os._exit(0)
        forked.set()
        result.append(child_obeys(pid))

    thread = threading.Thread(target=forker)
    thread.start()
    sys.settrace(pausing_at(code, marker, reached, forked, WAIT * 3))
    try:
        step()
    finally:
        sys.settrace(None)
        forked.set()
    thread.join(WAIT * 3)
    return bool(result and result[0])


def main() -> int:
    signal.signal(signal.SIGTERM, on_term)
    directory = tempfile.mkdtemp(prefix="attack-deaf-")
    failures = []
    try:
        source = file_in(directory, "weights.bin", b"w")
        owner: list[FileBackedData] = []
        code = FileBackedData._move_held.__func__.__code__  # type: ignore[attr-defined]
        if not fork_at(code, "cls._take(", lambda: owner.append(FileBackedData.move_from(source))):
            failures.append("a fork while move_from ran")
        from reference import ownership

        code = ownership._release_entry.__code__
        if not fork_at(code, "owner = ref()", lambda: ownership._release_all_at_exit(False)):
            failures.append("a fork while the release of owned files ran")
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    if failures:
        print(
            "HUNG: the child of "
            + " and of ".join(failures)
            + " ignored SIGTERM (its handler exits) and SIGINT, and had to be killed"
        )
        return 1
    print("held: every child forked during a deferral ran its own handlers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
