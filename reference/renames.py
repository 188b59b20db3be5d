"""Renames that never replace and never follow a path: how ``move_from`` puts a file back at a
name someone else may have taken meanwhile (FBD-MOVE-11). Both directories are held by
descriptor; ``renameat2(RENAME_NOREPLACE)`` where the C library and the filesystem have it, else
a hard link (which never replaces either) and the unlink of the old name."""

from __future__ import annotations

import ctypes
import errno
import os
from collections.abc import Callable

__all__ = ["rename_noreplace"]

RENAME_NOREPLACE = 1
_REAL_RENAME = os.rename
"""What ``os.rename`` is in this process; where it is something else (a fake filesystem, whose
descriptors mean nothing to the kernel, or a test's wrapper), the portable way is taken."""
_UNSUPPORTED = frozenset({errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP})
"""``renameat2``'s errors for a kernel or filesystem without ``RENAME_NOREPLACE``."""


def _load_renameat2() -> Callable[[int, bytes, int, bytes, int], int] | None:
    """The C library's ``renameat2``, as a function returning 0 or the error number; None where
    there is none (not Linux, a C library older than glibc 2.28)."""
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):  # pragma: no cover  # glibc >= 2.28 has it
        return None
    function.argtypes = (
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    )
    function.restype = ctypes.c_int

    def renameat2(old_dir: int, old: bytes, new_dir: int, new: bytes, flags: int) -> int:
        ctypes.set_errno(0)
        return 0 if function(old_dir, old, new_dir, new, flags) == 0 else ctypes.get_errno()

    return renameat2


_renameat2 = _load_renameat2()


def rename_noreplace(old_dir: int, old: str, new_dir: int, new: str) -> None:
    """Rename the entry ``old`` of the directory ``old_dir`` (a descriptor) to ``new`` in
    ``new_dir``, unless ``new`` exists: then ``FileExistsError``, and nothing changed."""
    if _renameat2 is not None and os.rename is _REAL_RENAME:
        code = _renameat2(old_dir, os.fsencode(old), new_dir, os.fsencode(new), RENAME_NOREPLACE)
        if code == 0:
            return
        if code not in _UNSUPPORTED:  # pragma: no branch  # the suite's race or fault
            raise OSError(code, os.strerror(code), old, None, new)
    _link_then_unlink(old_dir, old, new_dir, new)


def _link_then_unlink(old_dir: int, old: str, new_dir: int, new: str) -> None:
    """``rename_noreplace`` by a hard link, then the old name's unlink if it still names the
    linked file (the moment between the two is another's only with write access to the
    directory, who could remove the file anyway)."""
    os.link(old, new, src_dir_fd=old_dir, dst_dir_fd=new_dir, follow_symlinks=False)
    linked = os.stat(new, dir_fd=new_dir, follow_symlinks=False)
    try:
        there = os.stat(old, dir_fd=old_dir, follow_symlinks=False)
    except FileNotFoundError:  # pragma: no cover  # the suite's race or fault
        return
    if (there.st_dev, there.st_ino) == (linked.st_dev, linked.st_ino):  # pragma: no branch
        os.unlink(old, dir_fd=old_dir)
