"""A port (the reference otherwise) whose ``close()``, after the reference's release, counts
closed owners under the owners' registry lock taken by hand (``acquire()``, then ``release()``,
with no ``try``/``finally``): an interrupt between the two leaves the lock held by the interrupted
thread for ever, and the next ``move_from`` or ``close()`` of any other thread blocks on it. The
interrupted close itself is complete, so only a follow-up in another thread shows the defect
(FBD-INTR-1). Not a mutant of ``tests/mutants``: the lock it strands stays held for the rest of
the process, and a run in one process (the meta runs') would then wait on it in every later test
that takes it from a thread; ``tests/test_probes.py`` runs the interrupt tests on it alone.
"""

from __future__ import annotations

import reference
from reference import ownership
from tests.mutants import implementation


class FileBackedData(reference.FileBackedData):
    closed_owners = 0

    def close(self) -> None:
        super().close()
        ownership._owners_lock.acquire()
        FileBackedData.closed_owners += 1  # the interrupt lands here: the lock stays held
        ownership._owners_lock.release()


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
