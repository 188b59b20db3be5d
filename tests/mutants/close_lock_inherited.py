"""Breaks: FBD-FORK-2

Each object's close lock is made once and kept in a forked child: a child forked while another
thread of the parent was inside that object's ``close()`` inherits the lock held, and its own
``close()`` of the inherited object waits for ever.
"""

from __future__ import annotations

import threading

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    @property
    def _lock(self) -> threading.Lock:
        return self._locked[1]  # the lock made with the object, whichever process this is


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
