"""Breaks: FBD-MOVE-4

``move_from`` that cleans up after ``except Exception`` rather than any ``BaseException``, as
ExecuTorch 1.5.1 does: a ``KeyboardInterrupt`` (or ``SystemExit``) while the source is renamed
leaves the placeholder behind.
"""

from __future__ import annotations

from . import implementation
from ._base import StepwiseMove


class FileBackedData(StepwiseMove):
    cleanup_on = Exception


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)
