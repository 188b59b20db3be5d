"""Placeholders: the prefix and suffix of ``move_from``'s placeholders, the owner tag
(``<pid>-<start time>``) that lets a sweep tell whether their owner is gone (FBD-MOVE-10), the
exclusive create that makes a placeholder (FBD-MOVE-2), and how what a placeholder holds goes back
to the source's name (FBD-MOVE-5, FBD-MOVE-11)."""

from __future__ import annotations

import errno
import os
import random
import tempfile
from dataclasses import dataclass

from .location import Identity, Location
from .renames import rename_noreplace

__all__ = [
    "KEPT_INFIX",
    "PLACEHOLDER_PREFIX",
    "PLACEHOLDER_SUFFIX",
    "make_placeholder",
    "process_start_time",
]

PLACEHOLDER_PREFIX = ".executorch_"
PLACEHOLDER_SUFFIX = ".data"
KEPT_INFIX = ".kept-"
"""Where a put-back finds the source's name taken, the data goes to ``<name>.kept-<random>``
beside it: a name no sweep matches (FBD-MOVE-11)."""
_KEPT_TRIES = 100
_NAME_MAX = 255


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


@dataclass
class _Move:
    """One ``move_from``: the source (its path, identity and ``Location``) and, once made, the
    placeholder (its path, ``Location``, and the identity of the empty file ``mkstemp`` made)."""

    source: str
    identity: Identity
    home: Location
    placeholder: str = ""
    where: Location | None = None
    empty: Identity | None = None


def put_back(move: _Move) -> None:
    """Rename what is at the placeholder back to the source's name, through descriptors of both
    directories and never replacing anything there (FBD-MOVE-5, FBD-MOVE-11). Where that fails
    (another took the name meanwhile, a directory was moved), nothing is deleted: the data goes
    to a kept name beside the source if it can, and an ``OSError`` names where it is."""
    where = move.where
    if where is None:  # pragma: no cover  # called only once the placeholder is located
        raise ValueError("put_back before the placeholder was located")
    kept = where.path
    try:
        with where.opened_directory() as held, move.home.opened_directory() as home:
            try:
                rename_noreplace(held, where.name, home, move.home.name)
                return
            except OSError as exc:
                failed = exc
            kept = _keep(held, where, home, move.home) or kept
    except OSError as exc:  # a directory moved or replaced: the data stays where it is
        failed = exc
    raise OSError(
        failed.errno,
        f"could not put the data back at {move.home.path!r} ({failed.strerror}); "
        f"it is kept, unowned, at {kept!r}",
        kept,
        None,
        move.home.path,
    ) from failed


def _keep(held: int, where: Location, home: int, source: Location) -> str | None:
    """Rename the placeholder ``where`` to a free ``<source name>.kept-<random>`` in the source's
    directory, never replacing; its path, or None where no such rename can be made."""
    stem = source.name[: _NAME_MAX - len(KEPT_INFIX) - 8]
    for _ in range(_KEPT_TRIES):
        name = f"{stem}{KEPT_INFIX}{random.randbytes(4).hex()}"
        try:
            rename_noreplace(held, where.name, home, name)
        except FileExistsError:  # pragma: no cover  # the suite's race or fault
            continue
        except OSError:  # pragma: no cover  # the suite's race or fault
            return None
        return source._replace(name=name).path
    return None  # pragma: no cover  # a hundred random names all taken
