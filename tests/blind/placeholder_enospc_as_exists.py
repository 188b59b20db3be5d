"""Breaks: FBD-FAULT-1
Profile: core
Bug: the placeholder's exclusive create draws another name on any ``OSError``, not only on
``FileExistsError``, so a full disk (``ENOSPC``) or a read-only directory ends as "no unused
placeholder name" (``EEXIST``) after a hundred tries.
"""

from __future__ import annotations

import errno
import os

from conformance.api import Implementation
from reference import file_backed, placeholders

from . import implementation

_TRIES = 100


class FileBackedData(file_backed.FileBackedData):
    @staticmethod
    def _make_placeholder(prefix: str, suffix: str, directory: str) -> tuple[int, str]:
        for _ in range(_TRIES):
            name = prefix + "".join(placeholders._RANDOM.choices(placeholders._CHARACTERS, k=8))
            path = os.path.join(directory, name + suffix)
            try:
                fd = os.open(path, placeholders._CREATE_FLAGS, 0o600)
            except OSError:  # taken, or so it seems: draw another name
                continue
            return fd, os.path.abspath(path)
        raise FileExistsError(errno.EEXIST, "no unused placeholder name found", directory)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    from unittest import mock

    from ._support import directory, make_file

    real_open = os.open

    def full_disk(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and ".executorch_" in os.fspath(path):
            raise OSError(errno.ENOSPC, "No space left on device", path)
        return real_open(path, flags, *args, **kwargs)

    with directory() as d:
        source = make_file(os.path.join(d, "w"), b"abc")
        try:
            with mock.patch.object(os, "open", full_disk):
                blob = impl.FileBackedData.move_from(source)
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                return f"a full disk in move_from raised errno {exc.errno}: {exc}"
            if sorted(os.listdir(d)) != ["w"]:
                return f"a failed move_from left {sorted(os.listdir(d))}"
            return None
        blob.close()
    return "move_from succeeded on a full disk"
