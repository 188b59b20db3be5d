"""Breaks: FBD-MOVE-10
Profile: strict
Bug: the owner tag's start time is read from the wrong field of ``/proc/<pid>/stat``: field 21
(``itrealvalue``, always 0) instead of field 22 (``starttime``), an off-by-one in counting the
fields after the command name, so every placeholder says its owner started at 0.
"""

from __future__ import annotations

import os

import reference
from conformance.api import Implementation
from reference.placeholders import process_start_time

from . import implementation
from ._support import directory, make_file


def _start_time_field_21(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as f:
        line = f.read()
    fields = line[line.rfind(b")") + 1 :].split()
    return int(fields[18])  # field 21: one before starttime


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _placeholder_prefix() -> str:
        pid = os.getpid()
        return f".executorch_{pid}-{_start_time_field_21(pid)}_"


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    start = process_start_time(os.getpid())
    if start is None:  # pragma: no cover - not Linux
        return None
    with directory() as tmp:
        blob = impl.FileBackedData.move_from(make_file(os.path.join(tmp, "w"), b"data"))
        try:
            name = os.path.basename(impl.path_of(blob))
        finally:
            blob.close()
    expected = f".executorch_{os.getpid()}-{start}_"
    if not name.startswith(expected):
        return f"placeholder {name!r} does not start with {expected!r}"
    return None
