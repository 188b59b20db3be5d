"""Placeholder names: the prefix and suffix of ``move_from``'s placeholders, the owner tag
(``<pid>-<start time>``) that lets a sweep tell whether their owner is gone (FBD-MOVE-10), and
the exclusive create that makes a placeholder (FBD-MOVE-2)."""

from __future__ import annotations

import errno
import os
import random
import tempfile

__all__ = ["PLACEHOLDER_PREFIX", "PLACEHOLDER_SUFFIX", "make_placeholder", "process_start_time"]

PLACEHOLDER_PREFIX = ".executorch_"
PLACEHOLDER_SUFFIX = ".data"


def process_start_time(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks since boot (field 22 of ``/proc/<pid>/stat``);
    None where the system does not tell (no ``/proc``, no such process)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            line = f.read()
    except OSError:
        return None
    return _parse_start_time(line)


def _parse_start_time(line: bytes) -> int | None:
    fields = line[line.rfind(b")") + 1 :].split()  # the name in parentheses may hold spaces
    try:
        return int(fields[19])  # field 3 (state) is fields[0]
    except (IndexError, ValueError):
        return None


def _make_tag(pid: int) -> tuple[int, str]:
    start = process_start_time(pid)
    return pid, str(pid) if start is None else f"{pid}-{start}"


_tag = _make_tag(os.getpid())


def _owner_tag() -> str:
    """``<pid>-<start time>`` of this process (``<pid>`` where the start time is not known), for
    placeholder names (spec FBD-MOVE-10); computed once per process, again in a forked child."""
    global _tag
    if _tag[0] != os.getpid():
        _tag = _make_tag(os.getpid())
    return _tag[1]


_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"
"""``mkstemp``'s alphabet, of which a placeholder's eight random characters are (FBD-MOVE-10)."""
_RANDOM = random.SystemRandom()
"""Each name from the OS's random source: no state to share with a forked child, no lock."""
_CREATE_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def make_placeholder(prefix: str, suffix: str, directory: str | None) -> tuple[int, str]:
    """``tempfile.mkstemp(suffix, prefix, directory)`` without ``tempfile``'s lock: a new file
    made by an exclusive create, mode 0600, and its absolute path. ``mkstemp`` takes
    ``tempfile._once_lock`` the first time a process names a temporary file, and a child forked
    while another thread holds it waits for ever in its own first ``move_from`` (FBD-FORK-2)."""
    where = tempfile.gettempdir() if directory is None else directory
    for _ in range(tempfile.TMP_MAX):
        name = prefix + "".join(_RANDOM.choices(_CHARACTERS, k=8)) + suffix
        path = os.path.join(where, name)
        try:
            fd = os.open(path, _CREATE_FLAGS, 0o600)
        except FileExistsError:
            continue  # another file has this name: draw another
        return fd, os.path.abspath(path)
    raise FileExistsError(errno.EEXIST, "no unused placeholder name found", where)
