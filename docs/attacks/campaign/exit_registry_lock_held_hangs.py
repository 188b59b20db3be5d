"""A daemon thread stopped inside the registry's lock (here held at a line of ``_register`` by a
trace function; a collection running a slow ``__del__`` there does the same) when the process
exits with an owned file: the release at exit waits for that lock a bounded time to refuse new
owners, as documented ("a release must go on even past a daemon thread frozen holding it"), but
then unregisters each released owner under the same lock with no bound, and the exit never ends
(the threat model: "no operation blocks for ever"; FBD-EXIT-3's bounded wait, FBD-CLOSE-5).

Exits 1 when the exiting process is still alive after 30 s (it is killed), 0 when it ends and its
owned file is gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

from _campaign import scratch

VICTIM = textwrap.dedent(
    """
    import linecache, os, sys, threading
    from reference import ownership
    from reference.file_backed import FileBackedData

    directory = sys.argv[1]
    def fresh(name):
        path = os.path.join(directory, name)
        with open(path, "wb") as f:
            f.write(b"w")
        return path

    kept = FileBackedData.move_from(fresh("owned"))  # released at exit
    code = ownership._register.__code__
    inside = threading.Event()

    def local(frame, event, arg):
        if event == "line" and "_owners[identity] =" in linecache.getline(
            frame.f_code.co_filename, frame.f_lineno
        ):
            inside.set()
            threading.Event().wait()  # stopped here, the registry lock held
        return local

    def worker():
        sys.settrace(lambda frame, event, arg: local if frame.f_code is code else None)
        FileBackedData.move_from(fresh("other"))

    threading.Thread(target=worker, daemon=True).start()
    if not inside.wait(10):
        sys.exit(3)
    print("exiting", flush=True)
    """
)


def main() -> int:
    with scratch("attack-lock-") as directory:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        child = subprocess.Popen(
            [sys.executable, "-c", VICTIM, directory],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            child.wait(30)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
            child.wait()
            print(
                "HUNG: a process exiting while a daemon thread was stopped inside the registry "
                "lock did not end in 30 s (killed); owned files left: "
                f"{[n for n in os.listdir(directory) if n.startswith('.executorch')]}"
            )
            return 1
        if child.returncode == 3:
            print("not testable here: the daemon thread never reached the registry lock")
            return 0
        left = [n for n in os.listdir(directory) if n.startswith(".executorch")]
        owned = [n for n in left]
        print(f"held: the exit ended (status {child.returncode}); placeholders left: {owned}")
        return 0


if __name__ == "__main__":
    sys.exit(main())
