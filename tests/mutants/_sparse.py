"""What the sparse-copy mutants share: a ``write_to_file`` into a regular file that copies only the
data a sparse blob has (``SEEK_DATA``/``SEEK_HOLE``) and seeks over its holes, with one switch per
way of getting it wrong. Reaches the blob through its public API alone (``path``, ``len``,
``prefix(0)`` for the open/unchanged checks)."""

from __future__ import annotations

import errno
import fcntl
import io
import os
import stat
from typing import Any

import reference

__all__ = ["sparse_copy", "sparse_writer"]

_CHUNK = 1 << 20
_SMALL = 16 << 20
"""The largest blob the sparse copy takes (the suite's memory and read bounds use larger ones)."""


def _segments(fd: int, size: int) -> list[tuple[int, int]]:
    """The data segments of the first ``size`` bytes of ``fd``, as (start, end)."""
    found: list[tuple[int, int]] = []
    pos = 0
    while pos < size:
        try:
            start = os.lseek(fd, pos, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                break
            raise
        if start >= size:
            break
        end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
        found.append((start, end))
        pos = end
    return found


def sparse_copy(
    blob: Any,
    out: Any,
    *,
    extend: bool = True,
    over_data: bool = False,
    in_append: bool = False,
    absolute: bool = False,
    collapse_leading: bool = False,
    collapse_middle: bool = False,
) -> bool:
    """Copy ``blob`` into ``out`` skipping holes; False (nothing done) where ``out`` is not a
    regular file this copy takes. The switches are the bugs: ``extend=False`` leaves a trailing
    hole off the output, ``over_data`` skips holes over bytes already in the output, ``in_append``
    seeks in an append-mode file (where writes go to the end), ``absolute`` puts data at the
    blob's offsets, not the output's, ``collapse_*`` writes a hole's following data at its start."""
    try:
        fd = out.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation, ValueError):
        return False
    if not isinstance(fd, int) or not stat.S_ISREG(os.fstat(fd).st_mode):
        return False
    if not in_append and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND:
        return False
    blob.prefix(0)  # closed, removed, changed: raised as the implementation raises them
    out.flush()
    start = out.tell()
    if not over_data and start < os.fstat(fd).st_size:
        return False
    size = len(blob)
    if size > _SMALL:
        return False  # a large blob goes the implementation's way
    with open(blob.path, "rb") as source:  # through open(), as a test that faults reads sees
        src = source.fileno()
        try:
            segments = _segments(src, size)
        except (OSError, ValueError):
            return False
        at = start
        pos = 0
        for first, (seg_start, seg_end) in enumerate(segments):
            gap = seg_start - pos
            if gap and not ((first == 0 and collapse_leading) or (first and collapse_middle)):
                at += gap
            target = seg_start if absolute else at
            out.seek(target)
            offset = seg_start
            while offset < seg_end:
                source.seek(offset)
                chunk = source.read(min(_CHUNK, seg_end - offset))
                if not chunk:
                    raise OSError(errno.EIO, f"{blob.path} shrank while it was copied")
                out.write(chunk)
                offset += len(chunk)
            at = target + (seg_end - seg_start)
            pos = seg_end
        at += size - pos
        if extend:
            out.flush()
            if os.fstat(fd).st_size < at:
                out.truncate(at)
        out.seek(at)
    return True


def sparse_writer(**bug: bool) -> type[reference.FileBackedData]:
    """The reference's ``FileBackedData`` whose ``write_to_file`` takes a small sparse blob with
    :func:`sparse_copy` and its switches ``bug``, and any other blob as the reference does."""

    class FileBackedData(reference.FileBackedData):
        def write_to_file(self, outfile: Any) -> None:
            if not sparse_copy(self, outfile, **bug):
                super().write_to_file(outfile)

    return FileBackedData
