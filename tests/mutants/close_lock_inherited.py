"""Breaks: FBD-FORK-2

Each object's close lock is made once and kept in a forked child: a child forked while another
thread of the parent was inside that object's ``close()`` inherits the lock held, and its own
``close()`` of the inherited object waits for ever.
"""

from __future__ import annotations

import os
import threading

import reference
from conformance.api import Implementation
from tests.blind._support import child_says, directory, make_file

from . import implementation


class FileBackedData(reference.FileBackedData):
    @property
    def _lock(self) -> threading.Lock:
        return self._locked[1]  # the lock made with the object, whichever process this is


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


_CHILD = """
import os, signal, threading
owner = impl.FileBackedData({path!r}, cleanup=True)
inside, leave = threading.Event(), threading.Event()
real = os.unlink
def unlink(*args, **kwargs):  # the closing thread stays inside close() until told
    inside.set()
    leave.wait(10)
    return real(*args, **kwargs)
os.unlink = unlink
closing = threading.Thread(target=owner.close)
closing.start()
inside.wait(10)
pid = os.fork()
if pid == 0:
    # killed by the alarm's default action, which no deferral of Python handlers holds back; a
    # close that is not waiting is done long before
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    owner.close()
    os._exit(0)
_, status = os.waitpid(pid, 0)
leave.set()
closing.join(10)
if os.waitstatus_to_exitcode(status) == -signal.SIGALRM:
    print("a forked child's close() waited on the lock a parent thread held in close() at the fork")
else:
    print("OK")
"""


def scenario(impl: Implementation) -> str | None:
    """A thread of the parent is inside ``close()`` (held in its removal) when the parent forks;
    the child closes the same object."""
    with directory() as tmp:
        return child_says(impl, _CHILD.format(path=make_file(os.path.join(tmp, "w"), b"weights")))
