"""Breaks: FBD-CHANGE-1, FBD-FAULT-2

``FileBackedData.write_to_file`` with an early return for an empty blob ("nothing to copy"): the
file is never opened, so an empty file that has since grown, been replaced or been removed is
written as nothing, without the error every other size gets.
"""

from __future__ import annotations

from typing import Any

import reference
from conformance.api import Implementation

from . import implementation
from ._proofs_a import empty_grown_written


class FileBackedData(reference.FileBackedData):
    def write_to_file(self, outfile: Any) -> None:
        if len(self) == 0:
            return
        super().write_to_file(outfile)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    return empty_grown_written(impl, lambda blob: blob)
