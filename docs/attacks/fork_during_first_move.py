"""Attack: a fresh process's thread is inside the process's first ``move_from`` when another
thread forks; the child's own first ``move_from`` must not wait for ever on a lock the thread held
at the fork, such as ``tempfile._once_lock``, which ``mkstemp`` takes the first time a process
names a temporary file (FBD-FORK-2). The thread is stopped while it holds that lock, if it ever
takes it.

Exit 0 when the child's first move_from completes within 10 s; 1 when it hangs.
"""

from __future__ import annotations

import tempfile

from _common import child, verdict

SCRIPT = r"""
import tempfile, threading
from _common import harness
from reference import FileBackedData
forks = harness("forks")

parent_source, child_source = write("parent.bin"), write("child.bin")
stopped, go_on, done = threading.Event(), threading.Event(), []

def trace(frame, event, arg):
    if event == "line" and not stopped.is_set() and tempfile._once_lock.locked():
        stopped.set()
        go_on.wait(30)
    return trace

def first_move():
    sys.settrace(trace)
    try:
        done.append(FileBackedData.move_from(parent_source))
    finally:
        sys.settrace(None)
        stopped.set()

thread = threading.Thread(target=first_move, daemon=True)
thread.start()
stopped.wait(30)
print("held", tempfile._once_lock.locked(), flush=True)
pid = forks.fork_threaded()
if pid == 0:
    FileBackedData.move_from(child_source).close()
    os._exit(0)
code = forks.bounded_wait(pid, 10)
print("child", "hung" if code is None else code, flush=True)
go_on.set()
thread.join(10)
for blob in done:
    blob.close()
"""

with tempfile.TemporaryDirectory() as directory:
    run = child(SCRIPT, directory)
    verdict(
        None
        if "child 0" in run.stdout
        else f"the forked child's first move_from: {run.stdout.strip()} {run.stderr.strip()}"
    )
