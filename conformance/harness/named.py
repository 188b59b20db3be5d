"""The file an ``os`` call names: a path, or a name relative to a directory's descriptor
(``dir_fd=``), as a fault or a hook injected by the suite must recognise either way."""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["named_path"]


def named_path(path: object, kwargs: Mapping[str, object]) -> str | None:
    """The absolute path that ``path`` (with the call's ``dir_fd``, if any) names; None for a
    descriptor or anything else that is no path."""
    if not isinstance(path, (str, os.PathLike)):
        return None
    name = os.fspath(path)
    if not isinstance(name, str):
        return None
    dir_fd = kwargs.get("dir_fd")
    if isinstance(dir_fd, int) and not os.path.isabs(name):
        try:
            return os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), name)
        except OSError:  # no /proc: the name in the directory is all there is to go by
            return name
    return os.path.abspath(name)
