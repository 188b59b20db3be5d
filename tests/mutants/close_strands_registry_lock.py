"""Breaks: FBD-INTR-1

``close()`` that, after the reference's release, counts closed owners under the owners' registry
lock taken by hand (``acquire()``, then ``release()``, with no ``try``/``finally``): an interrupt
between the two leaves the lock held by the interrupted thread for ever, and the next
``move_from`` or ``close()`` of any other thread blocks on it. The interrupted close itself is
complete, so only a follow-up in another thread shows the defect.
"""

from __future__ import annotations

import reference
from reference import ownership

from . import implementation


class FileBackedData(reference.FileBackedData):
    closed_owners = 0

    def close(self) -> None:
        super().close()
        ownership._owners_lock.acquire()
        FileBackedData.closed_owners += 1  # the interrupt lands here: the lock stays held
        ownership._owners_lock.release()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
