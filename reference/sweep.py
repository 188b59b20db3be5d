"""Find and remove placeholders left behind by processes that died (spec section 3.7).

``move_from`` names its placeholder ``.executorch_<pid>-<start time>_<random>.data`` (FBD-MOVE-10).
A sweep looks at the regular files of one directory, not below it, whose names have exactly that
form, and removes those whose owner is gone: no process has that pid, or the process with that pid
started at another time (the pid was reused). Nothing else is ever removed: not a live owner's
file, not a placeholder without an owner tag (ExecuTorch's ``.executorch_<random>.data``: its owner
cannot be known), not a symbolic link, a directory or any other name, and nothing outside the
directory. Owners are judged in this process's pid namespace, on this host.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from typing import Literal

from .placeholders import PLACEHOLDER_PREFIX, PLACEHOLDER_SUFFIX, process_start_time

__all__ = [
    "NotRemoved",
    "Placeholder",
    "SweepResult",
    "find_orphans",
    "report_lines",
    "scan",
    "sweep",
]

Owner = Literal["alive", "gone", "unknown"]

_NAME = re.compile(
    re.escape(PLACEHOLDER_PREFIX)
    + r"(?:(?P<pid>[1-9][0-9]{0,9})(?:-(?P<start>[0-9]{1,20}))?_)?[a-z0-9_]{8}"
    + re.escape(PLACEHOLDER_SUFFIX)
)
"""A placeholder name: ``mkstemp``'s eight random characters after an optional owner tag."""

_PID_LIMIT = 1 << 31
"""Pids are C ``int``s: a name with a larger one was not made by a process of this system."""

_OPEN_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class Placeholder:
    """A regular file named like a placeholder, and what is known of its owner."""

    path: str
    """The file's path: the swept directory joined with its name."""
    pid: int | None
    """The owner's pid, None for a name without an owner tag."""
    start_time: int | None
    """The owner's start time from the name, None when the name has none."""
    owner: Owner
    """``gone`` (an orphan), ``alive``, or ``unknown`` (no owner tag: always kept)."""
    identity: tuple[int, int]
    """``(st_dev, st_ino)`` when it was found: only that file is ever removed."""

    @property
    def name(self) -> str:
        return os.path.basename(self.path)


@dataclass(frozen=True)
class NotRemoved:
    """An orphan the sweep was not allowed to remove (another user's file in a sticky directory)."""

    found: Placeholder
    reason: str
    """The OS's words for why, e.g. ``Operation not permitted``."""


@dataclass(frozen=True)
class SweepResult:
    """What a sweep removed (or, in a dry run, would remove), what it kept, what it could not
    remove."""

    removed: list[Placeholder]
    kept: list[Placeholder]
    dry_run: bool
    failed: list[NotRemoved] = field(default_factory=list)
    """Orphans whose removal the OS refused; the sweep went on past each (FBD-SWEEP-5)."""


def owner_state(pid: int | None, start_time: int | None) -> Owner:
    """Whether the process named by a placeholder is ``alive``, ``gone`` or ``unknown``
    (FBD-SWEEP-1: gone is no such pid, or one that started at another time; FBD-SWEEP-2: this
    process, and a name without an owner tag, are never gone)."""
    if pid is None or pid >= _PID_LIMIT:
        return "unknown"  # no owner tag, or no pid a process of this system can have
    if pid == os.getpid():
        return "alive"  # never this process's own files
    if not _exists(pid):
        return "gone"
    if start_time is None:
        return "alive"  # the pid exists; whether it was reused cannot be told
    actual = process_start_time(pid)
    if actual is None:  # no /proc, or the process ended just now: ask again
        return "alive" if _exists(pid) else "gone"
    return "alive" if actual == start_time else "gone"


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    return True


def _open_directory(directory: str | os.PathLike[str]) -> int:
    """A descriptor of ``directory`` itself, never of where a symbolic link points (FBD-SWEEP-2;
    FBD-SWEEP-3: a missing directory, a file or a link is an OSError that removes nothing)."""
    return os.open(directory, _OPEN_FLAGS)


def _scan(dirfd: int, directory: str) -> list[Placeholder]:
    found = []
    with os.scandir(dirfd) as entries:
        for entry in entries:
            match = _NAME.fullmatch(entry.name)
            if match is None:
                continue
            try:
                st = os.stat(entry.name, dir_fd=dirfd, follow_symlinks=False)
            except FileNotFoundError:
                continue  # removed since the directory was read (FBD-SWEEP-4)
            if not stat.S_ISREG(st.st_mode):  # FBD-SWEEP-2
                continue  # a symbolic link, a directory, a FIFO named like a placeholder
            pid = None if match["pid"] is None else int(match["pid"])
            start = None if match["start"] is None else int(match["start"])
            found.append(
                Placeholder(
                    os.path.join(directory, entry.name),
                    pid,
                    start,
                    owner_state(pid, start),
                    (st.st_dev, st.st_ino),
                )
            )
    return sorted(found, key=lambda p: p.name)


def scan(directory: str | os.PathLike[str]) -> list[Placeholder]:
    """Every placeholder in ``directory`` (regular files only, not below it), sorted by name."""
    dirfd = _open_directory(directory)
    try:
        return _scan(dirfd, os.fspath(directory))
    finally:
        os.close(dirfd)


def find_orphans(directory: str | os.PathLike[str]) -> list[Placeholder]:
    """The placeholders in ``directory`` whose owner is gone: what ``sweep`` would remove
    (FBD-SWEEP-3: the dry run's list)."""
    return [p for p in scan(directory) if p.owner == "gone"]


def _remove(dirfd: int, found: Placeholder) -> bool:
    """Unlink ``found`` if it is still the same regular file and its owner is still gone
    (FBD-SWEEP-2's check again: an ``lstat`` of the name now against the one the scan made).

    Raises ``OSError`` (not ``FileNotFoundError``) when the OS refuses the unlink."""
    try:
        st = os.stat(found.name, dir_fd=dirfd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if (st.st_dev, st.st_ino) != found.identity or not stat.S_ISREG(st.st_mode):
        return False
    if owner_state(found.pid, found.start_time) != "gone":
        return False
    try:
        os.unlink(found.name, dir_fd=dirfd)
    except FileNotFoundError:
        return False
    return True


def sweep(directory: str | os.PathLike[str], dry_run: bool = False) -> SweepResult:
    """Remove the orphaned placeholders of ``directory`` (nothing when ``dry_run``).

    Each file is removed by name relative to a descriptor of the directory opened without following
    links, after checking again that it is the file found (same ``st_dev``, ``st_ino``) and that
    its owner is still gone. A file that vanished or changed in between, or whose owner can no
    longer be told gone, is left out of the result. A file the OS refuses to unlink is reported
    in ``failed`` and the sweep goes on with the others.
    """
    dirfd = _open_directory(directory)
    try:
        removed: list[Placeholder] = []
        kept: list[Placeholder] = []
        failed: list[NotRemoved] = []
        for found in _scan(dirfd, os.fspath(directory)):
            if found.owner != "gone":
                kept.append(found)
                continue
            try:
                if dry_run or _remove(dirfd, found):  # FBD-SWEEP-3: a dry run removes nothing
                    removed.append(found)
            except OSError as exc:  # FBD-SWEEP-5: e.g. EPERM, another user's file: go on
                failed.append(NotRemoved(found, exc.strerror or str(exc)))
    finally:
        os.close(dirfd)
    return SweepResult(removed, kept, dry_run, failed)


def report_lines(result: SweepResult) -> list[str]:
    """What a sweep did, one line per file and a total: what ``cordspec sweep`` prints."""
    verb = "would remove" if result.dry_run else "removed"
    lines = [f"{verb} {found.path} (owner pid {found.pid} gone)" for found in result.removed]
    for found in result.kept:
        why = "unknown owner" if found.owner == "unknown" else f"owner pid {found.pid} alive"
        lines.append(f"kept {found.path} ({why})")
    for failure in result.failed:
        found = failure.found
        lines.append(
            f"could not remove {found.path} (owner pid {found.pid} gone): {failure.reason}"
        )
    done = "would be removed" if result.dry_run else "removed"
    total = f"{len(result.removed)} {done}, {len(result.kept)} kept"
    if result.failed:
        total += f", {len(result.failed)} could not be removed"
    lines.append(total)
    return lines
