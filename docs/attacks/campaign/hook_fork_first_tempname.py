"""Fork while another thread is inside the process's first ``tempfile.mkstemp`` (holding
``tempfile._once_lock``), then materialize a weights blob in the child: the child must not wait for
ever on the inherited lock (the threat model's fork attacker; FBD-FORK-2 states the rule for
``move_from``, whose placeholders avoid ``mkstemp`` for this reason, but the hook that writes the
blob still calls it).

Exits 1 when the child hangs, 0 when it materializes."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading

from _campaign import bounded_wait, pausing_at

from reference.hooks import CompileSpec, FileBackedAotiBackend, Weights

WAIT = 10.0


def main() -> int:
    if getattr(tempfile, "_name_sequence", "absent") is not None:
        print("not testable here: this interpreter already made a temporary name")
        return 0
    inside = threading.Event()
    release = threading.Event()
    target = tempfile._get_candidate_names.__code__  # type: ignore[attr-defined]
    # the line that builds the name sequence runs with the lock held
    tracer = pausing_at(target, "_RandomNameSequence()", inside, release, WAIT * 3)

    def first_temporary() -> None:
        sys.settrace(tracer)
        fd, _ = tempfile.mkstemp(dir=directory)
        os.close(fd)

    directory = _private_dir()
    try:
        thread = threading.Thread(target=first_temporary, daemon=True)
        thread.start()
        if not inside.wait(WAIT):
            print("not testable here: the thread never reached tempfile's first-name lock")
            return 0
        pid = os.fork()
        if pid == 0:  # the child: its main thread is the only one
            try:
                so = os.path.join(directory, "child.wrapper.so")
                with open(so, "wb"):
                    pass
                FileBackedAotiBackend.materialize_weights_blob(
                    [so, Weights([b"w" * 10])], [CompileSpec("low_memory_mode", b"ON")]
                )
            finally:
                os._exit(0)
        release.set()
        if bounded_wait(pid, WAIT) is not None:
            print("held: the forked child materialized its weights blob")
            return 0
        print(
            f"HUNG: a child forked while a thread held tempfile's first-name lock waited "
            f"{WAIT:.0f} s in materialize_weights_blob (tempfile.mkstemp) and was killed"
        )
        return 1
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _private_dir() -> str:
    """A directory made without ``tempfile`` (which would make the first name itself)."""
    path = f"/tmp/attack-fork-{os.getpid()}"
    os.mkdir(path, 0o700)
    return path


if __name__ == "__main__":
    sys.exit(main())
