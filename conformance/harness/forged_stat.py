"""A stat result with some fields reported otherwise, for the hooks that show an implementation a
file as it could be on another machine: a large block size (``block_size``), a reused inode number
(``reuse``)."""

from __future__ import annotations

import os
from typing import Any

__all__ = ["ForgedStat"]

_INDEXED = ("st_mode", "st_ino", "st_dev", "st_nlink", "st_uid", "st_gid", "st_size")
"""The fields a stat result also gives by index, first and in this order (the times after them
are whole seconds, not the attributes)."""


class ForgedStat:
    """A stat result whose ``forged`` fields are the values given; every other field, by name or
    by index, is the real one."""

    def __init__(self, real: os.stat_result, **forged: int) -> None:
        self._real = real
        self._forged = forged

    def __getattr__(self, name: str) -> Any:
        return self._forged[name] if name in self._forged else getattr(self._real, name)

    def __getitem__(self, index: int) -> Any:
        fields = list(self._real)
        for position, name in enumerate(_INDEXED):
            fields[position] = self._forged.get(name, fields[position])
        return tuple(fields)[index]

    def __len__(self) -> int:
        return len(self._real)
