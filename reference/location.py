"""Where a blob's file is and which file it is: its directory (an absolute path and that directory's
identity), its name there, and the file's identity. Every open, stat and unlink of the file goes
through a descriptor of that directory, checked to be the recorded one, never following a link
(FBD-CLOSE-9, FBD-READ-4); no descriptor is held between calls (FBD-IDENT-2)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["FileChangedError", "Identity", "Location", "identity_of", "locate", "locate_owned"]

Identity = tuple[int, int, int]
"""``(st_dev, st_ino, st_mtime_ns)``: the inode, and when its contents last changed, which a file
that reuses a freed inode number has of its own making (FBD-IDENT-1)."""

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_STEP_FLAGS = _DIRECTORY_FLAGS | os.O_NOFOLLOW
"""One step of :func:`locate_owned`'s walk: a directory, never through a link."""
_MAX_LINKS = 40
"""Links followed in one walk at most, as the kernel's own limit (``ELOOP`` beyond)."""
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
"""Opening the blob: never through a link, and never waiting on a FIFO or device put in its place
(FBD-READ-4); for a regular file ``O_NONBLOCK`` changes nothing."""


class FileChangedError(OSError):
    """The wrapped file is no longer the file, or the size, recorded when it was wrapped."""


def identity_of(st: os.stat_result) -> Identity:
    """The identity of the file ``st`` describes (FBD-IDENT-1)."""
    return st.st_dev, st.st_ino, st.st_mtime_ns


class Location(NamedTuple):
    """A file's directory, by absolute path and ``(st_dev, st_ino)``, and its name in it."""

    directory: str
    name: str
    directory_identity: tuple[int, int]

    @property
    def path(self) -> str:
        return os.path.join(self.directory, self.name)

    @contextlib.contextmanager
    def opened_directory(self) -> Iterator[int]:
        """A descriptor of the recorded directory, closed after the block; FileNotFoundError
        naming the file when the path now leads to another directory (one above it was moved or
        replaced, by a link or otherwise): nothing there is the file (FBD-CLOSE-9)."""
        try:
            fd = os.open(self.directory, _DIRECTORY_FLAGS)
        except OSError as exc:  # FBD-FAULT-2: named by the file's path
            raise OSError(exc.errno, exc.strerror, self.path) from exc
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != self.directory_identity:
                raise FileNotFoundError(
                    errno.ENOENT, "the file's directory was moved or replaced", self.path
                )
            yield fd
        finally:
            os.close(fd)

    def stat_in(self, directory: int) -> os.stat_result:
        """The entry's own status in ``directory``, a link not followed."""
        return os.stat(self.name, dir_fd=directory, follow_symlinks=False)

    def open_in(self, directory: int, identity: Identity) -> tuple[int, os.stat_result]:
        """A read-only descriptor of the file at this name in ``directory``, and its status:
        opened without following a link or blocking (FBD-READ-4), then checked to be a regular
        file with the inode of ``identity`` (FileChangedError otherwise). The caller checks the
        size and then the rest of the identity, so that a size change is reported as one."""
        fd = os.open(self.name, _READ_FLAGS, dir_fd=directory)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != identity[:2]:
                raise FileChangedError(
                    errno.ESTALE, "the file was replaced after it was wrapped", self.path
                )
        except BaseException:
            os.close(fd)
            raise
        return fd, st

    def remove_if(self, identity: Identity) -> None:
        """Unlink the file if this name in the recorded directory still names it (FBD-CLOSE-8,
        FBD-CLOSE-9); a file or directory that is gone, or is another now, is left alone."""
        try:
            with self.opened_directory() as directory:
                st = self.stat_in(directory)
                if identity_of(st) == identity:
                    os.unlink(self.name, dir_fd=directory)
        except FileNotFoundError:  # FBD-CLOSE-6: an owned file already gone is no error
            return
        except OSError as exc:  # named by its path, not by its name in the directory
            raise OSError(exc.errno, exc.strerror, self.path) from exc


def locate(path: str, link: bool) -> Location:
    """Where the file at ``path`` is: its directory made absolute (an owner survives
    ``os.chdir``: FBD-INIT-8), with that directory's identity, and its name there; when ``link``,
    where the link ``path`` leads. The directory is looked at by one ``stat``: were it swapped
    between that and the file's own ``stat``, every later use finds no file of the recorded
    identity there, or the same file by another link (FBD-CLOSE-9)."""
    absolute = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
    if link:
        absolute = os.path.realpath(absolute)
    directory, name = os.path.split(absolute)
    held = os.stat(directory)
    return Location(directory, name, (held.st_dev, held.st_ino))


def locate_owned(path: str) -> tuple[Location, os.stat_result]:
    """Where the file ``path`` names is, for an owner, and the file's own status (a link not
    followed): a path with a link on it is walked one directory at a time through descriptors,
    and a directory link is followed only when this process's user or root owns it. Another user who
    may swap a directory on the path for a link of theirs then cannot choose which directory's
    file is owned and later deleted (FBD-INIT-9). A relative path is walked from the current
    directory, an absolute one from ``/``."""
    absolute = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
    directory, name = os.path.split(absolute)
    relative = not os.path.isabs(path)
    try:
        held = _direct(directory)
        if held is None:  # a link on the path: walked, to see whose each link is
            held = _walk(os.path.dirname(path) if relative else directory, relative)
        try:
            st = os.fstat(held)
            found = os.stat(name, dir_fd=held, follow_symlinks=False)
        finally:
            os.close(held)
    except ValueError as exc:
        raise ValueError(f"cannot own {path!r}: {exc}") from None
    except OSError as exc:  # named by the path the caller gave
        raise type(exc)(exc.errno, exc.strerror, path) from exc
    return Location(directory, name, (st.st_dev, st.st_ino)), found


def _direct(directory: str) -> int | None:
    """A descriptor of ``directory`` when no link was followed to open it, else None (and the
    caller walks): the kernel's own path of the directory opened (``/proc/self/fd``) must be the
    path given, so that the directory sits at that path with no link on it; only a rename of that
    very directory can change it. One open where the walk takes a step per directory; where the
    system does not tell (no ``/proc``), None."""
    fd = os.open(directory, _DIRECTORY_FLAGS)
    try:
        opened = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        opened = None
    except BaseException:  # pragma: no cover  # the suite's race or fault
        os.close(fd)
        raise
    if opened == os.path.normpath(directory):
        return fd
    os.close(fd)
    return None


def _walk(path: str, relative: bool) -> int:
    """A descriptor of the directory ``path`` leads to (from the current directory when
    ``relative``), each step opened without following a link; a link on the way is read and
    followed only when its owner is this process's user or root (``ValueError`` naming it
    otherwise), and checked unchanged after it was read."""
    parts = path.split(os.sep)
    fd = os.open(os.curdir if relative else os.sep, _DIRECTORY_FLAGS)
    links = 0
    try:
        while parts:
            part = parts.pop(0)
            if part in ("", os.curdir):
                continue
            try:
                step = os.open(part, _STEP_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise  # pragma: no cover  # the suite's race or fault
                target = _trusted_link(part, fd, exc)
                links += 1
                if links > _MAX_LINKS:
                    raise OSError(
                        errno.ELOOP, os.strerror(errno.ELOOP), path
                    ) from None  # pragma: no cover
                parts[:0] = target.split(os.sep)
                if os.path.isabs(target):
                    step = os.open(os.sep, _DIRECTORY_FLAGS)
                else:
                    continue
            previous, fd = fd, step  # held before the close, which may fail having closed
            os.close(previous)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _trusted_link(name: str, directory: int, failed: OSError) -> str:
    """The target of the link ``name`` in ``directory``, when this process's user or root owns
    it; ``failed`` again when ``name`` is no link (a file where a directory should be)."""
    st = os.stat(name, dir_fd=directory, follow_symlinks=False)
    if not stat.S_ISLNK(st.st_mode):
        raise failed  # pragma: no cover  # the suite's race or fault
    if st.st_uid not in (0, os.geteuid()):
        raise ValueError(
            f"{name!r} is a symbolic link owned by uid {st.st_uid}, another user, who could have "
            "put it there: an owner does not follow it"
        )
    target = os.readlink(name, dir_fd=directory)
    again = os.stat(name, dir_fd=directory, follow_symlinks=False)
    if (again.st_ino, again.st_ctime_ns) != (st.st_ino, st.st_ctime_ns):  # swapped meanwhile
        raise FileChangedError(errno.ESTALE, "the link was replaced while it was read", name)
    return target
